package dev.tributary.common.errors;

/**
 * Kafka's NOT_ENOUGH_REPLICAS: an {@code acks=all} produce was refused before anything was
 * appended, because the in-sync replicas are fewer than {@code min.insync.replicas}. Nothing of it
 * is ever visible.
 */
public class NotEnoughReplicasException extends ApiException {
  public NotEnoughReplicasException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.NOT_ENOUGH_REPLICAS;
  }
}
