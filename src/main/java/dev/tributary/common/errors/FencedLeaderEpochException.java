package dev.tributary.common.errors;

/**
 * Kafka's FENCED_LEADER_EPOCH (KIP-320): the request carries an older leader epoch than the
 * partition's; the sender's metadata is stale.
 */
public class FencedLeaderEpochException extends ApiException {
  public FencedLeaderEpochException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.FENCED_LEADER_EPOCH;
  }
}
