package dev.tributary.metadata;

import java.util.Locale;

/**
 * One entry of the cluster's timeline: something the controller changed, when and why. The
 * controller computes these together with the records they describe ({@link
 * ClusterEvents#describe}) and commits them in the same batch as a {@link
 * MetadataRecord.EventsRecorded}, so every broker replays the same timeline, in metadata-log order.
 *
 * @param offset the metadata-log offset of the batch's {@link MetadataRecord.EventsRecorded}; -1
 *     until replayed
 * @param timestampMs the active controller's clock when it computed the change
 * @param topic the topic concerned, or null
 * @param partition the partition concerned, or -1
 * @param brokerId the broker concerned (fenced, registered, the replica leaving the ISR), or -1
 * @param text what happened, for people ("leader 1 → 2 (leader epoch 4)")
 * @param reason why, as the controller or the partition's leader saw it, or null
 */
public record ClusterEvent(
    long offset,
    long timestampMs,
    Type type,
    String topic,
    int partition,
    int brokerId,
    String text,
    String reason) {
  /**
   * Longer texts are cut (a reason may list many replicas; the record encoding caps strings at 64
   * KiB).
   */
  static final int MAX_TEXT_CHARS = 1_000;

  public ClusterEvent {
    text = cut(text);
    reason = reason == null ? null : cut(reason);
  }

  private static String cut(String s) {
    return s.length() <= MAX_TEXT_CHARS ? s : s.substring(0, MAX_TEXT_CHARS - 1) + "…";
  }

  /** What kind of change; the JSON and the page use {@link #jsonName()}. */
  public enum Type {
    /** A broker became the active controller (a new Raft term). */
    CONTROLLER_ELECTED,
    /** A broker process registered (a new incarnation: a start or a restart); it starts fenced. */
    BROKER_REGISTERED,
    /** A broker may no longer lead: its session expired, it shut down, or it was found dead. */
    BROKER_FENCED,
    /** A broker caught up with the metadata and may lead again. */
    BROKER_UNFENCED,
    TOPIC_CREATED,
    TOPIC_DELETED,
    PARTITIONS_ADDED,
    CONFIG_CHANGED,
    /** A partition's leader changed (or it went offline: leader -1); the leader epoch went up. */
    LEADER_CHANGED,
    /** Replicas left a partition's ISR. */
    ISR_SHRINK,
    /** Replicas joined a partition's ISR. */
    ISR_EXPAND,
    /**
     * A replica dropped the tail of its log that its new leader never had (reported by its broker;
     * the only event that is not a metadata change).
     */
    REPLICA_TRUNCATED;

    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The same event stamped with the offset it was committed at. */
  ClusterEvent atOffset(long committedOffset) {
    return new ClusterEvent(
        committedOffset, timestampMs, type, topic, partition, brokerId, text, reason);
  }
}
