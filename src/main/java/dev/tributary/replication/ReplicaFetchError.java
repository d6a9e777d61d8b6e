package dev.tributary.replication;

/** The errors a replica fetch or epoch query answers with, by Kafka's names and codes. */
public enum ReplicaFetchError {
  NONE(0),
  /** The fetch offset is outside the leader's log (the follower truncates or restarts its log). */
  OFFSET_OUT_OF_RANGE(1),
  UNKNOWN_TOPIC_OR_PARTITION(3),
  /** The broker does not lead the partition (the follower waits for new metadata). */
  NOT_LEADER_OR_FOLLOWER(6),
  /** The leader's log could not be read. */
  KAFKA_STORAGE_ERROR(56),
  /** The follower's leader epoch is older than the leader's (KIP-320): its metadata is stale. */
  FENCED_LEADER_EPOCH(74),
  /** The follower's leader epoch is newer than the leader's: the leader's metadata is behind. */
  UNKNOWN_LEADER_EPOCH(75),
  /**
   * Whole request: the sender is not the current registration of its broker id (Kafka's
   * STALE_BROKER_EPOCH).
   */
  STALE_BROKER_EPOCH(77);

  private final short code;

  ReplicaFetchError(int code) {
    this.code = (short) code;
  }

  public short code() {
    return code;
  }

  public static ReplicaFetchError forCode(short code) {
    for (ReplicaFetchError error : values()) {
      if (error.code == code) {
        return error;
      }
    }
    throw new IllegalArgumentException("unknown replica fetch error code " + code);
  }
}
