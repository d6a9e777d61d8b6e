package dev.tributary.common.errors;

/**
 * Kafka's UNKNOWN_LEADER_EPOCH (KIP-320): the request carries a newer leader epoch than this broker
 * knows; its metadata is behind.
 */
public class UnknownLeaderEpochException extends ApiException {
  public UnknownLeaderEpochException(String message) {
    super(message);
  }

  @Override
  public Errors error() {
    return Errors.UNKNOWN_LEADER_EPOCH;
  }
}
