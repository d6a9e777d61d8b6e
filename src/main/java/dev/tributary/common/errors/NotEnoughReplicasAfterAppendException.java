package dev.tributary.common.errors;

/**
 * Kafka's NOT_ENOUGH_REPLICAS_AFTER_APPEND: the records were appended and replicated to the ISR,
 * but the ISR shrank below {@code min.insync.replicas} meanwhile; the outcome is not durable as
 * asked, and the records may be visible.
 */
public class NotEnoughReplicasAfterAppendException extends ApiException {
  public NotEnoughReplicasAfterAppendException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  }
}
