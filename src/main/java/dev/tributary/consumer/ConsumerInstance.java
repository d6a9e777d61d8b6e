package dev.tributary.consumer;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer as REST Proxy's consumer API has it: created in a group, then either subscribed to
 * topics (a member of the group, partitions assigned by rebalancing) or manually assigned
 * partitions; it keeps a position per partition, returns records from there, and commits offsets to
 * the group's coordinator. Lives on the broker that created it.
 *
 * <p>Positions: a partition newly assigned starts from the group's committed offset, else per
 * {@code auto.offset.reset}; a rebalance forgets every position (the eager protocol: partitions
 * come back through the committed offset), so a member never serves a partition past what was
 * committed for it by another member. Positions advance only over records actually returned.
 *
 * <p>Invariant: records are served only from {@link #assignedPartitions()} as it is when the read
 * completes, and only if the assignment did not change while the read was in flight.
 *
 * <p>Thread-safe (guarded by this object; I/O futures complete without the lock).
 */
public final class ConsumerInstance {
  private static final Logger logger = LoggerFactory.getLogger(ConsumerInstance.class);

  /** Kafka's max.partition.fetch.bytes default: the most one partition contributes per read. */
  static final int MAX_PARTITION_FETCH_BYTES = 1 << 20;

  public enum Mode {
    NONE,
    SUBSCRIBED,
    ASSIGNED
  }

  private final String groupId;
  private final String instanceId;
  private final ConsumerSettings settings;
  private final CoordinatorApi coordinator;
  private final PartitionReader reader;
  private final ClusterTopics topics;
  private final Time time;
  private final Scheduler scheduler;
  private final String clientHost;
  private final String principal;

  private Mode mode = Mode.NONE;
  private List<String> subscribedTopics = List.of();
  private Pattern topicPattern;
  private List<TopicPartition> manualAssignment = List.of();
  private GroupMembership membership;

  /** Next offset to return per partition. Invariant: keys ⊆ the current assignment. */
  private final Map<TopicPartition, Long> positions = new HashMap<>();

  /** Partitions to reposition by a reset strategy before their next read. */
  private final Map<TopicPartition, String> pendingResets = new HashMap<>();

  /** Bumped on every change of the assignment; reads that straddle a change deliver nothing. */
  private long assignmentEpoch;

  /**
   * Long polls still waiting, at most one per partition (see {@link #fetchOnce}). Invariant: each
   * entry's future is not done (a done one removes itself).
   */
  private final Map<TopicPartition, PendingFetch> pendingFetches = new HashMap<>();

  /** What was last committed per partition, to skip auto-commits that change nothing. */
  private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();

  private long lastRequestMs;
  private long lastAutoCommitMs;
  private boolean closed;

  public ConsumerInstance(
      String groupId,
      String instanceId,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      PartitionReader reader,
      ClusterTopics topics,
      Time time,
      Scheduler scheduler,
      String clientHost) {
    this(
        groupId,
        instanceId,
        settings,
        coordinator,
        reader,
        topics,
        time,
        scheduler,
        clientHost,
        "User:ANONYMOUS");
  }

  /**
   * @param principal who created this instance: only the same principal may use it
   */
  public ConsumerInstance(
      String groupId,
      String instanceId,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      PartitionReader reader,
      ClusterTopics topics,
      Time time,
      Scheduler scheduler,
      String clientHost,
      String principal) {
    this.principal = principal;
    this.groupId = groupId;
    this.instanceId = instanceId;
    this.settings = settings;
    this.coordinator = coordinator;
    this.reader = reader;
    this.topics = topics;
    this.time = time;
    this.scheduler = scheduler;
    this.clientHost = clientHost;
    this.lastRequestMs = time.milliseconds();
    this.lastAutoCommitMs = lastRequestMs;
  }

  public String groupId() {
    return groupId;
  }

  /** The principal that created this instance (the only one that may use it). */
  public String principal() {
    return principal;
  }

  public String instanceId() {
    return instanceId;
  }

  public ConsumerSettings settings() {
    return settings;
  }

  /** Any request on this instance: it is in use (the idle timeout restarts). */
  public synchronized void touch() {
    lastRequestMs = time.milliseconds();
  }

  public synchronized long idleMs(long nowMs) {
    return nowMs - lastRequestMs;
  }

  // ---------------------------------------------------------------------------------------------
  // subscription and assignment

  /**
   * Subscribes to {@code topicList}, or to every topic matching {@code pattern}; replaces any
   * subscription.
   */
  public synchronized void subscribe(List<String> topicList, String pattern) {
    touch();
    if (mode == Mode.ASSIGNED) {
      throw new IllegalConsumerStateException(
          "Subscription to topics, partitions and pattern are mutually exclusive: this instance has a manual assignment; delete it first (DELETE .../assignments is not in REST Proxy; use POST .../assignments with an empty list)");
    }
    boolean hasTopics = topicList != null && !topicList.isEmpty();
    if (hasTopics == (pattern != null)) {
      throw new dev.tributary.common.errors.InvalidRequestException(
          "Give either a non-empty \"topics\" list or a \"topic_pattern\", not both and not neither");
    }
    if (hasTopics) {
      for (String t : topicList) {
        if (t == null || t.isBlank()) {
          throw new dev.tributary.common.errors.InvalidRequestException(
              "A topic name in \"topics\" is empty");
        }
      }
      subscribedTopics = List.copyOf(new TreeSet<>(topicList));
      topicPattern = null;
    } else {
      try {
        topicPattern = Pattern.compile(pattern);
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new dev.tributary.common.errors.InvalidRequestException(
            "topic_pattern is not a valid regular expression: " + e.getDescription());
      }
      subscribedTopics = List.of();
    }
    mode = Mode.SUBSCRIBED;
    if (membership == null) {
      membership =
          new GroupMembership(
              groupId,
              instanceId,
              clientHost,
              settings,
              coordinator,
              time,
              new MembershipListener());
    } else {
      membership.requestRejoin("subscription changed");
    }
    membership.onClientPoll();
  }

  /** The topics subscribed to (a pattern resolved against the topics that exist now). */
  public synchronized List<String> subscription() {
    touch();
    return mode == Mode.SUBSCRIBED ? List.copyOf(new TreeSet<>(resolveTopics())) : List.of();
  }

  /** The subscribed pattern, or null. */
  public synchronized String topicPattern() {
    return topicPattern == null ? null : topicPattern.pattern();
  }

  /** Leaves the group and forgets subscription, assignment and positions. */
  public void unsubscribe() {
    GroupMembership leaving;
    CompletableFuture<Void> committed = CompletableFuture.completedFuture(null);
    synchronized (this) {
      touch();
      leaving = membership;
      if (leaving != null && settings.autoCommitEnable()) {
        committed =
            commitConsumed(leaving.memberId(), leaving.generationId(), leaving.ownedPartitions());
      }
      membership = null;
      mode = Mode.NONE;
      subscribedTopics = List.of();
      topicPattern = null;
      manualAssignment = List.of();
      clearPositions();
    }
    if (leaving != null) {
      // Leave only once the commit is in: a LeaveGroup that overtook it would make it fail.
      committed.thenCompose(ignored -> leaving.leaveNow("the consumer unsubscribed"));
    }
  }

  /** Assigns partitions by hand (no group membership); an empty list unassigns. */
  public synchronized void assign(List<TopicPartition> partitions) {
    touch();
    if (mode == Mode.SUBSCRIBED) {
      throw new IllegalConsumerStateException(
          "Subscription to topics, partitions and pattern are mutually exclusive: this instance is subscribed; unsubscribe first");
    }
    Map<String, Integer> counts = topics.partitionCounts(true);
    for (TopicPartition tp : partitions) {
      Integer count = counts.get(tp.topic());
      if (count == null) {
        throw dev.tributary.common.errors.UnknownTopicOrPartitionException.unknownTopic(tp.topic());
      }
      if (tp.partition() >= count) {
        throw dev.tributary.common.errors.UnknownTopicOrPartitionException.unknownPartition(
            tp.topic(), tp.partition(), count);
      }
    }
    manualAssignment = List.copyOf(new java.util.LinkedHashSet<>(partitions));
    mode = manualAssignment.isEmpty() ? Mode.NONE : Mode.ASSIGNED;
    positions.keySet().retainAll(manualAssignment);
    pendingResets.keySet().retainAll(manualAssignment);
    assignmentEpoch++;
  }

  /** The partitions this instance reads now: its manual assignment, or its group assignment. */
  public synchronized List<TopicPartition> assignedPartitions() {
    return switch (mode) {
      case ASSIGNED -> manualAssignment;
      case SUBSCRIBED -> membership.ownedPartitions();
      case NONE -> List.of();
    };
  }

  // ---------------------------------------------------------------------------------------------
  // positions

  public synchronized void seek(Map<TopicPartition, Long> offsets) {
    touch();
    requireAssigned(offsets.keySet());
    offsets.forEach(
        (tp, offset) -> {
          if (offset < 0) {
            throw new dev.tributary.common.errors.InvalidRequestException(
                "offset must be >= 0, got " + offset + " for " + tp);
          }
        });
    offsets.forEach(
        (tp, offset) -> {
          positions.put(tp, offset);
          pendingResets.remove(tp);
        });
  }

  public synchronized void seekToBeginning(List<TopicPartition> partitions) {
    seekTo(partitions, "earliest");
  }

  public synchronized void seekToEnd(List<TopicPartition> partitions) {
    seekTo(partitions, "latest");
  }

  private void seekTo(List<TopicPartition> partitions, String where) {
    touch();
    requireAssigned(partitions);
    for (TopicPartition tp : partitions) {
      positions.remove(tp);
      pendingResets.put(tp, where);
    }
  }

  private void requireAssigned(java.util.Collection<TopicPartition> partitions) {
    List<TopicPartition> assigned = assignedPartitions();
    for (TopicPartition tp : partitions) {
      if (!assigned.contains(tp)) {
        throw new IllegalConsumerStateException(
            "No current assignment for partition " + tp + "; this instance holds " + assigned);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // records

  /**
   * Returns records from the assigned partitions' positions: as soon as {@code fetch.min.bytes} are
   * in hand, or at {@code timeoutMs} with what there is (perhaps nothing). While the group is still
   * rebalancing, waits for the assignment first (within the same timeout). At most {@code maxBytes}
   * of keys and values, but always at least one record if there is one.
   */
  public CompletableFuture<Delivery> records(long timeoutMs, long maxBytes) {
    return records(timeoutMs, maxBytes, record -> true);
  }

  /**
   * Which records the caller can deliver (the JSON format cannot render bytes that are not JSON).
   * Delivery stops before the first record refused: positions never pass a record the client did
   * not get.
   */
  public interface Deliverable {
    boolean accepts(Record record);
  }

  /**
   * As {@link #records(long, long)}, delivering only up to the first record {@code deliverable}
   * refuses in each partition; if that is the very first record of the answer, fails with {@link
   * UndeliverableRecordException} and moves nothing.
   */
  public CompletableFuture<Delivery> records(
      long timeoutMs, long maxBytes, Deliverable deliverable) {
    CompletableFuture<Void> ready;
    long deadlineMs;
    GroupMembership polling = null;
    synchronized (this) {
      touch();
      if (closed) {
        throw new ConsumerInstanceNotFoundException(
            "Consumer instance " + instanceId + " was deleted");
      }
      if (mode == Mode.NONE) {
        throw new IllegalConsumerStateException(
            "Consumer is not subscribed to any topics or assigned any partitions");
      }
      deadlineMs = time.milliseconds() + timeoutMs;
      if (mode == Mode.SUBSCRIBED) {
        polling = membership;
        GroupError fatal = membership.fatalError();
        if (fatal != null) {
          membership.onClientPoll(); // reported once; the next call tries to join again
          throw new IllegalConsumerStateException(
              "The consumer cannot join group " + groupId + ": " + describe(fatal));
        }
        if (membership.isStable()) {
          ready = CompletableFuture.completedFuture(null);
        } else {
          GroupMembership waitingOn = membership;
          CompletableFuture<Void> stable = waitingOn.awaitStable();
          ready = withDeadline(stable, deadlineMs, () -> waitingOn.forgetWaiter(stable));
        }
      } else {
        ready = CompletableFuture.completedFuture(null);
      }
    }
    if (polling == null) {
      return ready.thenCompose(ignored -> readAssigned(deadlineMs, maxBytes, deliverable));
    }
    GroupMembership member = polling;
    member.onPollStarted();
    try {
      return ready
          .thenCompose(ignored -> readAssigned(deadlineMs, maxBytes, deliverable))
          .whenComplete((records, failure) -> member.onPollFinished());
    } catch (RuntimeException e) {
      member.onPollFinished();
      throw e;
    }
  }

  private static String describe(GroupError error) {
    return switch (error) {
      case INVALID_SESSION_TIMEOUT ->
          "its session.timeout.ms is outside the broker's group.min/max.session.timeout.ms";
      case INCONSISTENT_GROUP_PROTOCOL ->
          "none of its partition.assignment.strategy is supported by every member";
      default -> error.toString();
    };
  }

  /**
   * What one records call returns: per partition, the records to deliver; and the group generation
   * they were delivered in (-1 outside a group), so that callers can check that within one
   * generation each partition went to one member.
   */
  public record Delivery(int generationId, List<PartitionRecords> partitions) {}

  private CompletableFuture<Delivery> readAssigned(
      long deadlineMs, long maxBytes, Deliverable deliverable) {
    List<TopicPartition> partitions;
    long epoch;
    synchronized (this) {
      partitions = assignedPartitions();
      epoch = assignmentEpoch;
    }
    if (partitions.isEmpty()) {
      return CompletableFuture.completedFuture(new Delivery(-1, List.of()));
    }
    return initializePositions(partitions, epoch, deadlineMs)
        .thenCompose(ignored -> fetchAll(partitions, epoch, deadlineMs, maxBytes, deliverable));
  }

  /** Committed offsets for partitions without a position, then resets for those still without. */
  private CompletableFuture<Void> initializePositions(
      List<TopicPartition> partitions, long epoch, long deadlineMs) {
    List<TopicPartition> unknown = new ArrayList<>();
    synchronized (this) {
      for (TopicPartition tp : partitions) {
        if (!positions.containsKey(tp) && !pendingResets.containsKey(tp)) {
          unknown.add(tp);
        }
      }
    }
    CompletableFuture<Void> committed =
        unknown.isEmpty()
            ? CompletableFuture.completedFuture(null)
            : coordinator
                .fetchOffsets(groupId, unknown)
                .thenCompose(
                    result -> {
                      if (result.error() == GroupError.NONE) {
                        return CompletableFuture.completedFuture(result);
                      }
                      // The coordinator is moving, loading, or its topic is being created: ask
                      // again shortly while the call has time; after that the call answers with
                      // what the other partitions have, and these get positions on a later call.
                      if (deadlineMs - time.milliseconds() <= GroupMembership.RETRY_BACKOFF_MS) {
                        return CompletableFuture.completedFuture(result);
                      }
                      CompletableFuture<Void> later = new CompletableFuture<>();
                      scheduler.schedule(
                          GroupMembership.RETRY_BACKOFF_MS, () -> later.complete(null));
                      return later.thenCompose(
                          ignored ->
                              initializePositions(partitions, epoch, deadlineMs)
                                  .thenApply(
                                      done ->
                                          new CoordinatorApi.OffsetFetchResult(
                                              GroupError.COORDINATOR_NOT_AVAILABLE, Map.of())));
                    })
                .thenAccept(
                    result -> {
                      if (result.error() != GroupError.NONE) {
                        return; // handled (or given up on) above
                      }
                      synchronized (this) {
                        if (assignmentEpoch != epoch) {
                          return;
                        }
                        for (TopicPartition tp : unknown) {
                          OffsetAndMetadata o = result.offsets().get(tp);
                          if (o != null) {
                            positions.putIfAbsent(tp, o.offset());
                          } else if (!positions.containsKey(tp)) {
                            pendingResets.putIfAbsent(tp, settings.autoOffsetReset());
                          }
                        }
                      }
                    });
    return committed.thenCompose(ignored -> resetPositions(partitions, epoch));
  }

  private CompletableFuture<Void> resetPositions(List<TopicPartition> partitions, long epoch) {
    Map<TopicPartition, String> resets = new LinkedHashMap<>();
    synchronized (this) {
      for (TopicPartition tp : partitions) {
        String how = pendingResets.get(tp);
        if (how != null) {
          resets.put(tp, how);
        }
      }
    }
    List<CompletableFuture<Void>> lookups = new ArrayList<>();
    for (Map.Entry<TopicPartition, String> reset : resets.entrySet()) {
      TopicPartition tp = reset.getKey();
      if (reset.getValue().equals("none")) {
        throw new NoOffsetForPartitionException(
            "Partition "
                + tp
                + " has no committed offset in group "
                + groupId
                + " and auto.offset.reset is none; seek first");
      }
      lookups.add(
          reader
              .offsets(tp)
              .handle(
                  (offsets, failure) -> {
                    if (failure != null) {
                      return null; // leader moving; try again on the next read
                    }
                    synchronized (this) {
                      if (assignmentEpoch == epoch
                          && reset.getValue().equals(pendingResets.get(tp))) {
                        pendingResets.remove(tp);
                        positions.put(
                            tp,
                            reset.getValue().equals("earliest")
                                ? offsets.logStartOffset()
                                : offsets.highWatermark());
                      }
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new));
  }

  /**
   * Reads every partition with a position: first without waiting, so that one answer carries what
   * every partition has now (as a Kafka fetch does); only if that is less than {@code
   * fetch.min.bytes} again with a long poll, until min bytes or the deadline.
   */
  private CompletableFuture<Delivery> fetchAll(
      List<TopicPartition> partitions,
      long epoch,
      long deadlineMs,
      long maxBytes,
      Deliverable deliverable) {
    Map<TopicPartition, Long> starts = new LinkedHashMap<>();
    synchronized (this) {
      for (TopicPartition tp : partitions) {
        Long position = positions.get(tp);
        if (position != null) {
          starts.put(tp, position);
        }
      }
    }
    if (starts.isEmpty()) {
      return CompletableFuture.completedFuture(new Delivery(-1, List.of()));
    }
    return round(starts, epoch, 0)
        .thenCompose(
            now -> {
              long waitMs = deadlineMs - time.milliseconds();
              if (enough(now) || waitMs <= 0) {
                return CompletableFuture.completedFuture(now);
              }
              return round(starts, epoch, waitMs);
            })
        .thenApply(read -> deliver(read, epoch, maxBytes, deliverable));
  }

  private boolean enough(List<PartitionRecords> read) {
    long bytes = 0;
    for (PartitionRecords p : read) {
      bytes += p.batches().remaining();
    }
    return bytes > 0 && bytes >= settings.fetchMinBytes();
  }

  /**
   * One fetch of each partition from {@code starts}, each waiting up to {@code waitMs}; completes
   * with what was read once every partition answered, once {@code fetch.min.bytes} are in, or at
   * {@code waitMs}.
   */
  private CompletableFuture<List<PartitionRecords>> round(
      Map<TopicPartition, Long> starts, long epoch, long waitMs) {
    CompletableFuture<List<PartitionRecords>> answer = new CompletableFuture<>();
    // Without waiting every partition answers at once: take them all, as one Kafka fetch would.
    FetchRound round = new FetchRound(starts.size(), waitMs <= 0, answer);
    if (waitMs > 0) {
      Scheduler.Cancellable timer = scheduler.schedule(waitMs, round::finish);
      answer.whenComplete((v, e) -> timer.cancel());
    }
    starts.forEach(
        (tp, offset) ->
            fetchOnce(tp, offset, waitMs)
                .whenComplete(
                    (fetched, failure) -> {
                      if (failure != null) {
                        onFetchFailure(tp, offset, epoch, failure);
                        round.partitionDone(null);
                      } else {
                        round.partitionDone(
                            fetched.records().hasRemaining()
                                ? new PartitionRecords(
                                    tp, fetched.records(), offset, Long.MAX_VALUE)
                                : null);
                      }
                    }));
    return answer;
  }

  /**
   * A read of {@code tp} at {@code offset}, sharing the long poll a previous records call left
   * waiting there: at most one outstanding read per partition, however often the client polls and
   * however early each call returns. Without waiting ({@code waitMs = 0}) a partition with a long
   * poll outstanding has nothing now, or that poll would have answered.
   */
  private CompletableFuture<PartitionReader.Fetched> fetchOnce(
      TopicPartition tp, long offset, long waitMs) {
    synchronized (this) {
      PendingFetch pending = pendingFetches.get(tp);
      if (pending != null && pending.offset() == offset && !pending.future().isDone()) {
        return waitMs <= 0
            ? CompletableFuture.completedFuture(
                new PartitionReader.Fetched(java.nio.ByteBuffer.allocate(0), -1, -1))
            : pending.future();
      }
      if (waitMs <= 0) {
        return reader.fetch(tp, offset, MAX_PARTITION_FETCH_BYTES, 0);
      }
      CompletableFuture<PartitionReader.Fetched> future =
          reader.fetch(tp, offset, MAX_PARTITION_FETCH_BYTES, waitMs);
      PendingFetch started = new PendingFetch(offset, future);
      pendingFetches.put(tp, started);
      future.whenComplete(
          (v, e) -> {
            synchronized (this) {
              pendingFetches.remove(tp, started);
            }
          });
      return future;
    }
  }

  /** A long poll of one partition that is still waiting. */
  private record PendingFetch(long offset, CompletableFuture<PartitionReader.Fetched> future) {}

  /**
   * The partitions' answers of one fetch round, gathered until all answered or min bytes are in.
   */
  private final class FetchRound {
    private final CompletableFuture<List<PartitionRecords>> answer;
    private int outstanding;
    private final boolean waitForAll;
    private final List<PartitionRecords> gathered = new ArrayList<>();

    FetchRound(
        int partitions, boolean waitForAll, CompletableFuture<List<PartitionRecords>> answer) {
      this.outstanding = partitions;
      this.waitForAll = waitForAll;
      this.answer = answer;
    }

    synchronized void partitionDone(PartitionRecords records) {
      outstanding--;
      if (records != null) {
        gathered.add(records);
      }
      if (outstanding == 0 || (!waitForAll && enough(gathered))) {
        finish();
      }
    }

    synchronized void finish() {
      if (!answer.isDone()) {
        answer.complete(List.copyOf(gathered));
      }
    }
  }

  private void onFetchFailure(TopicPartition tp, long offset, long epoch, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof OffsetOutOfRangeException) {
      synchronized (this) {
        if (assignmentEpoch == epoch && Long.valueOf(offset).equals(positions.get(tp))) {
          logger.info(
              "Position {} of {} is out of range; resetting per auto.offset.reset={}",
              offset,
              tp,
              settings.autoOffsetReset());
          positions.remove(tp);
          pendingResets.put(tp, settings.autoOffsetReset());
        }
      }
    } else if (!(cause instanceof NotLeaderOrFollowerException
        || cause instanceof LeaderNotAvailableException)) {
      logger.debug("Read of {} at {} failed: {}", tp, offset, cause.toString());
    }
  }

  /**
   * Trims what was read to {@code maxBytes} of keys and values and advances the positions over it;
   * drops all of it if the assignment changed meanwhile or another read moved a position first.
   */
  private Delivery deliver(
      List<PartitionRecords> read, long epoch, long maxBytes, Deliverable deliverable) {
    String refused = null;
    synchronized (this) {
      int generation = mode == Mode.SUBSCRIBED ? membership.generationId() : -1;
      if (assignmentEpoch != epoch || closed) {
        return new Delivery(generation, List.of());
      }
      List<TopicPartition> assigned = assignedPartitions();
      List<PartitionRecords> out = new ArrayList<>();
      long budget = maxBytes;
      boolean any = false;
      for (PartitionRecords p : read) {
        TopicPartition tp = p.topicPartition();
        if (!assigned.contains(tp) || !Long.valueOf(p.fromOffset()).equals(positions.get(tp))) {
          continue;
        }
        long next = p.fromOffset();
        outer:
        for (RecordBatch batch : BatchIterator.lenient(p.batches().duplicate())) {
          if (batch.isControlBatch()) {
            next = Math.max(next, batch.nextOffset());
            continue;
          }
          for (Record record : batch.records()) {
            if (record.offset() < p.fromOffset()) {
              continue;
            }
            if (!deliverable.accepts(record)) {
              if (refused == null) {
                refused = tp + " at offset " + record.offset();
              }
              break outer; // this partition stops here; the others go on
            }
            long size =
                (record.key() == null ? 0 : record.key().remaining())
                    + (record.value() == null ? 0 : record.value().remaining());
            if (any && size > budget) {
              break outer;
            }
            budget -= size;
            any = true;
            next = record.offset() + 1;
          }
          next =
              Math.max(
                  next, batch.nextOffset()); // the batch is done: skip compacted-away offsets too
        }
        if (next > p.fromOffset()) {
          positions.put(tp, next);
          out.add(new PartitionRecords(tp, p.batches(), p.fromOffset(), next));
        }
        if (budget <= 0 && any) {
          break;
        }
      }
      if (out.isEmpty() && refused != null) {
        throw new UndeliverableRecordException(
            "The record of "
                + refused
                + " cannot be delivered in this instance's format "
                + settings.format()
                + " (it is not JSON); its position stays there. Read it with an instance in the"
                + " binary format, or skip it with POST .../positions");
      }
      return new Delivery(generation, out);
    }
  }

  private <T> CompletableFuture<Void> withDeadline(
      CompletableFuture<T> future, long deadlineMs, Runnable onTimeout) {
    CompletableFuture<Void> out = new CompletableFuture<>();
    long waitMs = Math.max(0, deadlineMs - time.milliseconds());
    Scheduler.Cancellable timer =
        scheduler.schedule(
            waitMs,
            () -> {
              onTimeout.run();
              out.complete(null);
            });
    future.whenComplete(
        (v, e) -> {
          timer.cancel();
          out.complete(null);
        });
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // offsets

  /**
   * Commits {@code offsets} (the next offset to read, per partition), or, if null, the position of
   * every assigned partition: everything returned so far.
   */
  public CompletableFuture<Void> commit(Map<TopicPartition, Long> offsets) {
    String memberId;
    int generation;
    Map<TopicPartition, Long> toCommit;
    synchronized (this) {
      touch();
      if (mode == Mode.SUBSCRIBED) {
        memberId = membership.memberId();
        generation = membership.generationId();
        if (memberId.isEmpty()) {
          throw new CommitFailedException(
              "The consumer is not a member of group "
                  + groupId
                  + " right now (it is rebalancing); poll for records, then commit");
        }
      } else {
        memberId = "";
        generation = -1;
      }
      if (offsets == null) {
        toCommit = new LinkedHashMap<>();
        for (TopicPartition tp : assignedPartitions()) {
          Long position = positions.get(tp);
          if (position != null) {
            toCommit.put(tp, position);
          }
        }
      } else {
        offsets.forEach(
            (tp, offset) -> {
              if (offset < 0) {
                throw new dev.tributary.common.errors.InvalidRequestException(
                    "A committed offset is >= 0, got " + offset + " for " + tp);
              }
            });
        toCommit = offsets;
      }
    }
    return sendCommit(memberId, generation, toCommit)
        .thenAccept(
            error -> {
              switch (error) {
                case NONE -> {}
                case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID ->
                    throw new CommitFailedException(
                        "Commit cannot be completed since the group has already rebalanced and may have assigned the partitions to another member ("
                            + error
                            + ")");
                default ->
                    throw new CoordinatorNotAvailableException(
                        "The coordinator of group "
                            + groupId
                            + " did not take the commit ("
                            + error
                            + "); retry");
              }
            });
  }

  private CompletableFuture<GroupError> sendCommit(
      String memberId, int generation, Map<TopicPartition, Long> offsets) {
    long nowMs = time.milliseconds();
    Map<TopicPartition, OffsetAndMetadata> request = new LinkedHashMap<>();
    offsets.forEach((tp, offset) -> request.put(tp, new OffsetAndMetadata(offset, -1, "", nowMs)));
    return coordinator
        .commitOffsets(groupId, memberId, generation, request)
        .whenComplete(
            (error, failure) -> {
              if (failure == null && error == GroupError.NONE) {
                synchronized (this) {
                  lastCommitted.putAll(offsets);
                }
              }
            });
  }

  /** The group's committed offsets for {@code partitions}. */
  public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(
      List<TopicPartition> partitions) {
    touch();
    return coordinator
        .fetchOffsets(groupId, partitions)
        .thenApply(
            result -> {
              CoordinatorNotAvailableException.requireAnswered(groupId, result.error());
              return result.offsets();
            });
  }

  /**
   * Commits positions that moved since the last commit, for {@code partitions}; async, failures
   * logged.
   */
  private CompletableFuture<Void> commitConsumed(
      String memberId, int generation, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> changed = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      Long position = positions.get(tp);
      if (position != null && !position.equals(lastCommitted.get(tp))) {
        changed.put(tp, position);
      }
    }
    if (changed.isEmpty() || (mode == Mode.SUBSCRIBED && memberId.isEmpty())) {
      return CompletableFuture.completedFuture(null);
    }
    return sendCommit(memberId, generation, changed)
        .handle(
            (error, failure) -> {
              if (failure != null || error != GroupError.NONE) {
                logger.info(
                    "Auto-commit for {} in group {} failed: {}",
                    instanceId,
                    groupId,
                    failure != null ? failure.toString() : error);
              }
              return null;
            });
  }

  // ---------------------------------------------------------------------------------------------
  // lifecycle

  /** Periodic work: the group protocol, and auto-commit when due. */
  public void tick() {
    GroupMembership current;
    synchronized (this) {
      if (closed) {
        return;
      }
      current = membership;
      long nowMs = time.milliseconds();
      if (settings.autoCommitEnable()
          && nowMs - lastAutoCommitMs >= settings.autoCommitIntervalMs()) {
        lastAutoCommitMs = nowMs;
        if (mode == Mode.SUBSCRIBED) {
          commitConsumed(current.memberId(), current.generationId(), current.ownedPartitions());
        } else if (mode == Mode.ASSIGNED) {
          commitConsumed("", -1, manualAssignment);
        }
      }
    }
    if (current != null) {
      current.tick();
    }
  }

  /** Commits (with auto-commit), leaves the group; the instance is unusable afterwards. */
  public CompletableFuture<Void> close() {
    GroupMembership leaving;
    CompletableFuture<Void> committed;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.completedFuture(null);
      }
      closed = true;
      leaving = membership;
      committed =
          !settings.autoCommitEnable()
              ? CompletableFuture.completedFuture(null)
              : mode == Mode.SUBSCRIBED
                  ? commitConsumed(
                      leaving.memberId(), leaving.generationId(), leaving.ownedPartitions())
                  : commitConsumed("", -1, manualAssignment);
      membership = null;
      mode = Mode.NONE;
    }
    if (leaving == null) {
      return committed;
    }
    return committed.thenCompose(ignored -> leaving.leaveNow("the consumer instance was deleted"));
  }

  private void clearPositions() {
    positions.clear();
    pendingResets.clear();
    assignmentEpoch++;
  }

  private Set<String> resolveTopics() {
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

  /** A one-line status for logs and the admin views. */
  public synchronized String statusLine() {
    return instanceId
        + " "
        + mode
        + (membership == null ? "" : " " + membership.statusLine())
        + " positions="
        + positions;
  }

  /** The membership, for admin views (null unless subscribed). */
  public synchronized GroupMembership membership() {
    return membership;
  }

  /** Connects the group protocol to this instance's positions. */
  private final class MembershipListener implements GroupMembership.Listener {
    @Override
    public Set<String> subscribedTopics() {
      synchronized (ConsumerInstance.this) {
        return resolveTopics();
      }
    }

    @Override
    public Map<String, Integer> partitionCounts(Set<String> wanted) {
      Map<String, Integer> all = topics.partitionCounts(true);
      Map<String, Integer> out = new HashMap<>();
      for (String t : wanted) {
        Integer count = all.get(t);
        if (count != null && !t.equals(GroupCoordinatorConfig.OFFSETS_TOPIC)) {
          out.put(t, count);
        }
      }
      return out;
    }

    @Override
    public CompletableFuture<Void> onRevoked(
        List<TopicPartition> partitions, String memberId, int generationId) {
      CompletableFuture<Void> commit;
      synchronized (ConsumerInstance.this) {
        commit =
            settings.autoCommitEnable()
                ? commitConsumed(memberId, generationId, partitions)
                : CompletableFuture.completedFuture(null);
        clearPositions();
      }
      return commit;
    }

    @Override
    public void onLost(List<TopicPartition> partitions) {
      synchronized (ConsumerInstance.this) {
        clearPositions();
      }
    }

    @Override
    public void onAssigned(List<TopicPartition> partitions) {
      synchronized (ConsumerInstance.this) {
        clearPositions();
      }
    }
  }
}
