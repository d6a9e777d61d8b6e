package dev.tributary.group;

/**
 * The answers a coordinator gives, named and numbered as Kafka's protocol errors so that logs, the
 * REST API and a future Kafka-protocol listener use one vocabulary. {@link #retriable} says whether
 * a client should simply try again (after rediscovering the coordinator for the first three).
 */
public enum GroupError {
  NONE(0, false),
  /** The group's coordinator partition has no leader right now, or the write did not commit. */
  COORDINATOR_NOT_AVAILABLE(15, true),
  /** This broker does not lead the group's partition of {@code __consumer_offsets}. */
  NOT_COORDINATOR(16, true),
  /** This broker leads the partition but is still reading it back. */
  COORDINATOR_LOAD_IN_PROGRESS(14, true),
  /** The request names a generation the group has moved past (or not reached). */
  ILLEGAL_GENERATION(22, false),
  /** The group has no member with this id (it left, or timed out). Rejoin with no member id. */
  UNKNOWN_MEMBER_ID(25, false),
  /** The group is rebalancing; rejoin. */
  REBALANCE_IN_PROGRESS(27, false),
  /** The member's protocol type, or all its assignors, differ from the group's. */
  INCONSISTENT_GROUP_PROTOCOL(23, false),
  /** The session timeout is outside the broker's allowed range. */
  INVALID_SESSION_TIMEOUT(26, false),
  /**
   * A join without a member id: here is one, join again with it (KIP-394). Not an error for the
   * member; it retries at once.
   */
  MEMBER_ID_REQUIRED(79, true),
  /** The group id is empty or not a valid name. */
  INVALID_GROUP_ID(24, false),
  /** No such group on its coordinator. */
  GROUP_ID_NOT_FOUND(69, false),
  /** The group still has members, so it cannot be deleted. */
  NON_EMPTY_GROUP(68, false),
  /** A committed offset's metadata string is longer than offset.metadata.max.bytes. */
  OFFSET_METADATA_TOO_LARGE(12, false),
  /**
   * A static member's instance id now belongs to a newer member id (the same instance restarted, or
   * a duplicate is running): this one is fenced for good (KIP-345).
   */
  FENCED_INSTANCE_ID(82, false);

  public final int code;
  public final boolean retriable;

  GroupError(int code, boolean retriable) {
    this.code = code;
    this.retriable = retriable;
  }

  /** True for the errors that mean "find the coordinator again". */
  public boolean coordinatorMoved() {
    return this == NOT_COORDINATOR || this == COORDINATOR_NOT_AVAILABLE;
  }
}
