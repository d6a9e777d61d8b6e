package dev.tributary.common.errors;

/**
 * Kafka's STALE_BROKER_EPOCH: a broker spoke with an epoch that is not its current registration's
 * (its process was replaced by a newer incarnation, or it never saw its own registration). It must
 * register again.
 */
public class StaleBrokerEpochException extends ApiException {
  public StaleBrokerEpochException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.STALE_BROKER_EPOCH;
  }
}
