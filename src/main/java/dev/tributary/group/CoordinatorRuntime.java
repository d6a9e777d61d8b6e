package dev.tributary.group;

import dev.tributary.log.record.SimpleRecord;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What every part of the group coordinator shares (after Kafka's {@code CoordinatorRuntime}): the
 * table of shards this broker leads, with their leader epochs; the coordinator lock; the write path
 * to {@code __consumer_offsets}; the executor that answers requests; and the recent group events.
 * It decides nothing about groups: {@link CoordinatorLoader} fills and empties the shard table,
 * {@link GroupMetadataManager} and {@link GroupRebalancer} run the membership protocol, {@link
 * OffsetMetadataManager} and {@link OffsetExpiration} the offsets.
 *
 * <p>Concurrency notes:
 *
 * <ol>
 *   <li>One lock, this object's monitor (the <em>coordinator lock</em>), guards the shard table,
 *       every shard, group and member, and the event history. Every part of the coordinator takes
 *       it as {@code synchronized (runtime)}; none has a lock of its own, so there is no order
 *       among them to get wrong. Methods here that read or change shared state expect the caller to
 *       hold it (it is reentrant) unless they say otherwise.
 *   <li>Lock order: coordinator lock → the scheduler's lock (timers are scheduled and cancelled
 *       under the coordinator lock) → the {@link CoordinatorLog}'s locks ({@link #appendAndThen} is
 *       called under the coordinator lock). The append's completion takes the coordinator lock, so
 *       a log must not complete an append while holding a lock that its {@code append} takes.
 *   <li>Futures given to callers complete on {@code completions} ({@link #complete}), never under
 *       the lock, so a caller's continuation cannot re-enter or stall the coordinator.
 *   <li>Reading a partition back (loading) happens outside the lock; the loader re-checks under it
 *       that its shard is still current.
 * </ol>
 */
final class CoordinatorRuntime {
  /** How many group events {@link #recentEvents} keeps. */
  static final int MAX_EVENTS = 200;

  private final GroupCoordinatorConfig config;
  private final CoordinatorLog log;
  private final Executor completions;

  /**
   * The shard table, by partition. Invariant: a shard is here iff this broker leads its partition
   * in the shard's leader epoch (and the coordinator is not shut down).
   */
  private final Map<Integer, CoordinatorShard> shards = new TreeMap<>();

  /** Invariant: at most {@link #MAX_EVENTS}, oldest first. */
  private final Deque<GroupEvent> events = new ArrayDeque<>();

  /** Set once by {@link #markClosed}: no shard is added after it and the retention check stops. */
  private boolean closed;

  CoordinatorRuntime(GroupCoordinatorConfig config, CoordinatorLog log, Executor completions) {
    this.config = config;
    this.log = log;
    this.completions = completions;
  }

  // ---------------------------------------------------------------------------------------------
  // the shard table (callers hold the lock)

  CoordinatorShard shard(int partition) {
    return shards.get(partition);
  }

  /** The shard that holds {@code groupId}, or null if this broker does not lead its partition. */
  CoordinatorShard shardFor(String groupId) {
    return shards.get(config.partitionFor(groupId));
  }

  /** Whether {@code shard} is still the one this broker leads its partition with. */
  boolean isCurrent(CoordinatorShard shard) {
    return shards.get(shard.partition) == shard;
  }

  /** The shards, in partition order; a live view, to be read under the lock. */
  Collection<CoordinatorShard> shards() {
    return shards.values();
  }

  /** Puts {@code shard} in the table; the caller has unloaded the one it replaces. */
  void install(CoordinatorShard shard) {
    shards.put(shard.partition, shard);
  }

  /** Takes the partition's shard out of the table; the caller unloads it. */
  CoordinatorShard remove(int partition) {
    return shards.remove(partition);
  }

  void clear() {
    shards.clear();
  }

  void markClosed() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  /** NONE if {@code shard} answers requests; else why not (not led here, or still loading). */
  static GroupError availability(CoordinatorShard shard) {
    if (shard == null) {
      return GroupError.NOT_COORDINATOR;
    }
    return shard.isLoading() ? GroupError.COORDINATOR_LOAD_IN_PROGRESS : GroupError.NONE;
  }

  // ---------------------------------------------------------------------------------------------
  // the write path

  /**
   * Appends {@code records} to the shard's partition (acks=all). Once they are committed, runs
   * {@code onCommitted} under the lock if the shard is still current and answers NONE; otherwise
   * answers the error: the log's, or NOT_COORDINATOR if leadership moved meanwhile. In-memory state
   * changes only in {@code onCommitted}, so nothing is visible that a new leader would not replay.
   */
  CompletableFuture<GroupError> appendAndThen(
      CoordinatorShard shard, List<SimpleRecord> records, Runnable onCommitted) {
    CompletableFuture<GroupError> answer = new CompletableFuture<>();
    CompletableFuture<Void> appended;
    try {
      appended = log.append(shard.partition, records);
    } catch (RuntimeException e) {
      appended = CompletableFuture.failedFuture(e);
    }
    appended.whenComplete(
        (ok, failure) -> {
          GroupError error;
          synchronized (this) {
            if (failure != null) {
              error = log.errorFor(failure);
            } else if (!isCurrent(shard)) {
              error = GroupError.NOT_COORDINATOR;
            } else {
              onCommitted.run();
              error = GroupError.NONE;
            }
          }
          complete(answer, error);
        });
    return answer;
  }

  // ---------------------------------------------------------------------------------------------
  // answers and events

  /** Completes {@code future} with {@code value} on the completions executor, never inline. */
  <T> void complete(CompletableFuture<T> future, T value) {
    completions.execute(() -> future.complete(value));
  }

  /** A future answered {@code value} through {@link #complete}. */
  <T> CompletableFuture<T> done(T value) {
    CompletableFuture<T> future = new CompletableFuture<>();
    complete(future, value);
    return future;
  }

  /** Adds to the event history, forgetting the oldest beyond {@link #MAX_EVENTS}. */
  void record(GroupEvent event) {
    events.addLast(event);
    while (events.size() > MAX_EVENTS) {
      events.removeFirst();
    }
  }

  /** The most recent group events, oldest first. Takes the lock. */
  synchronized List<GroupEvent> recentEvents() {
    return List.copyOf(events);
  }
}
