package dev.tributary.replication;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.InvalidOffsetException;
import dev.tributary.log.KafkaStorageException;
import dev.tributary.log.record.CorruptRecordException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies every partition this broker follows on one leader (Kafka's ReplicaFetcherThread, without
 * the thread: {@link ReplicaFetcherManager} runs {@link #doWork} in a loop; tests call it step by
 * step).
 *
 * <p>Each partition is first <em>truncating</em>: the follower asks the leader where its latest
 * epoch ends (OffsetsForLeaderEpoch) and cuts its log to where both agree, as often as needed
 * (KIP-101, KIP-279); only then is it <em>fetching</em>, from its log end offset. A partition is
 * added again in the truncating state whenever the leader or its epoch changes, and on every
 * restart. Every append and truncation names the epoch it was fetched in, and {@link Partition}
 * ignores it if that epoch is no longer current, so a late response never touches the log.
 *
 * <p>Concurrency: the partition map is guarded by {@code this}; {@link #doWork} runs on one thread
 * at a time and does its I/O without the lock.
 */
public final class ReplicaFetcher {
  private static final Logger logger = LoggerFactory.getLogger(ReplicaFetcher.class);

  private final int localBrokerId;
  private final int leaderId;
  private final LongSupplier brokerEpoch;
  private final LeaderEndpoint endpoint;
  private final ReplicationConfig config;
  private final Time time;
  private final FollowerEvents events;
  private final ReplicationThrottles throttles;

  /** Bumped by {@link #abandonInFlight}: a fetch sent before the bump drops its answer. */
  private final java.util.concurrent.atomic.AtomicLong abandoned =
      new java.util.concurrent.atomic.AtomicLong();

  private final Map<TopicPartition, FetchState> states = new HashMap<>();

  /**
   * One partition's progress; replaced (never mutated) so a round can tell whether it changed
   * meanwhile. {@code delayUntilMs} is monotonic ({@link Time#monotonicMs}), so a backoff ends on
   * time whatever the wall clock does; 0 when not backing off.
   */
  private record FetchState(
      Partition partition, int leaderEpoch, boolean truncating, long delayUntilMs) {
    FetchState truncated() {
      return new FetchState(partition, leaderEpoch, false, 0);
    }

    FetchState delayed(long untilMs) {
      return new FetchState(partition, leaderEpoch, truncating, untilMs);
    }

    FetchState mustTruncate() {
      return new FetchState(partition, leaderEpoch, true, 0);
    }
  }

  /**
   * @param events told when a connection to the leader fails and when this replica truncates
   */
  public ReplicaFetcher(
      int localBrokerId,
      int leaderId,
      LongSupplier brokerEpoch,
      LeaderEndpoint endpoint,
      ReplicationConfig config,
      Time time,
      FollowerEvents events,
      ReplicationThrottles throttles) {
    this.localBrokerId = localBrokerId;
    this.leaderId = leaderId;
    this.brokerEpoch = brokerEpoch;
    this.endpoint = endpoint;
    this.config = config;
    this.time = time;
    this.events = events;
    this.throttles = throttles;
  }

  /** As the main constructor, with no replication throttles. */
  public ReplicaFetcher(
      int localBrokerId,
      int leaderId,
      LongSupplier brokerEpoch,
      LeaderEndpoint endpoint,
      ReplicationConfig config,
      Time time,
      FollowerEvents events) {
    this(
        localBrokerId,
        leaderId,
        brokerEpoch,
        endpoint,
        config,
        time,
        events,
        new ReplicationThrottles(localBrokerId));
  }

  public int leaderId() {
    return leaderId;
  }

  /**
   * Starts (or restarts) following {@code partition} in {@code leaderEpoch}: it reconciles its log
   * first.
   */
  public synchronized void addPartition(Partition partition, int leaderEpoch) {
    states.put(partition.topicPartition(), new FetchState(partition, leaderEpoch, true, 0));
  }

  public synchronized void removePartition(TopicPartition tp) {
    states.remove(tp);
  }

  public synchronized boolean isEmpty() {
    return states.isEmpty();
  }

  public synchronized List<TopicPartition> partitions() {
    return List.copyOf(states.keySet());
  }

  /**
   * True while {@code tp} is still reconciling its log with the leader's (for tests and status).
   */
  public synchronized boolean isTruncating(TopicPartition tp) {
    FetchState state = states.get(tp);
    return state != null && state.truncating;
  }

  /**
   * One round: reconcile the partitions that need it, then fetch once for the others (the leader
   * may hold the fetch up to {@code replica.fetch.wait.max.ms}). Returns how long to wait before
   * the next round: 0 to go on at once, the backoff after a failure, or a short pause when there is
   * nothing to fetch.
   */
  public long doWork() {
    long nowMs = time.monotonicMs();
    Map<TopicPartition, FetchState> snapshot;
    synchronized (this) {
      snapshot = new HashMap<>(states);
    }
    List<FetchState> truncating = new ArrayList<>();
    List<FetchState> fetching = new ArrayList<>();
    for (FetchState state : snapshot.values()) {
      if (state.delayUntilMs > nowMs) {
        continue;
      }
      (state.truncating ? truncating : fetching).add(state);
    }
    try {
      if (!truncating.isEmpty()) {
        truncate(truncating);
        return 0;
      }
      if (fetching.isEmpty()) {
        return snapshot.isEmpty()
            ? config.replicaFetchBackoffMs()
            : Math.min(config.replicaFetchBackoffMs(), 50);
      }
      return fetch(fetching);
    } catch (IOException e) {
      logger.debug(
          "Broker {} could not reach leader {}: {}", localBrokerId, leaderId, e.toString());
      events.leaderUnreachable(leaderId);
      return config.replicaFetchBackoffMs();
    } catch (KafkaStorageException e) {
      // This broker's log directory is offline (docs/adr/0015): no append or truncation can
      // succeed, so stop fetching its partitions (Kafka's markPartitionFailed).
      dropOfflinePartitions();
      logger.warn(
          "Broker {} stopped fetching from leader {}: {}", localBrokerId, leaderId, e.getMessage());
      return config.replicaFetchBackoffMs();
    }
  }

  private synchronized void dropOfflinePartitions() {
    states.values().removeIf(state -> state.partition.log().isOffline());
  }

  // -------------------------------------------------------------------------------------------
  // truncation

  private void truncate(List<FetchState> truncating) throws IOException {
    List<ReplicaFetch.EpochPartitionRequest> asks = new ArrayList<>();
    Map<TopicPartition, FetchState> asked = new HashMap<>();
    for (FetchState state : truncating) {
      Partition partition = state.partition;
      int latestEpoch = partition.log().latestEpoch();
      if (latestEpoch < 0) {
        // No epochs: an empty log (or one emptied to a new start), with nothing that could diverge.
        replace(state, state.truncated());
        continue;
      }
      asks.add(
          new ReplicaFetch.EpochPartitionRequest(
              partition.topicPartition(), state.leaderEpoch, latestEpoch));
      asked.put(partition.topicPartition(), state);
    }
    if (asks.isEmpty()) {
      return;
    }
    ReplicaFetch.EpochResponse response =
        endpoint.epochEndOffsets(
            leaderId, new ReplicaFetch.EpochRequest(localBrokerId, brokerEpoch.getAsLong(), asks));
    long nowMs = time.monotonicMs();
    if (response.error() != Errors.NONE) {
      asked
          .values()
          .forEach(state -> replace(state, state.delayed(nowMs + config.replicaFetchBackoffMs())));
      return;
    }
    for (ReplicaFetch.EpochPartitionResponse answer : response.partitions()) {
      FetchState state = asked.get(answer.topicPartition());
      if (state == null) {
        continue;
      }
      if (answer.error() != Errors.NONE) {
        replace(state, state.delayed(nowMs + delayFor(answer.error())));
        continue;
      }
      applyTruncation(state, answer.endOffset());
    }
  }

  /**
   * Cuts the log to where it agrees with the leader's (Kafka's getOffsetTruncationState). If the
   * leader's answer names an epoch this replica does not have, it cuts to where its own older epoch
   * ends and asks again.
   */
  private void applyTruncation(FetchState state, EpochEndOffset leader) {
    Partition partition = state.partition;
    long logEndOffset = partition.logEndOffset();
    long truncateTo;
    boolean done = true;
    if (leader.isUndefined()) {
      truncateTo = Math.min(partition.highWatermark(), logEndOffset);
    } else {
      EpochEndOffset own = partition.log().endOffsetForEpoch(leader.leaderEpoch());
      if (own.isUndefined()) {
        truncateTo = Math.min(leader.endOffset(), logEndOffset);
      } else if (own.leaderEpoch() != leader.leaderEpoch()) {
        truncateTo = Math.min(own.endOffset(), logEndOffset);
        done = false;
      } else {
        truncateTo = Math.min(Math.min(leader.endOffset(), own.endOffset()), logEndOffset);
      }
    }
    long highWatermark = partition.highWatermark();
    if (!partition.truncateAsFollower(state.leaderEpoch, truncateTo, false)) {
      return; // the epoch moved on; the metadata update re-added the partition
    }
    if (partition.logEndOffset() < logEndOffset) {
      events.truncated(
          new Truncation(
              partition.topicPartition(),
              localBrokerId,
              leaderId,
              state.leaderEpoch,
              partition.logEndOffset(),
              logEndOffset,
              highWatermark));
      logger.info(
          "Truncated {} from {} to {} to match leader {} in epoch {} (leader's epoch {} ends at {})",
          partition.topicPartition(),
          logEndOffset,
          partition.logEndOffset(),
          leaderId,
          state.leaderEpoch,
          leader.leaderEpoch(),
          leader.endOffset());
    }
    if (done || partition.log().latestEpoch() < 0) {
      replace(state, state.truncated());
    }
  }

  // -------------------------------------------------------------------------------------------
  // fetch

  /**
   * Answers to fetches sent before now are dropped when they arrive, so a broker whose fetching was
   * just paused (the dashboard's fault action) appends nothing afterwards, not even what was
   * already on its way. The leader counts a follower's progress by its next fetch offset, so a
   * dropped answer moves nothing there.
   */
  public void abandonInFlight() {
    abandoned.incrementAndGet();
  }

  private long fetch(List<FetchState> fetching) throws IOException {
    long sentAfter = abandoned.get();
    List<ReplicaFetch.PartitionRequest> asks = new ArrayList<>(fetching.size());
    Map<TopicPartition, FetchState> asked = new HashMap<>();
    long startMs = time.monotonicMs();
    for (FetchState state : fetching) {
      TopicPartition tp = state.partition.topicPartition();
      // A throttled replica outside the ISR sits out while this follower is over its
      // follower.replication.throttled.rate.
      if (throttles.followerHoldsBack(tp, state.partition.isr(), startMs)) {
        continue;
      }
      asks.add(
          new ReplicaFetch.PartitionRequest(
              tp,
              state.leaderEpoch,
              state.partition.logEndOffset(),
              config.replicaFetchPartitionMaxBytes()));
      asked.put(tp, state);
    }
    if (asks.isEmpty()) {
      return Math.min(config.replicaFetchBackoffMs(), 100); // every one held back: let time pass
    }
    ReplicaFetch.Response response =
        endpoint.fetch(
            leaderId,
            new ReplicaFetch.Request(
                localBrokerId,
                brokerEpoch.getAsLong(),
                config.replicaFetchWaitMaxMs(),
                config.replicaFetchMaxBytes(),
                asks));
    if (abandoned.get() != sentAfter) {
      return 0; // paused meanwhile: the manager's loop waits out the pause
    }
    if (response.error() != Errors.NONE) {
      logger.info(
          "Leader {} refused fetches from broker {}: {}",
          leaderId,
          localBrokerId,
          response.error());
      return config.replicaFetchBackoffMs();
    }
    long nowMs = time.monotonicMs();
    for (ReplicaFetch.PartitionResponse answer : response.partitions()) {
      FetchState state = asked.get(answer.topicPartition());
      if (state != null) {
        if (answer.records() != null) {
          throttles.followerFetched(
              answer.topicPartition(), state.partition.isr(), answer.records().remaining(), nowMs);
        }
        onPartitionResponse(state, answer, nowMs);
      }
    }
    return 0;
  }

  private void onPartitionResponse(
      FetchState state, ReplicaFetch.PartitionResponse answer, long nowMs) {
    Partition partition = state.partition;
    switch (answer.error()) {
      case NONE -> {
        try {
          partition.appendAsFollower(
              state.leaderEpoch, answer.records(), answer.highWatermark(), answer.logStartOffset());
        } catch (InvalidOffsetException | CorruptRecordException e) {
          logger.warn(
              "Could not append what leader {} sent for {}; reconciling again: {}",
              leaderId,
              partition.topicPartition(),
              e.getMessage());
          replace(state, state.mustTruncate());
        }
      }
      case OFFSET_OUT_OF_RANGE -> {
        long fetchOffset = partition.logEndOffset();
        if (answer.logStartOffset() >= 0 && fetchOffset < answer.logStartOffset()) {
          // The leader deleted what this replica would fetch next: start over at the leader's log
          // start.
          partition.truncateAsFollower(state.leaderEpoch, answer.logStartOffset(), true);
          logger.info(
              "Restarted {} at leader {}'s log start offset {}",
              partition.topicPartition(),
              leaderId,
              answer.logStartOffset());
        } else {
          replace(state, state.mustTruncate()); // ahead of the leader: reconcile by epochs
        }
      }
      default -> replace(state, state.delayed(nowMs + delayFor(answer.error())));
    }
  }

  /** Errors that new metadata will resolve wait longer than those the leader resolves by itself. */
  private long delayFor(Errors error) {
    return error == Errors.UNKNOWN_LEADER_EPOCH
        ? Math.min(50, config.replicaFetchBackoffMs())
        : config.replicaFetchBackoffMs();
  }

  /**
   * Updates a partition's state unless it was replaced meanwhile (re-added in a new epoch, or
   * removed).
   */
  private synchronized void replace(FetchState expected, FetchState next) {
    TopicPartition tp = expected.partition.topicPartition();
    if (states.get(tp) == expected) {
      states.put(tp, next);
    }
  }
}
