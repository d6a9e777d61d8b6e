package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.NotEnoughReplicasAfterAppendException;
import dev.tributary.common.errors.NotEnoughReplicasException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogAppendInfo;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.TimestampAndOffset;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition on this broker: its log, and its replication state. While this broker leads it: the
 * leader epoch, the ISR, each follower's log end offset and fetch times, and the high watermark
 * (HW). While it follows: the leader it copies from and the HW the leader last reported. See
 * docs/adr/0009-isr-and-high-watermark.md.
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
 * <p>Concurrency: {@code lock} guards the leader and follower state, the high watermark's changes,
 * the waiters and follower appends and truncations; lock order partition → log. Consumer reads take
 * no lock: they read the volatile high watermark, then the log up to it. Futures are completed, and
 * ISR changes sent, only after the lock is dropped.
 */
public final class Partition {
  private static final Logger logger = LoggerFactory.getLogger(Partition.class);

  private final TopicPartition topicPartition;

  /**
   * The id of the topic this partition belongs to: a topic re-created under the same name gets
   * another.
   */
  private final String topicId;

  private final PartitionLog log;
  private final int localBrokerId;
  private final AlterPartitionSender alterPartitionSender;
  private final Object lock = new Object();

  /** Consumer long polls waiting for the HW; released normally (empty read) on shutdown. */
  private final HighWatermarkWaiters fetchWaiters = new HighWatermarkWaiters();

  /** {@code acks=all} produces waiting for the HW; failed, never released, when leadership ends. */
  private final HighWatermarkWaiters produceWaiters = new HighWatermarkWaiters();

  /** Follower fetches (replica fetch long polls) waiting for the log end offset to move. */
  private final HighWatermarkWaiters logEndWaiters = new HighWatermarkWaiters();

  private volatile int leaderEpoch = -1;

  /**
   * The partition epoch of the metadata this state came from; an ISR change is proposed against it.
   */
  private volatile int partitionEpoch = -1;

  /** The leader named by the metadata (this broker, another, or -1 while offline). */
  private volatile int leaderId = -1;

  private volatile List<Integer> replicas;

  /** The committed ISR, from the metadata image. */
  private volatile List<Integer> isr;

  private volatile boolean leader;

  /** Offset below which records are committed and visible to consumers; see class invariants. */
  private volatile long highWatermark;

  /**
   * Leader only: the log end offset when this epoch began; a follower must reach it to join the
   * ISR.
   */
  private long leaderEpochStartOffset;

  /** Leader only: the followers' state, by broker id. */
  private final Map<Integer, ReplicaState> followers = new HashMap<>();

  /**
   * Leader only: the ISR change sent to the controller and not yet seen committed or refused; null
   * if none.
   */
  private PendingIsrChange pendingIsrChange;

  /**
   * @param brokerEpochs the broker epochs of the replicas it adds, as they fetched (sent again on a
   *     resend)
   * @param failed the outcome is unknown (no controller answered): resend on the next check
   */
  private record PendingIsrChange(
      List<Integer> newIsr,
      Map<Integer, Long> brokerEpochs,
      int basePartitionEpoch,
      String reason,
      boolean failed) {
    PendingIsrChange withFailed(boolean nowFailed) {
      return new PendingIsrChange(newIsr, brokerEpochs, basePartitionEpoch, reason, nowFailed);
    }
  }

  public Partition(
      TopicPartition topicPartition,
      String topicId,
      PartitionLog log,
      int localBrokerId,
      AlterPartitionSender alterPartitionSender) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.log = log;
    this.localBrokerId = localBrokerId;
    this.alterPartitionSender = alterPartitionSender;
    this.replicas = List.of();
    this.isr = List.of();
    this.highWatermark = log.logStartOffset();
    log.setRetentionBoundOffset(highWatermark);
  }

  // -------------------------------------------------------------------------------------------
  // transitions

  /**
   * Applies metadata that names this broker leader in {@code leaderEpoch}. A new epoch starts
   * afresh: the epoch is recorded at the log end offset, every follower's log end offset becomes
   * unknown (ISR members count as caught up now, so they are not dropped before they could fetch).
   * The same epoch again carries a committed ISR change.
   *
   * @return true if this started a new leader epoch here
   */
  public boolean becomeLeader(
      int leaderEpoch, int partitionEpoch, List<Integer> replicas, List<Integer> isr, long nowMs) {
    if (!isr.contains(localBrokerId) || !replicas.containsAll(isr)) {
      throw new IllegalArgumentException(
          topicPartition
              + ": leader "
              + localBrokerId
              + " must be in isr "
              + isr
              + " ⊆ replicas "
              + replicas);
    }
    List<Runnable> completions;
    boolean newEpoch;
    synchronized (lock) {
      newEpoch = !leader || leaderEpoch != this.leaderEpoch;
      this.replicas = List.copyOf(replicas);
      this.isr = List.copyOf(isr);
      this.partitionEpoch = partitionEpoch;
      if (newEpoch) {
        log.assignEpochStartOffset(leaderEpoch);
        leaderEpochStartOffset = log.logEndOffset();
        followers.clear();
        pendingIsrChange = null;
        this.leaderEpoch = leaderEpoch;
        this.leaderId = localBrokerId;
        this.leader = true;
      } else if (pendingIsrChange != null && partitionEpoch > pendingIsrChange.basePartitionEpoch) {
        pendingIsrChange =
            null; // committed, or overtaken by another change: the image is the truth now
      }
      for (int replica : replicas) {
        if (replica != localBrokerId && !followers.containsKey(replica)) {
          followers.put(replica, new ReplicaState(replica, isr.contains(replica) ? nowMs : 0));
        }
      }
      followers.keySet().retainAll(replicas);
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
    List<CompletableFuture<Void>> failed = List.of();
    boolean changed;
    synchronized (lock) {
      changed = leader || leaderId != this.leaderId || leaderEpoch != this.leaderEpoch;
      if (leader) {
        failed = releaseAllWaiters();
      }
      leader = false;
      followers.clear();
      pendingIsrChange = null;
      this.leaderId = leaderId;
      this.leaderEpoch = leaderEpoch;
      this.partitionEpoch = partitionEpoch;
      this.replicas = List.copyOf(replicas);
      this.isr = List.copyOf(isr);
    }
    failAll(
        failed,
        "Broker "
            + localBrokerId
            + " no longer leads "
            + topicPartition
            + "; broker "
            + leaderId
            + " does in leader epoch "
            + leaderEpoch);
    return changed;
  }

  /**
   * The partition is being deleted, or the broker stops: fails every waiter with
   * NOT_LEADER_OR_FOLLOWER.
   */
  public void resign() {
    List<CompletableFuture<Void>> all;
    synchronized (lock) {
      leader = false;
      followers.clear();
      pendingIsrChange = null;
      all = releaseAllWaiters();
    }
    failAll(all, "Broker " + localBrokerId + " no longer leads " + topicPartition);
  }

  private List<CompletableFuture<Void>> releaseAllWaiters() {
    List<CompletableFuture<Void>> all = new ArrayList<>(fetchWaiters.releaseAll());
    all.addAll(produceWaiters.releaseAll());
    all.addAll(logEndWaiters.releaseAll());
    return all;
  }

  private static void failAll(List<CompletableFuture<Void>> futures, String message) {
    if (!futures.isEmpty()) {
      NotLeaderOrFollowerException error = new NotLeaderOrFollowerException(message);
      futures.forEach(f -> f.completeExceptionally(new CompletionException(error)));
    }
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
    CompletableFuture<Void> replicated;
    synchronized (lock) {
      requireLeader();
      int minIsr = log.config().minInSyncReplicas();
      if (acks == Acks.ALL && isr.size() < minIsr) {
        throw new NotEnoughReplicasException(
            "The in-sync replicas of "
                + topicPartition
                + " are "
                + isr
                + ", fewer than min.insync.replicas="
                + minIsr
                + "; nothing was appended");
      }
      info = log.appendAsLeader(batches, leaderEpoch);
      completions = maybeIncrementHighWatermark();
      if (logEndWaiters.size() > 0) {
        List<CompletableFuture<Void>> fetchers = new ArrayList<>();
        logEndWaiters.releaseInto(log.logEndOffset(), fetchers);
        completions = concat(completions, fetchers);
      }
      replicated =
          acks == Acks.ALL && highWatermark <= info.lastOffset()
              ? produceWaiters.add(info.lastOffset())
              : CompletableFuture.completedFuture(null);
    }
    completions.forEach(Runnable::run);
    return new AppendResult(info, replicated);
  }

  private static List<Runnable> concat(
      List<Runnable> completions, List<CompletableFuture<Void>> more) {
    List<Runnable> all = new ArrayList<>(completions);
    more.forEach(f -> all.add(() -> f.complete(null)));
    return all;
  }

  /** The result of an append: what the log assigned, and a future for the requested acks. */
  public record AppendResult(LogAppendInfo info, CompletableFuture<Void> acked) {}

  // -------------------------------------------------------------------------------------------
  // leader: consume

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
   * @throws FencedLeaderEpochException the fetcher's epoch is older than this leader's
   * @throws UnknownLeaderEpochException the fetcher's epoch is newer (this broker is behind)
   * @throws NotLeaderOrFollowerException this broker does not lead, or the follower holds no
   *     replica
   * @throws OffsetOutOfRangeException the fetch offset is outside [logStartOffset, logEndOffset]
   */
  public FetchPartitionData fetchRecords(
      FetchParams params,
      PartitionFetch fetch,
      int maxBytes,
      boolean minOneBatch,
      boolean followerEligible,
      long nowMs) {
    return params.isFromFollower()
        ? fetchAsFollowerOf(params, fetch, maxBytes, minOneBatch, followerEligible, nowMs)
        : fetchForConsumer(params, fetch, maxBytes, minOneBatch);
  }

  /**
   * A consumer's read: lock-free (the volatile high watermark, then the log below it), so consumers
   * never wait for producers.
   */
  private FetchPartitionData fetchForConsumer(
      FetchParams params, PartitionFetch fetch, int maxBytes, boolean minOneBatch) {
    requireLeader();
    int epoch = leaderEpoch;
    validateLeaderEpoch(fetch.currentLeaderEpoch(), epoch, "a fetch");
    long bound = highWatermark; // read once: the answer reports the bound it read with
    EpochEndOffset diverging = divergingEpoch(fetch);
    if (diverging != null) {
      return divergedAnswer(fetch, diverging, bound, epoch);
    }
    LogReadInfo read = log.read(fetch.fetchOffset(), maxBytes, bound, minOneBatch);
    return new FetchPartitionData(
        topicPartition,
        Errors.NONE,
        null,
        bound,
        bound,
        read.logStartOffset(),
        read.logEndOffset(),
        null,
        localBrokerId,
        epoch,
        read.records());
  }

  private FetchPartitionData fetchAsFollowerOf(
      FetchParams params,
      PartitionFetch fetch,
      int maxBytes,
      boolean minOneBatch,
      boolean followerEligible,
      long nowMs) {
    int replicaId = params.replicaId();
    long fetchOffset = fetch.fetchOffset();
    List<Runnable> completions;
    AlterPartitionRequest expansion;
    long hw;
    int epoch;
    synchronized (lock) {
      requireLeader();
      validateLeaderEpoch(fetch.currentLeaderEpoch(), leaderEpoch, "replica " + replicaId);
      ReplicaState follower = followers.get(replicaId);
      if (follower == null) {
        throw new NotLeaderOrFollowerException(
            "Broker "
                + replicaId
                + " holds no replica of "
                + topicPartition
                + " (replicas "
                + replicas
                + ")");
      }
      long logEndOffset = log.logEndOffset();
      if (fetchOffset > logEndOffset || fetchOffset < log.logStartOffset()) {
        throw new OffsetOutOfRangeException(
            "replica "
                + replicaId
                + " fetched "
                + topicPartition
                + " from "
                + fetchOffset
                + ", outside ["
                + log.logStartOffset()
                + ", "
                + logEndOffset
                + "]");
      }
      EpochEndOffset diverging = divergingEpoch(fetch);
      if (diverging != null) {
        return divergedAnswer(fetch, diverging, highWatermark, leaderEpoch);
      }
      follower.onFetch(fetchOffset, logEndOffset, params.replicaEpoch(), nowMs);
      expansion = followerEligible ? maybeExpandIsr(follower) : null;
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
    return new FetchPartitionData(
        topicPartition,
        Errors.NONE,
        null,
        hw,
        hw,
        read.logStartOffset(),
        read.logEndOffset(),
        null,
        localBrokerId,
        epoch,
        read.records());
  }

  /**
   * Where the fetcher's last fetched epoch ends here, if its log diverged from this one before its
   * fetch offset (Kafka's check in Partition.readRecords); null when it did not, or it sent none.
   */
  private EpochEndOffset divergingEpoch(PartitionFetch fetch) {
    if (fetch.lastFetchedEpoch() < 0) {
      return null;
    }
    EpochEndOffset end = log.endOffsetForEpoch(fetch.lastFetchedEpoch());
    if (end.isUndefined()) {
      throw new OffsetOutOfRangeException(
          topicPartition
              + ": the end of the last fetched epoch "
              + fetch.lastFetchedEpoch()
              + " is not known to this leader");
    }
    if (fetch.fetchOffset() < log.logStartOffset()) {
      throw new OffsetOutOfRangeException(
          topicPartition
              + ": fetch offset "
              + fetch.fetchOffset()
              + " is below the log start offset "
              + log.logStartOffset());
    }
    return end.leaderEpoch() < fetch.lastFetchedEpoch() || end.endOffset() < fetch.fetchOffset()
        ? end
        : null;
  }

  private FetchPartitionData divergedAnswer(
      PartitionFetch fetch, EpochEndOffset diverging, long hw, int epoch) {
    return new FetchPartitionData(
        topicPartition,
        Errors.NONE,
        null,
        hw,
        hw,
        log.logStartOffset(),
        log.logEndOffset(),
        diverging,
        localBrokerId,
        epoch,
        ByteBuffer.allocate(0));
  }

  /**
   * KIP-320: a fetcher or client names the epoch it believes this leader is in; -1 skips the check.
   */
  private void validateLeaderEpoch(int requestEpoch, int currentEpoch, String who) {
    if (requestEpoch < 0) {
      return;
    }
    if (requestEpoch < currentEpoch) {
      throw new FencedLeaderEpochException(
          who
              + " asked for "
              + topicPartition
              + " in leader epoch "
              + requestEpoch
              + "; the current epoch is "
              + currentEpoch);
    }
    if (requestEpoch > currentEpoch) {
      throw new UnknownLeaderEpochException(
          who
              + " asked for "
              + topicPartition
              + " in leader epoch "
              + requestEpoch
              + ", newer than this leader's "
              + currentEpoch);
    }
  }

  /**
   * Completes once the high watermark is above {@code offset}, i.e. a read from {@code offset}
   * finds data.
   */
  public CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
    synchronized (lock) {
      if (highWatermark > offset) {
        return CompletableFuture.completedFuture(null);
      }
      return fetchWaiters.add(offset);
    }
  }

  /**
   * Completes once the log end offset is above {@code offset} (a follower fetching from there finds
   * data).
   */
  public CompletableFuture<Void> awaitLogEndOffsetAbove(long offset) {
    synchronized (lock) {
      if (!leader || log.logEndOffset() > offset) {
        return CompletableFuture.completedFuture(null);
      }
      return logEndWaiters.add(offset);
    }
  }

  /**
   * Completes every waiting long poll now (they answer with what they have); used when the broker
   * shuts down.
   */
  public void releaseFetchWaiters() {
    List<CompletableFuture<Void>> all;
    synchronized (lock) {
      all = new ArrayList<>(fetchWaiters.releaseAll());
      all.addAll(logEndWaiters.releaseAll());
    }
    all.forEach(f -> f.complete(null));
  }

  /**
   * Where {@code requestedEpoch} ends in this leader's log (OffsetsForLeaderEpoch), for a fetcher
   * in {@code currentLeaderEpoch} (-1: no check) reconciling its log with this one.
   */
  public EpochEndOffset endOffsetForEpoch(int currentLeaderEpoch, int requestedEpoch) {
    synchronized (lock) {
      requireLeader();
      validateLeaderEpoch(currentLeaderEpoch, leaderEpoch, "an epoch query");
      return log.endOffsetForEpoch(requestedEpoch);
    }
  }

  /**
   * ListOffsets as this partition's leader (Kafka's Partition.fetchOffsetForTimestamp): {@link
   * ListOffsetsTimestamps#EARLIEST} the log start offset, {@link ListOffsetsTimestamps#LATEST} the
   * high watermark (what consumers can read up to), {@link ListOffsetsTimestamps#MAX_TIMESTAMP} the
   * committed record with the largest timestamp, any other timestamp (>= 0) the first committed
   * offset whose record is at least that recent; each with the leader epoch it was written in (the
   * current one for latest). Empty when no committed record matches.
   */
  public Optional<TimestampAndOffset> fetchOffsetForTimestamp(
      long timestampMs, int currentLeaderEpoch) {
    requireLeader();
    int epoch = leaderEpoch;
    validateLeaderEpoch(currentLeaderEpoch, epoch, "a ListOffsets request");
    long hw = highWatermark;
    if (timestampMs == ListOffsetsTimestamps.LATEST) {
      return Optional.of(new TimestampAndOffset(-1, hw, epoch));
    }
    if (timestampMs == ListOffsetsTimestamps.EARLIEST) {
      long start = log.logStartOffset();
      return Optional.of(new TimestampAndOffset(-1, start, log.epochForOffset(start)));
    }
    if (timestampMs == ListOffsetsTimestamps.MAX_TIMESTAMP) {
      return log.maxTimestampBelow(hw);
    }
    if (timestampMs < 0) {
      throw new InvalidRequestException(
          "timestamp " + timestampMs + " is neither a time nor one of -1, -2, -3");
    }
    return log.offsetForTimestamp(timestampMs).filter(found -> found.offset() < hw);
  }

  /**
   * Adds a caught-up follower to the ISR: it has reached the HW, and everything this epoch's leader
   * started from.
   */
  private AlterPartitionRequest maybeExpandIsr(ReplicaState follower) {
    if (pendingIsrChange != null || isr.contains(follower.brokerId)) {
      return null;
    }

    if (follower.logEndOffset < highWatermark || follower.logEndOffset < leaderEpochStartOffset) {
      return null;
    }
    Set<Integer> next = new LinkedHashSet<>(isr);
    next.add(follower.brokerId);
    List<Integer> newIsr = replicas.stream().filter(next::contains).toList();
    return propose(
        newIsr,
        Map.of(follower.brokerId, follower.brokerEpoch),
        "replica " + follower.brokerId + " caught up to the high watermark " + highWatermark);
  }

  /**
   * Drops from the ISR every follower that has not been caught up for longer than {@code
   * replicaLagTimeMaxMs} (Kafka's replica.lag.time.max.ms), and resends an ISR change whose outcome
   * is unknown. Driven periodically.
   */
  public void maybeShrinkIsr(long nowMs, long replicaLagTimeMaxMs) {
    AlterPartitionRequest request = null;
    synchronized (lock) {
      if (!leader) {
        return;
      }
      if (pendingIsrChange != null) {
        if (pendingIsrChange.failed) {
          pendingIsrChange = pendingIsrChange.withFailed(false);
          request =
              requestFor(
                  pendingIsrChange.newIsr, pendingIsrChange.brokerEpochs, pendingIsrChange.reason);
        }
      } else {
        List<Integer> laggards = new ArrayList<>();
        for (int member : isr) {
          ReplicaState follower = followers.get(member);
          // Kafka's rule: a follower that has everything the leader has stays, even if it has not
          // fetched lately.
          if (follower != null
              && follower.logEndOffset < log.logEndOffset()
              && nowMs - follower.lastCaughtUpTimeMs > replicaLagTimeMaxMs) {
            laggards.add(member);
          }
        }
        if (!laggards.isEmpty()) {
          List<Integer> newIsr = isr.stream().filter(id -> !laggards.contains(id)).toList();
          StringBuilder why = new StringBuilder();
          for (int id : laggards) {
            ReplicaState f = followers.get(id);
            why.append("replica ")
                .append(id)
                .append(" not caught up for ")
                .append(nowMs - f.lastCaughtUpTimeMs)
                .append(" ms (log end offset ")
                .append(f.logEndOffset)
                .append(", leader's ")
                .append(log.logEndOffset())
                .append(") ");
          }
          request =
              propose(
                  newIsr,
                  Map.of(),
                  why.append("> replica.lag.time.max.ms=").append(replicaLagTimeMaxMs).toString());
        }
      }
    }
    if (request != null) {
      send(request);
    }
  }

  private AlterPartitionRequest propose(
      List<Integer> newIsr, Map<Integer, Long> brokerEpochs, String reason) {
    pendingIsrChange = new PendingIsrChange(newIsr, brokerEpochs, partitionEpoch, reason, false);
    logger.info(
        "Proposing ISR {} -> {} for {} in leader epoch {}: {}",
        isr,
        newIsr,
        topicPartition,
        leaderEpoch,
        reason);
    return requestFor(newIsr, brokerEpochs, reason);
  }

  private AlterPartitionRequest requestFor(
      List<Integer> newIsr, Map<Integer, Long> brokerEpochs, String reason) {
    return new AlterPartitionRequest(
        topicId,
        topicPartition,
        localBrokerId,
        leaderEpoch,
        partitionEpoch,
        newIsr,
        brokerEpochs,
        reason);
  }

  /**
   * Sends an ISR change. A definite refusal clears it (the next fetch or check proposes afresh); an
   * unknown outcome keeps it pending, marked for a resend, since it may have been committed.
   */
  private void send(AlterPartitionRequest request) {
    alterPartitionSender
        .send(request)
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                return; // committed: it takes effect when this broker replays the record
              }
              Throwable cause =
                  error instanceof CompletionException && error.getCause() != null
                      ? error.getCause()
                      : error;
              boolean refused =
                  cause instanceof InvalidUpdateVersionException
                      || cause instanceof FencedLeaderEpochException
                      || cause instanceof IneligibleReplicaException
                      || cause instanceof NotLeaderOrFollowerException
                      || cause instanceof UnknownTopicOrPartitionException;
              synchronized (lock) {
                if (pendingIsrChange == null
                    || pendingIsrChange.basePartitionEpoch != request.partitionEpoch()
                    || !pendingIsrChange.newIsr.equals(request.newIsr())) {
                  return;
                }
                pendingIsrChange = refused ? null : pendingIsrChange.withFailed(true);
              }
              logger.info(
                  "ISR change {} for {} {}: {}",
                  request.newIsr(),
                  topicPartition,
                  refused ? "refused" : "not confirmed, will resend",
                  cause.toString());
            });
  }

  /**
   * HW = the smallest log end offset over the maximal ISR (the committed ISR plus what a pending
   * change adds), the leader's own included; unknown followers (-1) hold it back. Returns what to
   * complete once the lock is dropped.
   */
  private List<Runnable> maybeIncrementHighWatermark() {
    if (!leader) {
      return List.of();
    }
    long candidate = log.logEndOffset();
    for (int member : isr) {
      candidate = Math.min(candidate, logEndOffsetOf(member));
    }
    if (pendingIsrChange != null) {
      for (int member : pendingIsrChange.newIsr) {
        candidate = Math.min(candidate, logEndOffsetOf(member));
      }
    }
    if (candidate <= highWatermark) {
      return List.of();
    }
    setHighWatermark(candidate);
    if (fetchWaiters.size() == 0 && produceWaiters.size() == 0) {
      return List.of(); // the common case on the produce path: nobody is waiting, allocate nothing
    }
    List<CompletableFuture<Void>> fetches = new ArrayList<>();
    fetchWaiters.releaseInto(candidate, fetches);
    List<CompletableFuture<Void>> produces = new ArrayList<>();
    produceWaiters.releaseInto(candidate, produces);
    List<Runnable> completions = new ArrayList<>(fetches.size() + produces.size());
    fetches.forEach(f -> completions.add(() -> f.complete(null)));
    int minIsr = log.config().minInSyncReplicas();
    if (isr.size() >= minIsr) {
      produces.forEach(f -> completions.add(() -> f.complete(null)));
    } else {
      NotEnoughReplicasAfterAppendException error =
          new NotEnoughReplicasAfterAppendException(
              "The records of "
                  + topicPartition
                  + " were appended, but the ISR "
                  + isr
                  + " shrank below "
                  + "min.insync.replicas="
                  + minIsr
                  + " before they were replicated");
      produces.forEach(
          f -> completions.add(() -> f.completeExceptionally(new CompletionException(error))));
    }
    return completions;
  }

  private long logEndOffsetOf(int brokerId) {
    if (brokerId == localBrokerId) {
      return log.logEndOffset();
    }
    ReplicaState follower = followers.get(brokerId);
    return follower == null ? -1 : follower.logEndOffset;
  }

  /** The one place the high watermark changes. Caller holds {@code lock}. */
  private void setHighWatermark(long newHighWatermark) {
    if (leader && newHighWatermark < highWatermark) {
      throw new IllegalStateException(
          topicPartition
              + ": high watermark would move back from "
              + highWatermark
              + " to "
              + newHighWatermark
              + " in leader epoch "
              + leaderEpoch);
    }
    if (newHighWatermark < log.logStartOffset() || newHighWatermark > log.logEndOffset()) {
      throw new IllegalStateException(
          topicPartition
              + ": high watermark "
              + newHighWatermark
              + " outside ["
              + log.logStartOffset()
              + ", "
              + log.logEndOffset()
              + "]");
    }
    highWatermark = newHighWatermark;
    log.setRetentionBoundOffset(newHighWatermark);
  }

  // -------------------------------------------------------------------------------------------
  // follower

  /**
   * Appends batches fetched from the leader in {@code fetchedInEpoch} (keeping their offsets and
   * epochs) and takes the leader's high watermark (bounded by this log's end) and log start offset.
   * Ignored, returning false, if this broker's view moved on since the fetch was sent (it leads
   * now, or follows another epoch): a stale response must not touch the log.
   */
  public boolean appendAsFollower(
      int fetchedInEpoch, ByteBuffer records, long leaderHighWatermark, long leaderLogStartOffset) {
    synchronized (lock) {
      if (leader || leaderEpoch != fetchedInEpoch) {
        return false;
      }
      if (records.hasRemaining()) {
        log.appendAsFollower(records);
      }
      if (leaderLogStartOffset > log.logStartOffset()
          && leaderLogStartOffset <= log.logEndOffset()) {
        log.maybeIncrementLogStartOffset(leaderLogStartOffset);
      }
      long next = Math.max(log.logStartOffset(), Math.min(leaderHighWatermark, log.logEndOffset()));
      if (next != highWatermark) {
        setHighWatermark(next);
      }
      return true;
    }
  }

  /**
   * Truncates this follower's log to {@code offset} (the point where it agrees with the leader),
   * lowering the HW with it; {@code startAt} instead empties the log and restarts it there (the
   * leader no longer has what this replica would fetch next). False, and nothing done, if the epoch
   * moved on.
   */
  public boolean truncateAsFollower(int fetchedInEpoch, long offset, boolean startAt) {
    synchronized (lock) {
      if (leader || leaderEpoch != fetchedInEpoch) {
        return false;
      }
      if (startAt) {
        highWatermark = offset; // the log restarts at offset: HW = start = end
        log.truncateFullyAndStartAt(offset);
      } else {
        if (highWatermark > offset) {
          setHighWatermark(Math.max(log.logStartOffset(), offset));
        }
        // Even at the log end: an epoch this replica led without writing starts there, and must go
        // too.
        log.truncateTo(offset);
        if (highWatermark > log.logEndOffset()) {
          highWatermark =
              log.logEndOffset(); // truncation is by whole batches and may end below offset
        }
      }
      log.setRetentionBoundOffset(highWatermark);
      return true;
    }
  }

  /**
   * Moves the high watermark up to the log start offset after retention deleted segments below it
   * (possible only for records that were already committed, so this is a no-op unless the log was
   * truncated from the front).
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
      throw new NotLeaderOrFollowerException(
          "Broker "
              + localBrokerId
              + " does not lead "
              + topicPartition
              + (leaderId >= 0 ? "; broker " + leaderId + " does" : ""));
    }
  }

  // -------------------------------------------------------------------------------------------
  // views

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

  public int partitionEpoch() {
    return partitionEpoch;
  }

  /**
   * The leader named by the metadata this broker applied: this broker, another, or -1 while
   * offline.
   */
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
   * (only the leader knows the followers' progress).
   */
  public List<ReplicaStatus> replicaStatuses(long nowMs) {
    synchronized (lock) {
      if (!leader) {
        return List.of();
      }
      long leo = log.logEndOffset();
      List<ReplicaStatus> statuses = new ArrayList<>();
      for (int replica : replicas) {
        if (replica == localBrokerId) {
          statuses.add(
              new ReplicaStatus(
                  replica, true, true, leo, 0, -1, nowMs)); // a leader fetches from nobody
        } else {
          ReplicaState f = followers.get(replica);
          long fleo = f == null ? -1 : f.logEndOffset;
          statuses.add(
              new ReplicaStatus(
                  replica,
                  false,
                  isr.contains(replica),
                  fleo,
                  fleo < 0 ? -1 : leo - fleo,
                  f == null ? -1 : f.lastFetchTimeMs,
                  f == null ? -1 : f.lastCaughtUpTimeMs));
        }
      }
      return statuses;
    }
  }

  /** This replica at one moment, its fields read together under the lock. */
  public PartitionStatus status(long nowMs) {
    synchronized (lock) {
      return new PartitionStatus(
          topicPartition,
          leader,
          leaderId,
          leaderEpoch,
          log.logStartOffset(),
          highWatermark,
          log.logEndOffset(),
          log.size(),
          log.numberOfSegments(),
          replicas,
          isr,
          replicaStatuses(nowMs),
          statusLine());
    }
  }

  int pendingWaiters() {
    synchronized (lock) {
      return fetchWaiters.size() + produceWaiters.size() + logEndWaiters.size();
    }
  }

  /**
   * The one-line status shared by logs, tests and the dashboard: {@code b2 leader e7 orders-3
   * hw=120 leo=127 isr=[1,2] osr=[3] lag{3:41}} (a follower's line names its leader instead of the
   * lags).
   */
  public String statusLine() {
    StringBuilder line = new StringBuilder();
    synchronized (lock) {
      line.append('b')
          .append(localBrokerId)
          .append(leader ? " leader" : " follower")
          .append(" e")
          .append(leaderEpoch)
          .append(' ')
          .append(topicPartition)
          .append(" hw=")
          .append(highWatermark)
          .append(" leo=")
          .append(log.logEndOffset())
          .append(" isr=")
          .append(isr);
      List<Integer> osr = replicas.stream().filter(r -> !isr.contains(r)).toList();
      if (!osr.isEmpty()) {
        line.append(" osr=").append(osr);
      }
      if (leader && !followers.isEmpty()) {
        line.append(" lag{");
        String sep = "";
        for (int replica : replicas) {
          ReplicaState f = followers.get(replica);
          if (f != null) {
            line.append(sep)
                .append(replica)
                .append(':')
                .append(
                    f.logEndOffset < 0 ? "?" : String.valueOf(log.logEndOffset() - f.logEndOffset));
            sep = ",";
          }
        }
        line.append('}');
        if (pendingIsrChange != null) {
          line.append(" pending-isr=").append(pendingIsrChange.newIsr);
        }
      } else if (!leader) {
        line.append(" leader=").append(leaderId);
      }
    }
    return line.toString();
  }

  @Override
  public String toString() {
    return statusLine();
  }
}
