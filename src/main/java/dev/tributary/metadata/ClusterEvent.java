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
 * @param index its position among the events of its batch (those with the same {@code offset}):
 *     with {@code offset} it names the event
 * @param causeIndex the {@code index} of the event of the same batch that caused this one (the
 *     fencing of the broker a leadership moved away from, the topic creation a partition belongs
 *     to), or -1: it is a cause itself, or stands alone. Exact, not guessed: a batch holds the
 *     records of one controller decision ({@link ClusterEvents#describe}).
 */
public record ClusterEvent(
    long offset,
    long timestampMs,
    Type type,
    String topic,
    int partition,
    int brokerId,
    String text,
    String reason,
    int index,
    int causeIndex) {
  /**
   * Longer texts are cut (a reason may list many replicas; the record encoding caps strings at 64
   * KiB).
   */
  static final int MAX_TEXT_CHARS = 1_000;

  /** An event alone in its batch, or not yet placed in one: index 0, no cause. */
  public ClusterEvent(
      long offset,
      long timestampMs,
      Type type,
      String topic,
      int partition,
      int brokerId,
      String text,
      String reason) {
    this(offset, timestampMs, type, topic, partition, brokerId, text, reason, 0, -1);
  }

  public ClusterEvent {
    if (index < 0 || causeIndex < -1 || causeIndex >= index && causeIndex != -1) {
      // Causes come first in their batch, so a reference always points backwards.
      throw new IllegalArgumentException(
          "bad event position " + index + " with cause " + causeIndex);
    }
    text = cut(text);
    reason = reason == null ? null : cut(reason);
  }

  private static String cut(String s) {
    return s.length() <= MAX_TEXT_CHARS ? s : s.substring(0, MAX_TEXT_CHARS - 1) + "…";
  }

  /** What kind of change; the JSON and the page use {@link #jsonName()}. */
  public enum Type {
    /** A broker became the active controller (a new Raft term). */
    CONTROLLER_ELECTED(false),
    /**
     * A broker process registered (a new incarnation: a start or a restart); it starts fenced. A
     * restart causes the old incarnation's leaderships and ISR places to move.
     */
    BROKER_REGISTERED(true),
    /**
     * A broker may no longer lead: its session expired, it shut down, or it was found dead. Causes
     * the leader elections and ISR shrinks that move its partitions away.
     */
    BROKER_FENCED(true),
    /** A broker caught up with the metadata and may lead again: causes the elections it wins. */
    BROKER_UNFENCED(true),
    /** A decommissioned broker, empty and stopped, was removed from the cluster. */
    BROKER_UNREGISTERED(false),
    /** Causes its partitions' {@link #PARTITIONS_ADDED} events. */
    TOPIC_CREATED(true),
    TOPIC_DELETED(true),
    PARTITIONS_ADDED(false),
    CONFIG_CHANGED(false),
    /** A partition's leader changed (or it went offline: leader -1); the leader epoch went up. */
    LEADER_CHANGED(false),
    /** Replicas left a partition's ISR. */
    ISR_SHRINK(false),
    /** Replicas joined a partition's ISR. */
    ISR_EXPAND(false),
    /**
     * A partition's replicas are being moved (KIP-455): a reassignment started, got a new target,
     * completed or was cancelled; or replicas changed at once (a reorder or a shrink in sync).
     */
    REASSIGNMENT(false),
    /**
     * A replica dropped the tail of its log that its new leader never had (reported by its broker;
     * the only event that is not a metadata change).
     */
    REPLICA_TRUNCATED(false),
    /**
     * A fault injected on purpose from the dashboard (a broker's links cut, or every link healed),
     * so that the timeline shows the cause before what the controller then did about it (reported
     * by the broker that ran the action; not a metadata change).
     */
    FAULT_INJECTED(false);

    /** Whether events of this type cause the other events of their batch. */
    private final boolean isCause;

    Type(boolean isCause) {
      this.isCause = isCause;
    }

    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Whether it caused others: a broker's fencing, registration or unfencing, a topic's creation.
   */
  public boolean isCause() {
    return type.isCause;
  }

  /** The same event stamped with the offset it was committed at. */
  ClusterEvent atOffset(long committedOffset) {
    return new ClusterEvent(
        committedOffset,
        timestampMs,
        type,
        topic,
        partition,
        brokerId,
        text,
        reason,
        index,
        causeIndex);
  }

  /**
   * The same event at {@code newIndex} of its batch, caused by the one at {@code newCauseIndex}.
   */
  ClusterEvent placed(int newIndex, int newCauseIndex) {
    return new ClusterEvent(
        offset,
        timestampMs,
        type,
        topic,
        partition,
        brokerId,
        text,
        reason,
        newIndex,
        newCauseIndex);
  }
}
