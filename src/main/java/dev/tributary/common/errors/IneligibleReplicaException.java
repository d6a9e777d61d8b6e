package dev.tributary.common.errors;

/**
 * Kafka's INELIGIBLE_REPLICA (KIP-841): an ISR change would add a replica whose broker is fenced,
 * or whose broker epoch is not the current registration's.
 */
public class IneligibleReplicaException extends ApiException {
  public IneligibleReplicaException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INELIGIBLE_REPLICA;
  }
}
