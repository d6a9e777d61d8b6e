package dev.tributary.common.errors;

import java.util.OptionalInt;

/**
 * Kafka's NOT_LEADER_OR_FOLLOWER: this broker does not lead the partition. When the current leader
 * is known it is carried along, so that a request can be sent on to it.
 */
public class NotLeaderOrFollowerException extends ApiException {
  private final OptionalInt leaderId;

  public NotLeaderOrFollowerException(String message) {
    this(message, OptionalInt.empty());
  }

  public NotLeaderOrFollowerException(String message, OptionalInt leaderId) {
    super(message);
    this.leaderId = leaderId;
  }

  /** The broker that leads the partition, if there is one and this broker knows it. */
  public OptionalInt leaderId() {
    return leaderId;
  }

  @Override
  public Errors error() {
    return Errors.NOT_LEADER_OR_FOLLOWER;
  }
}
