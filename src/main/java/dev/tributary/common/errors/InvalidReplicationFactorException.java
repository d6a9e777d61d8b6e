package dev.tributary.common.errors;

/** Kafka's INVALID_REPLICATION_FACTOR: below 1, or more than there are live brokers. */
public class InvalidReplicationFactorException extends ApiException {
  public InvalidReplicationFactorException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.INVALID_REPLICATION_FACTOR;
  }
}
