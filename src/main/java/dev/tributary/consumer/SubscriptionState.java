package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.consumer.ConsumerInstance.Mode;
import dev.tributary.group.OffsetAndMetadata;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What one consumer instance reads and from where, as Kafka's {@code SubscriptionState}: a
 * subscription (topics or a pattern, partitions assigned by the group) or a manual assignment, and
 * per assigned partition either a position (the next offset to return) or a pending reset ({@code
 * earliest}, {@code latest}, {@code none}). Unlike Kafka's, the group's assignment is not copied
 * in: it is read from the {@link GroupMembership} each time, because a member serves nothing from
 * an assignment the coordinator has not confirmed within the session timeout.
 *
 * <p>The assignment epoch (Kafka's {@code assignmentId}) counts changes of the assignment. Every
 * asynchronous step of a read (committed offsets, resets, fetches) carries the epoch it began in
 * and changes positions only while it is still current, so a read that straddles a rebalance
 * delivers nothing and a lookup answered late cannot resurrect a forgotten position.
 *
 * <p>Thread-safety: guarded by this object; every method is atomic. Lock order: {@link
 * ConsumerInstance} → this → {@link GroupMembership} (methods here ask the membership for its
 * assignment with this lock held; the membership calls its listener, which comes back here, only
 * without its own lock). Nothing here does I/O, and the only code run under this lock that is not
 * this class's own is a {@link Collector}, which must not call out either.
 */
final class SubscriptionState {
  private final ClusterTopics topics;

  /** Invariant: SUBSCRIBED iff {@link #membership} != null; ASSIGNED iff a manual assignment. */
  private Mode mode = Mode.NONE;

  /** Invariant: non-empty only when SUBSCRIBED without a pattern; sorted, no blanks. */
  private List<String> subscribedTopics = List.of();

  /** Invariant: non-null only when SUBSCRIBED to a pattern. */
  private Pattern topicPattern;

  /** Invariant: non-empty iff ASSIGNED; no duplicates; every partition existed when assigned. */
  private List<TopicPartition> manualAssignment = List.of();

  /** The member side of the group protocol while SUBSCRIBED; its owned partitions are ours. */
  private GroupMembership membership;

  /**
   * Next offset to return per partition; moves forward only over records delivered, or by a seek, a
   * reset or a committed offset. Invariant: keys ⊆ the current assignment (the manual one, or the
   * group's latest): every change of the assignment clears the positions or, for a manual one,
   * keeps only those still assigned, and every late answer is dropped once its epoch is past.
   */
  private final Map<TopicPartition, Long> positions = new HashMap<>();

  /**
   * Partitions to reposition by a reset strategy before their next read; a completed reset replaces
   * the position. Invariant: keys ⊆ the current assignment, as for positions.
   */
  private final Map<TopicPartition, String> pendingResets = new HashMap<>();

  /** Bumped on every change of the assignment; never decreases. */
  private long assignmentEpoch;

  SubscriptionState(ClusterTopics topics) {
    this.topics = topics;
  }

  /** The partitions assigned now, and the epoch of that assignment, read together. */
  record Assignment(long epoch, List<TopicPartition> partitions) {}

  /**
   * Positions to commit and whom to commit them as: a subscribed consumer commits as its member id
   * and generation, which the coordinator checks; a manually assigned one as "" and -1.
   */
  record Consumed(
      boolean inGroup, String memberId, int generationId, Map<TopicPartition, Long> positions) {
    /** A subscribed consumer between generations, which no commit can be accepted from. */
    boolean betweenGenerations() {
      return inGroup && memberId.isEmpty();
    }
  }

  /** What unsubscribing (or closing) left: the membership to leave, if any, and its positions. */
  record Unsubscribed(GroupMembership membership, Consumed consumed) {}

  // ---------------------------------------------------------------------------------------------
  // subscription and assignment

  /**
   * Subscribes to {@code topicList}, or to every topic matching {@code pattern}; replaces any
   * subscription. The first subscription creates the membership ({@code newMembership}); a later
   * one asks it to rejoin. Either way the client counts as having polled.
   */
  synchronized void subscribe(
      List<String> topicList, String pattern, Supplier<GroupMembership> newMembership) {
    if (mode == Mode.ASSIGNED) {
      throw new IllegalConsumerStateException(
          "Subscription to topics, partitions and pattern are mutually exclusive: this instance has a manual assignment; delete it first (DELETE .../assignments is not in REST Proxy; use POST .../assignments with an empty list)");
    }
    boolean hasTopics = topicList != null && !topicList.isEmpty();
    if (hasTopics == (pattern != null)) {
      throw new InvalidRequestException(
          "Give either a non-empty \"topics\" list or a \"topic_pattern\", not both and not neither");
    }
    if (hasTopics) {
      for (String t : topicList) {
        if (t == null || t.isBlank()) {
          throw new InvalidRequestException("A topic name in \"topics\" is empty");
        }
      }
      subscribedTopics = List.copyOf(new TreeSet<>(topicList));
      topicPattern = null;
    } else {
      try {
        topicPattern = Pattern.compile(pattern);
      } catch (PatternSyntaxException e) {
        throw new InvalidRequestException(
            "topic_pattern is not a valid regular expression: " + e.getDescription());
      }
      subscribedTopics = List.of();
    }
    mode = Mode.SUBSCRIBED;
    if (membership == null) {
      membership = newMembership.get();
    } else {
      membership.requestRejoin("subscription changed");
    }
    membership.onClientPoll();
  }

  /** Assigns partitions by hand, each of which must exist; an empty list unassigns. */
  synchronized void assign(List<TopicPartition> partitions) {
    if (mode == Mode.SUBSCRIBED) {
      throw new IllegalConsumerStateException(
          "Subscription to topics, partitions and pattern are mutually exclusive: this instance is subscribed; unsubscribe first");
    }
    Map<String, Integer> counts = topics.partitionCounts(true);
    for (TopicPartition tp : partitions) {
      Integer count = counts.get(tp.topic());
      if (count == null) {
        throw UnknownTopicOrPartitionException.unknownTopic(tp.topic());
      }
      if (tp.partition() >= count) {
        throw UnknownTopicOrPartitionException.unknownPartition(tp.topic(), tp.partition(), count);
      }
    }
    manualAssignment = List.copyOf(new LinkedHashSet<>(partitions));
    mode = manualAssignment.isEmpty() ? Mode.NONE : Mode.ASSIGNED;
    positions.keySet().retainAll(manualAssignment);
    pendingResets.keySet().retainAll(manualAssignment);
    assignmentEpoch++;
  }

  /**
   * Forgets subscription, assignment and positions (Kafka's {@code unsubscribe}); returns the
   * membership to leave, if subscribed, and the positions of what was assigned, to commit.
   */
  synchronized Unsubscribed unsubscribe() {
    GroupMembership leaving = membership;
    Consumed consumed = consumed();
    membership = null;
    mode = Mode.NONE;
    subscribedTopics = List.of();
    topicPattern = null;
    manualAssignment = List.of();
    clearPositions();
    return new Unsubscribed(leaving, consumed);
  }

  synchronized Mode mode() {
    return mode;
  }

  /** The membership, while subscribed; otherwise null. */
  synchronized GroupMembership membership() {
    return membership;
  }

  /** The topics subscribed to, sorted (a pattern resolved against the topics that exist now). */
  synchronized List<String> subscription() {
    return mode == Mode.SUBSCRIBED ? List.copyOf(new TreeSet<>(subscribedTopics())) : List.of();
  }

  /** The subscribed pattern, or null. */
  synchronized String topicPattern() {
    return topicPattern == null ? null : topicPattern.pattern();
  }

  /** The subscribed topics, a pattern resolved against the topics that exist now. */
  synchronized Set<String> subscribedTopics() {
    if (topicPattern == null) {
      return Set.copyOf(subscribedTopics);
    }
    Set<String> matched = new TreeSet<>();
    for (String topic : topics.partitionCounts(false).keySet()) {
      if (topicPattern.matcher(topic).matches()) {
        matched.add(topic);
      }
    }
    return matched;
  }

  /** The partitions this instance reads now: its manual assignment, or the group's. */
  synchronized List<TopicPartition> assignedPartitions() {
    return switch (mode) {
      case ASSIGNED -> manualAssignment;
      case SUBSCRIBED -> membership.ownedPartitions();
      case NONE -> List.of();
    };
  }

  synchronized Assignment assignment() {
    return new Assignment(assignmentEpoch, assignedPartitions());
  }

  // ---------------------------------------------------------------------------------------------
  // positions

  /** Moves the positions of assigned partitions (offsets >= 0), cancelling their resets. */
  synchronized void seek(Map<TopicPartition, Long> offsets) {
    requireAssigned(offsets.keySet());
    offsets.forEach(
        (tp, offset) -> {
          if (offset < 0) {
            throw new InvalidRequestException("offset must be >= 0, got " + offset + " for " + tp);
          }
        });
    offsets.forEach(
        (tp, offset) -> {
          positions.put(tp, offset);
          pendingResets.remove(tp);
        });
  }

  /** Repositions assigned partitions by {@code strategy} before their next read. */
  synchronized void requestOffsetReset(List<TopicPartition> partitions, String strategy) {
    requireAssigned(partitions);
    for (TopicPartition tp : partitions) {
      positions.remove(tp);
      pendingResets.put(tp, strategy);
    }
  }

  private void requireAssigned(Collection<TopicPartition> partitions) {
    List<TopicPartition> assigned = assignedPartitions();
    for (TopicPartition tp : partitions) {
      if (!assigned.contains(tp)) {
        throw new IllegalConsumerStateException(
            "No current assignment for partition " + tp + "; this instance holds " + assigned);
      }
    }
  }

  /** Those of {@code partitions} with neither a position nor a pending reset. */
  synchronized List<TopicPartition> initializingPartitions(List<TopicPartition> partitions) {
    return partitions.stream()
        .filter(tp -> !positions.containsKey(tp) && !pendingResets.containsKey(tp))
        .toList();
  }

  /**
   * Positions {@code partitions} at their committed offsets, if the assignment is still that of
   * {@code epoch}; those without one (and still without a position) get {@code defaultReset}.
   */
  synchronized void maybeSeekToCommitted(
      long epoch,
      List<TopicPartition> partitions,
      Map<TopicPartition, OffsetAndMetadata> committed,
      String defaultReset) {
    if (assignmentEpoch != epoch) {
      return;
    }
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata o = committed.get(tp);
      if (o != null) {
        positions.putIfAbsent(tp, o.offset());
      } else if (!positions.containsKey(tp)) {
        pendingResets.putIfAbsent(tp, defaultReset);
      }
    }
  }

  /** The pending reset strategy of each of {@code partitions} that has one, in their order. */
  synchronized Map<TopicPartition, String> partitionsNeedingReset(List<TopicPartition> partitions) {
    Map<TopicPartition, String> resets = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      String strategy = pendingResets.get(tp);
      if (strategy != null) {
        resets.put(tp, strategy);
      }
    }
    return resets;
  }

  /**
   * Completes a reset with the offset its strategy found, unless the assignment changed since
   * {@code epoch} or the reset was replaced meanwhile (by a seek or another strategy).
   */
  synchronized void maybeCompleteReset(
      long epoch, TopicPartition tp, String strategy, long offset) {
    if (assignmentEpoch == epoch && strategy.equals(pendingResets.get(tp))) {
      pendingResets.remove(tp);
      positions.put(tp, offset);
    }
  }

  /** The position of each of {@code partitions} that has one, in their order. */
  synchronized Map<TopicPartition, Long> fetchPositions(List<TopicPartition> partitions) {
    Map<TopicPartition, Long> starts = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      Long position = positions.get(tp);
      if (position != null) {
        starts.put(tp, position);
      }
    }
    return starts;
  }

  /**
   * A read of {@code tp} at {@code offset} found it out of range: reset it by {@code strategy},
   * unless the assignment changed since {@code epoch} or the position moved meanwhile. Returns
   * whether it was reset.
   */
  synchronized boolean maybeResetOutOfRange(
      long epoch, TopicPartition tp, long offset, String strategy) {
    if (assignmentEpoch != epoch || !Long.valueOf(offset).equals(positions.get(tp))) {
      return false;
    }
    positions.remove(tp);
    pendingResets.put(tp, strategy);
    return true;
  }

  /**
   * The group's assignment changed (a new generation's, or lost): every position is forgotten, so
   * partitions come back through the committed offset (the eager protocol).
   */
  synchronized void clearPositions() {
    positions.clear();
    pendingResets.clear();
    assignmentEpoch++;
  }

  /**
   * The membership gives up {@code partitions} as {@code memberId} of {@code generationId}: their
   * positions, to commit, and then every position forgotten, in one step, so nothing a read
   * delivers is left out of the commit.
   */
  synchronized Consumed revoke(List<TopicPartition> partitions, String memberId, int generationId) {
    Consumed consumed =
        new Consumed(mode == Mode.SUBSCRIBED, memberId, generationId, positionsOf(partitions));
    clearPositions();
    return consumed;
  }

  /** The positions of the assigned partitions, and whom to commit them as. */
  synchronized Consumed consumed() {
    if (mode == Mode.SUBSCRIBED) {
      return new Consumed(
          true,
          membership.memberId(),
          membership.generationId(),
          positionsOf(membership.ownedPartitions()));
    }
    return new Consumed(false, "", -1, positionsOf(assignedPartitions()));
  }

  private Map<TopicPartition, Long> positionsOf(List<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      Long position = positions.get(tp);
      if (position != null) {
        out.put(tp, position);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // delivery

  /** What a {@link Collector} may do with the positions, and only while it runs. */
  interface ReadPositions {
    /** The position of {@code tp} if it is assigned now and the read's epoch is current. */
    Long positionIfAssigned(TopicPartition tp);

    /** Moves the position of {@code tp} forward to {@code nextOffset}. */
    void advance(TopicPartition tp, long nextOffset);
  }

  /** Checks and advances the positions of one read's partitions; runs under this state's lock. */
  interface Collector<T> {
    /**
     * @param generationId the group generation now (-1 outside a group)
     */
    T collect(int generationId, ReadPositions positions);
  }

  /**
   * Runs {@code collector} with this state locked, so that checking a partition's position and
   * advancing it past what is delivered is one step with respect to every other read, seek and
   * rebalance. If the assignment changed since {@code epoch}, no partition has a position.
   */
  synchronized <T> T collect(long epoch, Collector<T> collector) {
    int generationId = mode == Mode.SUBSCRIBED ? membership.generationId() : -1;
    LockedPositions view = new LockedPositions(assignmentEpoch == epoch, assignedPartitions());
    try {
      return collector.collect(generationId, view);
    } finally {
      view.valid = false;
    }
  }

  /** The positions as one collector sees them; unusable once it returns. Guarded by the lock. */
  private final class LockedPositions implements ReadPositions {
    private final boolean current;
    private final List<TopicPartition> assigned;
    private boolean valid = true;

    LockedPositions(boolean current, List<TopicPartition> assigned) {
      this.current = current;
      this.assigned = assigned;
    }

    @Override
    public Long positionIfAssigned(TopicPartition tp) {
      requireValid();
      return current && assigned.contains(tp) ? positions.get(tp) : null;
    }

    @Override
    public void advance(TopicPartition tp, long nextOffset) {
      requireValid();
      Long position = positionIfAssigned(tp);
      if (position == null || nextOffset <= position) {
        throw new IllegalStateException(
            "A position moves only forward, and only while assigned: "
                + tp
                + " at "
                + position
                + ", asked to move to "
                + nextOffset);
      }
      positions.put(tp, nextOffset);
    }

    /** Refuses use outside the collect that made this view (and so without this state's lock). */
    private void requireValid() {
      if (!Thread.holdsLock(SubscriptionState.this) || !valid) {
        throw new IllegalStateException("Positions are read and advanced only inside collect");
      }
    }
  }

  /** The mode, the membership's status and the positions, for the instance's status line. */
  synchronized String statusLine() {
    return mode
        + (membership == null ? "" : " " + membership.statusLine())
        + " positions="
        + positions;
  }
}
