package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.LogAppendInfo;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.PartitionLog;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One partition on this broker: its log, and, while this broker leads it, the leader's view of replication
 * (leader epoch, ISR, high watermark). Until the replication issue lands the ISR is the leader alone, so the high
 * watermark follows the log end offset after each append.
 *
 * <p>Invariants (enforced in {@link #setHighWatermark}, the only writer of {@code highWatermark}):
 *
 * <pre>
 *   logStartOffset <= highWatermark <= logEndOffset
 *   highWatermark never decreases while this broker leads the same leader epoch
 *   leader ∈ isr ⊆ replicas
 * </pre>
 *
 * <p>Concurrency: {@code lock} guards leader state, the high watermark's changes and the waiters; lock order
 * partition → log. Reads take no lock: they read the volatile high watermark, then the log up to it. Futures
 * are completed only after the lock is dropped.
 */
public final class Partition {
  private final TopicPartition topicPartition;
  /** The id of the topic this partition belongs to: a topic re-created under the same name gets another. */
  private final String topicId;
  private final PartitionLog log;
  private final int localBrokerId;
  private final Object lock = new Object();
  /** Long-poll fetches waiting for data; released normally (empty read) on shutdown. */
  private final HighWatermarkWaiters fetchWaiters = new HighWatermarkWaiters();
  /** {@code acks=all} produces waiting for replication; failed, never released, when leadership ends. */
  private final HighWatermarkWaiters produceWaiters = new HighWatermarkWaiters();

  private volatile int leaderEpoch;
  private volatile List<Integer> replicas;
  private volatile List<Integer> isr;
  private volatile boolean leader;
  /** Offset below which records are committed and visible to consumers; see class invariants. */
  private volatile long highWatermark;

  public Partition(TopicPartition topicPartition, String topicId, PartitionLog log, int localBrokerId) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.log = log;
    this.localBrokerId = localBrokerId;
    this.replicas = List.of();
    this.isr = List.of();
    this.highWatermark = log.logStartOffset();
  }

  /**
   * Takes leadership for {@code leaderEpoch}. With the leader as the only in-sync replica, everything in its log
   * is committed, so the high watermark starts at the log end offset.
   */
  public void becomeLeader(int leaderEpoch, List<Integer> replicas, List<Integer> isr) {
    if (!isr.contains(localBrokerId) || !replicas.containsAll(isr)) {
      throw new IllegalArgumentException(
          topicPartition + ": leader " + localBrokerId + " must be in isr " + isr + " ⊆ replicas " + replicas);
    }
    List<CompletableFuture<Void>> ready;
    synchronized (lock) {
      this.leaderEpoch = leaderEpoch;
      this.replicas = List.copyOf(replicas);
      this.isr = List.copyOf(isr);
      this.leader = true;
      ready = maybeIncrementHighWatermark();
    }
    ready.forEach(f -> f.complete(null));
  }

  /**
   * Appends validated batches as leader, assigning offsets and stamping the leader epoch. The returned future
   * completes when {@code acks} is satisfied: at once for {@link Acks#NONE} and {@link Acks#LEADER}, once the
   * high watermark passes the last appended offset for {@link Acks#ALL}.
   */
  public AppendResult appendRecordsAsLeader(ByteBuffer batches, Acks acks) {
    LogAppendInfo info;
    List<CompletableFuture<Void>> ready;
    CompletableFuture<Void> replicated;
    synchronized (lock) {
      requireLeader();
      info = log.appendAsLeader(batches, leaderEpoch);
      ready = maybeIncrementHighWatermark();
      replicated =
          acks == Acks.ALL && highWatermark <= info.lastOffset()
              ? produceWaiters.add(info.lastOffset())
              : CompletableFuture.completedFuture(null);
    }
    ready.forEach(f -> f.complete(null));
    return new AppendResult(info, replicated);
  }

  /** The result of an append: what the log assigned, and a future for the requested acks. */
  public record AppendResult(LogAppendInfo info, CompletableFuture<Void> acked) {}

  /**
   * Reads committed records from {@code offset}: whole batches, up to {@code maxBytes} (at least one batch), below
   * the high watermark only. Returns the high watermark the read was bounded by, so callers report the same one.
   */
  public CommittedRead read(long offset, int maxBytes) {
    requireLeader();
    long bound = highWatermark;
    return new CommittedRead(log.read(offset, maxBytes, bound, true), bound);
  }

  /** Records read below {@code highWatermark}. */
  public record CommittedRead(LogReadInfo info, long highWatermark) {}

  /** Completes once the high watermark is above {@code offset}, i.e. a read from {@code offset} finds data. */
  public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
    synchronized (lock) {
      if (highWatermark > offset) {
        return CompletableFuture.completedFuture(null);
      }
      return fetchWaiters.add(offset);
    }
  }

  /** Completes every waiting long poll now (they answer with what they have); used when the broker shuts down. */
  public void releaseFetchWaiters() {
    List<CompletableFuture<Void>> all;
    synchronized (lock) {
      all = fetchWaiters.releaseAll();
    }
    all.forEach(f -> f.complete(null));
  }

  /** Gives up leadership (or the partition is being deleted): fails every waiter with NOT_LEADER_OR_FOLLOWER. */
  public void resign() {
    List<CompletableFuture<Void>> all;
    synchronized (lock) {
      leader = false;
      all = new java.util.ArrayList<>(fetchWaiters.releaseAll());
      all.addAll(produceWaiters.releaseAll());
    }
    NotLeaderOrFollowerException error =
        new NotLeaderOrFollowerException("Broker " + localBrokerId + " no longer leads " + topicPartition);
    all.forEach(f -> f.completeExceptionally(new CompletionException(error)));
  }

  /** High watermark = smallest log end offset in the ISR; today the ISR is the leader alone. */
  private List<CompletableFuture<Void>> maybeIncrementHighWatermark() {
    long candidate = log.logEndOffset();
    if (candidate > highWatermark) {
      setHighWatermark(candidate);
      if (fetchWaiters.size() == 0 && produceWaiters.size() == 0) {
        return List.of(); // the common case on the produce path: nobody is waiting, allocate nothing
      }
      List<CompletableFuture<Void>> ready = new java.util.ArrayList<>();
      fetchWaiters.releaseInto(candidate, ready);
      produceWaiters.releaseInto(candidate, ready);
      return ready;
    }
    return List.of();
  }

  /** The one place the high watermark changes. Caller holds {@code lock}. */
  private void setHighWatermark(long newHighWatermark) {
    if (newHighWatermark < highWatermark) {
      throw new IllegalStateException(
          topicPartition + ": high watermark would move back from " + highWatermark + " to " + newHighWatermark);
    }
    if (newHighWatermark < log.logStartOffset() || newHighWatermark > log.logEndOffset()) {
      throw new IllegalStateException(
          topicPartition + ": high watermark " + newHighWatermark + " outside [" + log.logStartOffset() + ", "
              + log.logEndOffset() + "]");
    }
    highWatermark = newHighWatermark;
  }

  /**
   * Moves the high watermark up to the log start offset after retention deleted segments below it (possible only
   * for records that were already committed, so this is a no-op unless the log was truncated from the front).
   */
  public void onLogStartOffsetChange() {
    synchronized (lock) {
      if (highWatermark < log.logStartOffset()) {
        setHighWatermark(log.logStartOffset());
      }
    }
  }

  private void requireLeader() {
    if (!leader) {
      throw new NotLeaderOrFollowerException("Broker " + localBrokerId + " does not lead " + topicPartition);
    }
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

  /** This broker's id while it leads the partition, else -1 (the follower view knows the leader from metadata). */
  public int leaderId() {
    return leader ? localBrokerId : -1;
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

  int pendingWaiters() {
    synchronized (lock) {
      return fetchWaiters.size() + produceWaiters.size();
    }
  }

  /** The one-line status shared by logs, tests and the dashboard: {@code b1 leader e0 orders-3 hw=120 leo=127 isr=[1]}. */
  public String statusLine() {
    return "b" + localBrokerId + " " + (leader ? "leader" : "follower") + " e" + leaderEpoch + " " + topicPartition
        + " hw=" + highWatermark + " leo=" + log.logEndOffset() + " isr=" + isr;
  }

  @Override
  public String toString() {
    return statusLine();
  }
}
