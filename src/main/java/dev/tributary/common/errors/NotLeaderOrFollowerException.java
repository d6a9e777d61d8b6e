package dev.tributary.common.errors;

/** Kafka's NOT_LEADER_OR_FOLLOWER: this broker does not lead the partition. */
public class NotLeaderOrFollowerException extends ApiException {
  public NotLeaderOrFollowerException(String message) {
    super(message);
  }
}
