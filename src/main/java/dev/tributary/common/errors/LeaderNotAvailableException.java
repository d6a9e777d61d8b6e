package dev.tributary.common.errors;

/**
 * Kafka's LEADER_NOT_AVAILABLE: the partition exists but has no leader right now (offline: every
 * in-sync replica is fenced). Retriable: it comes back when an in-sync replica's broker does.
 */
public class LeaderNotAvailableException extends ApiException {
  public LeaderNotAvailableException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.LEADER_NOT_AVAILABLE;
  }
}
