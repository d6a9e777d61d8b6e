package dev.tributary.replication;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotEnoughReplicasException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogAppendInfo;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.TimestampAndOffset;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition on this broker: its log, and its replication state. While this broker leads it: the
 * leader epoch, the ISR and the followers' progress ({@link IsrState}), and the high watermark
 * (HW). While it follows: the leader it copies from and the HW the leader last reported. See
 * docs/adr/0009-isr-and-high-watermark.md. What waits on it is in {@link PartitionWaiters}.
 *
 * <p>Invariants (the HW is written only by {@link #setHighWatermark}; the ISR only from committed
 * metadata):
 *
 * <pre>
 *   logStartOffset <= highWatermark <= logEndOffset
 *   highWatermark never decreases while this broker leads the same leader epoch (a follower's may, on truncation)
 *   leader: highWatermark <= the log end offset of every member of the maximal ISR (the ISR, plus any replica a
 *           pending ISR change adds: KIP-497), so a record below it is on every replica that could become leader
 *   leader ∈ isr ⊆ replicas; at most one ISR change in flight
 * </pre>
 *
 * <p>Concurrency: {@code lock} guards the role, the ISR state, the high watermark's changes, the
 * waiters and follower appends and truncations; lock order partition → log. Consumer reads take no
 * lock: they read the volatile high watermark, then the log up to it. Futures are completed, and
 * ISR changes sent, only after the lock is dropped.
 */
public final class Partition {
  private static final Logger logger = LoggerFactory.getLogger(Partition.class);

  private final TopicPartition topicPartition;

  /** The topic's id: a topic re-created under the same name gets another. */
  private final String topicId;

  private final PartitionLog log;
  private final int localBrokerId;
  private final AlterPartitionSender alterPartitionSender;
  private final Object lock = new Object();

  /** Guarded by {@code lock}. */
  private final PartitionWaiters waiters = new PartitionWaiters();

  /** Record traces armed here while leading; told of appends, follower fetches and HW moves. */
  private final PartitionTraces traces = new PartitionTraces();

  /** Bytes appended by produce while leading (the balancer's bytes-in). */
  private final LeaderBytesIn bytesIn = new LeaderBytesIn();

  /** Replicas, committed ISR, followers, pending change. Guarded by {@code lock}. */
  private final IsrState isrState;

  private volatile int leaderEpoch = -1;

  /** The partition epoch this state came from; an ISR change is proposed against it. */
  private volatile int partitionEpoch = -1;

  /** The leader named by the metadata (this broker, another, or -1 while offline). */
  private volatile int leaderId = -1;

  /** Copies of the ISR state's lists, for lock-free readers. */
  private volatile List<Integer> replicas = List.of();

  private volatile List<Integer> isr = List.of();

  private volatile boolean leader;

  /** Offset below which records are committed and visible to consumers; see class invariants. */
  private volatile long highWatermark;

  /** Leader only: the log end offset when this epoch began; a joining follower must reach it. */
  private long leaderEpochStartOffset;

  /**
   * @param initialHighWatermark where the HW starts: the last one checkpointed for this log
   *     (Kafka's replication-offset-checkpoint), clamped into [logStartOffset, logEndOffset]
   */
  public Partition(
      TopicPartition topicPartition,
      String topicId,
      PartitionLog log,
      int localBrokerId,
      AlterPartitionSender alterPartitionSender,
      long initialHighWatermark) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.log = log;
    this.localBrokerId = localBrokerId;
    this.alterPartitionSender = alterPartitionSender;
    this.isrState = new IsrState(topicPartition, topicId, localBrokerId);
    synchronized (lock) {
      setHighWatermark(
          Math.max(log.logStartOffset(), Math.min(initialHighWatermark, log.logEndOffset())));
    }
  }

  // -------------------------------------------------------------------------------------------
  // transitions

  /**
   * Applies metadata that names this broker leader in {@code leaderEpoch}. A new epoch starts
   * afresh: the epoch is recorded at the log end offset and every follower's log end offset becomes
   * unknown. The same epoch again carries a committed ISR change.
   *
   * @param nowMs the monotonic clock ({@link Time#monotonicMs}): ISR members count as caught up now
   * @return true if this started a new leader epoch here
   */
  public boolean becomeLeader(
      int leaderEpoch, int partitionEpoch, List<Integer> replicas, List<Integer> isr, long nowMs) {
    if (!isr.contains(localBrokerId) || !replicas.containsAll(isr)) {
      throw new IllegalArgumentException(
          "%s: leader %d must be in isr %s ⊆ replicas %s"
              .formatted(topicPartition, localBrokerId, isr, replicas));
    }
    List<Runnable> completions;
    boolean newEpoch;
    synchronized (lock) {
      newEpoch = !leader || leaderEpoch != this.leaderEpoch;
      if (newEpoch) {
        log.assignEpochStartOffset(leaderEpoch);
        leaderEpochStartOffset = log.logEndOffset();
        this.leaderEpoch = leaderEpoch;
        this.leaderId = localBrokerId;
        this.leader = true;
        bytesIn.start();
      }
      isrState.onLeaderMetadata(replicas, isr, partitionEpoch, newEpoch, nowMs);
      publishIsr(partitionEpoch);
      completions = maybeIncrementHighWatermark();
    }
    completions.forEach(Runnable::run);
    return newEpoch;
  }

  /**
   * Applies metadata that names another leader ({@code leaderId}, or -1 while offline). Leadership
   * here ends: every waiting produce and long poll fails with NOT_LEADER_OR_FOLLOWER.
   *
   * @return true if the leader or its epoch changed, so the follower must reconcile its log with
   *     the new leader's before fetching
   */
  public boolean becomeFollower(
      int leaderId,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> replicas,
      List<Integer> isr) {
    Runnable failed = () -> {};
    boolean changed;
    synchronized (lock) {
      changed = leader || leaderId != this.leaderId || leaderEpoch != this.leaderEpoch;
      if (leader) {
        bytesIn.stop();
        failed =
            waiters.failAll(
                "Broker %d no longer leads %s; broker %d does in leader epoch %d"
                    .formatted(localBrokerId, topicPartition, leaderId, leaderEpoch));
      }
      leader = false;
      this.leaderId = leaderId;
      this.leaderEpoch = leaderEpoch;
      isrState.onFollowerMetadata(replicas, isr);
      publishIsr(partitionEpoch);
    }
    failed.run();
    return changed;
  }

  /** Deleted, or the broker stops: every waiter fails with NOT_LEADER_OR_FOLLOWER. */
  public void resign() {
    Runnable failed;
    synchronized (lock) {
      leader = false;
      bytesIn.stop();
      isrState.stopLeading();
      failed = waiters.failAll("Broker " + localBrokerId + " no longer leads " + topicPartition);
    }
    failed.run();
  }

  /** Copies the ISR state's lists and the partition epoch for readers that take no lock. */
  private void publishIsr(int partitionEpoch) {
    this.partitionEpoch = partitionEpoch;
    this.replicas = isrState.replicas();
    this.isr = isrState.isr();
  }

  // -------------------------------------------------------------------------------------------
  // leader: produce

  /**
   * Appends validated batches as leader, assigning offsets and stamping the leader epoch. The
   * returned future completes when {@code acks} is satisfied: at once for {@link Acks#NONE} and
   * {@link Acks#LEADER}, once the high watermark passes the last appended offset for {@link
   * Acks#ALL}. An {@code acks=all} produce is refused before anything is appended while the ISR is
   * smaller than {@code min.insync.replicas}.
   *
   * @throws NotEnoughReplicasException for {@code acks=all} with too small an ISR (nothing
   *     appended)
   */
  public AppendResult appendRecordsAsLeader(ByteBuffer batches, Acks acks) {
    LogAppendInfo info;
    List<Runnable> completions;
    List<Runnable> followerFetches;
    CompletableFuture<Void> replicated;
    synchronized (lock) {
      requireLeader();
      int minIsr = log.config().minInSyncReplicas();
      if (acks == Acks.ALL && isr.size() < minIsr) {
        throw new NotEnoughReplicasException(
            "The in-sync replicas of %s are %s, fewer than min.insync.replicas=%d; nothing was appended"
                .formatted(topicPartition, isr, minIsr));
      }
      info = log.appendAsLeader(batches, leaderEpoch);
      traces.onAppend(info.lastOffset(), log.logEndOffset(), highWatermark);
      completions = maybeIncrementHighWatermark();
      followerFetches = waiters.onLogEndOffset(log.logEndOffset());
      replicated =
          acks == Acks.ALL && highWatermark <= info.lastOffset()
              ? waiters.awaitReplicated(info.lastOffset())
              : CompletableFuture.completedFuture(null);
    }
    completions.forEach(Runnable::run);
    followerFetches.forEach(Runnable::run);
    return new AppendResult(info, replicated);
  }

  /** The result of an append: what the log assigned, and a future for the requested acks. */
  public record AppendResult(LogAppendInfo info, CompletableFuture<Void> acked) {}

  /** This partition's bytes-in while this broker leads it; produce records into it. */
  public LeaderBytesIn bytesIn() {
    return bytesIn;
  }

  // -------------------------------------------------------------------------------------------
  // leader: fetch and offset queries

  /**
   * This partition's part of a fetch, as its leader (Kafka's Partition.fetchRecords): checks the
   * fetcher's leader epoch, and for a follower records its fetch offset as its log end offset
   * (which may add it to the ISR and move the high watermark); then reads whole batches from {@code
   * fetch.fetchOffset()}, up to the log end for a follower and below the high watermark for a
   * consumer. When the fetcher's last fetched epoch diverges from this log, answers the diverging
   * epoch and no records, and leaves the follower's state alone (KIP-595).
   *
   * @param maxBytes at most this many bytes (but at least one whole batch if {@code minOneBatch})
   * @param followerEligible whether a follower's broker may join the ISR now (unfenced in this
   *     broker's metadata; KIP-841): a fenced one keeps fetching, but is not proposed
   * @param nowMs the monotonic clock: when a follower fetched, for its ISR lag
   * @throws dev.tributary.common.errors.ApiException the refusals of {@link FetchValidation}, or
   *     NOT_LEADER_OR_FOLLOWER when this broker does not lead or the follower holds no replica
   */
  public FetchPartitionData fetchRecords(
      FetchParams params,
      PartitionFetch fetch,
      int maxBytes,
      boolean minOneBatch,
      boolean followerEligible,
      long nowMs) {
    if (!params.isFromFollower()) {
      return LeaderReads.fetchForConsumer(this, fetch, maxBytes, minOneBatch, params.fileSlices());
    }
    int replicaId = params.replicaId();
    long fetchOffset = fetch.fetchOffset();
    List<Runnable> completions;
    AlterPartitionRequest expansion;
    long hw;
    int epoch;
    synchronized (lock) {
      requireLeader();
      FetchValidation.validateLeaderEpoch(
          topicPartition, fetch.currentLeaderEpoch(), leaderEpoch, "replica " + replicaId);
      ReplicaState follower = isrState.requireFollower(replicaId);
      long logEndOffset = log.logEndOffset();
      FetchValidation.requireInLog(log, fetchOffset, "replica " + replicaId);
      EpochEndOffset diverging = FetchValidation.divergingEpoch(log, fetch);
      if (diverging != null) {
        return FetchPartitionData.diverged(
            topicPartition, highWatermark, log, diverging, localBrokerId, leaderEpoch);
      }
      follower.onFetch(fetchOffset, logEndOffset, params.replicaEpoch(), nowMs);
      traces.onFollowerFetch(replicaId, fetchOffset);
      expansion =
          followerEligible
              ? isrState.maybeExpand(
                  follower, highWatermark, leaderEpochStartOffset, leaderEpoch, partitionEpoch)
              : null;
      completions = maybeIncrementHighWatermark();
      hw = highWatermark;
      epoch = leaderEpoch;
    }
    completions.forEach(Runnable::run);
    if (expansion != null) {
      send(expansion);
    }
    // Followers copy what consumers may not see yet: up to the log end, not the high watermark.
    LogReadInfo read = log.read(fetchOffset, maxBytes, Long.MAX_VALUE, minOneBatch);
    return FetchPartitionData.read(topicPartition, hw, read, localBrokerId, epoch);
  }

  /** Completes once the high watermark passes {@code offset} (a consumer there finds data). */
  public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
    synchronized (lock) {
      if (highWatermark > offset) {
        return CompletableFuture.completedFuture(null);
      }
      return waiters.awaitHighWatermarkAbove(offset);
    }
  }

  /** Completes once the log end offset passes {@code offset} (a follower there finds data). */
  public CompletableFuture<Void> awaitLogEndOffsetAbove(long offset) {
    synchronized (lock) {
      if (!leader || log.logEndOffset() > offset) {
        return CompletableFuture.completedFuture(null);
      }
      return waiters.awaitLogEndOffsetAbove(offset);
    }
  }

  /** Answers every waiting long poll now with what it has: the broker is shutting down. */
  public void releaseFetchWaiters() {
    Runnable released;
    synchronized (lock) {
      released = waiters.releasePolls();
    }
    released.run();
  }

  /** OffsetsForLeaderEpoch: where {@code requestedEpoch} ends here (current epoch -1: no check). */
  public EpochEndOffset endOffsetForEpoch(int currentLeaderEpoch, int requestedEpoch) {
    synchronized (lock) {
      requireLeader();
      FetchValidation.validateLeaderEpoch(
          topicPartition, currentLeaderEpoch, leaderEpoch, "an epoch query");
      return log.endOffsetForEpoch(requestedEpoch);
    }
  }

  /** ListOffsets as this partition's leader; see {@link LeaderReads#fetchOffsetForTimestamp}. */
  public Optional<TimestampAndOffset> fetchOffsetForTimestamp(
      long timestampMs, int currentLeaderEpoch) {
    return LeaderReads.fetchOffsetForTimestamp(this, timestampMs, currentLeaderEpoch);
  }

  // -------------------------------------------------------------------------------------------
  // leader: the ISR and the high watermark

  /** The periodic ISR check ({@link IsrState#maybeShrink}); {@code nowMs} is monotonic. */
  public void maybeShrinkIsr(long nowMs, long replicaLagTimeMaxMs) {
    AlterPartitionRequest request;
    synchronized (lock) {
      request =
          leader
              ? isrState.maybeShrink(
                  nowMs, replicaLagTimeMaxMs, log.logEndOffset(), leaderEpoch, partitionEpoch)
              : null;
    }
    if (request != null) {
      send(request);
    }
  }

  private void send(AlterPartitionRequest request) {
    alterPartitionSender
        .send(request)
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                synchronized (lock) {
                  isrState.onSendFailed(request, error);
                }
              }
            });
  }

  /**
   * HW = the smallest log end offset over the maximal ISR, the leader's own included; unknown
   * followers hold it back. Returns what to complete once the lock is dropped.
   */
  private List<Runnable> maybeIncrementHighWatermark() {
    if (!leader) {
      return List.of();
    }
    long candidate = isrState.minLogEndOffsetOfMaximalIsr(log.logEndOffset());
    if (candidate <= highWatermark) {
      return List.of();
    }
    setHighWatermark(candidate);
    traces.onHighWatermark(candidate);
    return waiters.onHighWatermark(
        candidate, topicPartition, isr, log.config().minInSyncReplicas());
  }

  /**
   * The one place the high watermark changes. A leader's never moves back in its epoch; a
   * follower's follows its leader and truncation. Caller holds {@code lock}.
   */
  private void setHighWatermark(long newHighWatermark) {
    if (leader && newHighWatermark < highWatermark) {
      throw new IllegalStateException(
          "%s: high watermark would move back from %d to %d in leader epoch %d"
              .formatted(topicPartition, highWatermark, newHighWatermark, leaderEpoch));
    }
    if (newHighWatermark < log.logStartOffset() || newHighWatermark > log.logEndOffset()) {
      throw new IllegalStateException(
          "%s: high watermark %d outside [%d, %d]"
              .formatted(
                  topicPartition, newHighWatermark, log.logStartOffset(), log.logEndOffset()));
    }
    highWatermark = newHighWatermark;
    log.setRetentionBoundOffset(newHighWatermark);
  }

  // -------------------------------------------------------------------------------------------
  // follower

  /**
   * Appends batches fetched from the leader in {@code fetchedInEpoch} (keeping their offsets and
   * epochs) and takes the leader's high watermark and log start offset (bounded by this log); see
   * {@link FollowerChanges#append}. False, and nothing done, if this broker's view moved on since
   * the fetch was sent (it leads now, or follows another epoch): a stale response must not touch
   * the log.
   */
  public boolean appendAsFollower(
      int fetchedInEpoch, ByteBuffer records, long leaderHighWatermark, long leaderLogStartOffset) {
    return changeAsFollower(
        fetchedInEpoch,
        leaderHighWatermark,
        () -> FollowerChanges.append(log, records, leaderLogStartOffset));
  }

  /**
   * Truncates this follower's log to {@code offset}, where it agrees with the leader ({@code
   * startAt}: empties it and restarts it there); the high watermark comes down with it. False, and
   * nothing done, if the epoch moved on.
   */
  public boolean truncateAsFollower(int fetchedInEpoch, long offset, boolean startAt) {
    return changeAsFollower(
        fetchedInEpoch, highWatermark, () -> FollowerChanges.truncate(log, offset, startAt));
  }

  /** If still following in {@code fetchedInEpoch}: change the log, then bound the HW by it. */
  private boolean changeAsFollower(int fetchedInEpoch, long highWatermarkWanted, Runnable change) {
    synchronized (lock) {
      if (leader || leaderEpoch != fetchedInEpoch) {
        return false;
      }
      change.run();
      long next = Math.max(log.logStartOffset(), Math.min(highWatermarkWanted, log.logEndOffset()));
      if (next != highWatermark) {
        setHighWatermark(next);
      }
      return true;
    }
  }

  /** Raises the high watermark to the log start offset after the start moved past it. */
  public void onLogStartOffsetChange() {
    synchronized (lock) {
      if (highWatermark < log.logStartOffset()) {
        setHighWatermark(log.logStartOffset());
      }
    }
  }

  void requireLeader() {
    if (!leader) {
      String elsewhere = leaderId >= 0 ? "; broker " + leaderId + " does" : "";
      throw new NotLeaderOrFollowerException(
          "Broker " + localBrokerId + " does not lead " + topicPartition + elsewhere);
    }
  }

  // -------------------------------------------------------------------------------------------
  // views

  int localBrokerId() {
    return localBrokerId;
  }

  public String topicId() {
    return topicId;
  }

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public PartitionLog log() {
    return log;
  }

  /** Where a record trace arms its listener (only events of this broker's leadership reach it). */
  public PartitionTraces traces() {
    return traces;
  }

  public long highWatermark() {
    return highWatermark;
  }

  public long logStartOffset() {
    return log.logStartOffset();
  }

  public long logEndOffset() {
    return log.logEndOffset();
  }

  public int leaderEpoch() {
    return leaderEpoch;
  }

  public int partitionEpoch() {
    return partitionEpoch;
  }

  /** The leader the applied metadata names: this broker, another, or -1 while offline. */
  public int leaderId() {
    return leaderId;
  }

  public boolean isLeader() {
    return leader;
  }

  public List<Integer> replicas() {
    return replicas;
  }

  public List<Integer> isr() {
    return isr;
  }

  /**
   * Every replica as this leader sees it, in replica order; empty when this broker does not lead
   * (only the leader knows the followers' progress). Times are {@code time}'s wall-clock ms.
   */
  public List<ReplicaStatus> replicaStatuses(Time time) {
    return readUnderLock(() -> PartitionStatuses.replicaStatuses(this, isrState, time));
  }

  /**
   * This replica at one moment, its fields read together under the lock; times are {@code time}'s
   * wall-clock ms.
   */
  public PartitionStatus status(Time time) {
    return readUnderLock(() -> PartitionStatuses.status(this, isrState, time));
  }

  /**
   * The one-line status shared by logs, tests and the dashboard: {@code b2 leader e7 orders-3
   * hw=120 leo=127 isr=[1,2] osr=[3] lag{3:41}} (a follower's line names its leader instead of the
   * lags).
   */
  public String statusLine() {
    return readUnderLock(() -> PartitionStatuses.statusLine(this, isrState));
  }

  int pendingWaiters() {
    return readUnderLock(waiters::size);
  }

  /** Runs a read-only view under the lock, so the fields it reads agree. */
  private <T> T readUnderLock(java.util.function.Supplier<T> view) {
    synchronized (lock) {
      return view.get();
    }
  }

  @Override
  public String toString() {
    return statusLine();
  }
}
