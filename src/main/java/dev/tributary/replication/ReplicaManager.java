package dev.tributary.replication;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.log.LogStorageException;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker hosts, kept in step with the metadata image: a partition placed on
 * this broker gets a log and either leadership (this broker leads it) or a place in the {@link
 * ReplicaFetcherManager} (another broker leads it: this one copies from it); when the image names
 * no leader (offline) the log is kept and nothing is fetched; a deleted topic's partitions are
 * resigned and their logs removed. It answers produce and fetch for the partitions it leads, and
 * the followers' replica fetches and epoch queries; it drives the ISR checks ({@code
 * replica.lag.time.max.ms}).
 *
 * <p>Concurrency: {@link #onMetadataUpdate} runs on whichever thread commits metadata (under the
 * quorum's lock, so one image at a time, in order); produce and fetch run on request threads and
 * see partitions through a concurrent map.
 */
public final class ReplicaManager {
  private static final Logger logger = LoggerFactory.getLogger(ReplicaManager.class);
  private static final long ISR_CHECK_MAX_INTERVAL_MS = 500;

  private final int localBrokerId;
  private final LogManager logManager;
  private final Scheduler scheduler;
  private final Executor delayedCompletionExecutor;
  private final Time time;
  private final ReplicationConfig replicationConfig;
  private final AlterPartitionSender alterPartitionSender;
  private final ReplicaFetcherManager fetchers;
  private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
  private volatile MetadataImage image = MetadataImage.EMPTY;

  /** Set when the broker begins shutting down: long polls answer at once instead of waiting. */
  private volatile boolean draining;

  /** Set by {@link #shutdown}: later images are ignored. */
  private volatile boolean closed;

  /**
   * @param delayedCompletionExecutor runs what follows a delayed completion (the re-read of a long
   *     poll, the response of an {@code acks=all} produce), so that neither the scheduler's thread
   *     nor the request thread whose append released the waiter does that work
   */
  public ReplicaManager(
      int localBrokerId,
      LogManager logManager,
      Scheduler scheduler,
      Executor delayedCompletionExecutor,
      Time time,
      ReplicationConfig replicationConfig,
      AlterPartitionSender alterPartitionSender,
      ReplicaFetcherManager fetchers) {
    this.localBrokerId = localBrokerId;
    this.logManager = logManager;
    this.scheduler = scheduler;
    this.delayedCompletionExecutor = delayedCompletionExecutor;
    this.time = time;
    this.replicationConfig = replicationConfig;
    this.alterPartitionSender = alterPartitionSender;
    this.fetchers = fetchers;
  }

  /**
   * A replica manager for a broker that is alone: it never follows anyone, and proposes ISR changes
   * to nobody (a single-replica ISR never changes). For tests and tools.
   */
  public ReplicaManager(
      int localBrokerId,
      LogManager logManager,
      Scheduler scheduler,
      Executor delayedCompletionExecutor) {
    this(
        localBrokerId,
        logManager,
        scheduler,
        delayedCompletionExecutor,
        Time.SYSTEM,
        ReplicationConfig.DEFAULTS,
        request ->
            CompletableFuture.failedFuture(
                new IllegalStateException("no controller to send ISR changes to")),
        new ReplicaFetcherManager(
            localBrokerId,
            () -> -1,
            LeaderEndpoint.NONE,
            ReplicationConfig.DEFAULTS,
            Time.SYSTEM,
            id -> {}));
  }

  /**
   * Starts the ISR check: each partition this broker leads drops followers that have not caught up
   * within {@code replica.lag.time.max.ms}, and resends an ISR change whose outcome is unknown.
   * Kafka checks every half lag time; this checks at least every {@value
   * #ISR_CHECK_MAX_INTERVAL_MS} ms too, so that a resend after a controller failover is not held up
   * for 15 s (the check compares times, so running it more often changes no decision).
   */
  public void startIsrExpiration() {
    long intervalMs =
        Math.max(
            1, Math.min(ISR_CHECK_MAX_INTERVAL_MS, replicationConfig.replicaLagTimeMaxMs() / 2));
    scheduler.schedule(
        intervalMs,
        () -> {
          if (closed) {
            return;
          }
          try {
            maybeShrinkIsr();
          } catch (RuntimeException e) {
            logger.warn("ISR check failed; will retry", e);
          }
          startIsrExpiration();
        });
  }

  /** One ISR check over every partition this broker leads. */
  public void maybeShrinkIsr() {
    long nowMs = time.milliseconds();
    for (Partition partition : partitions.values()) {
      partition.maybeShrinkIsr(nowMs, replicationConfig.replicaLagTimeMaxMs());
    }
  }

  /**
   * Applies a new metadata image: creates, leads, reconfigures and deletes partitions to match it.
   * Runs on the metadata apply thread, so it does no long I/O: deleting a log renames its directory
   * and leaves the files to the log manager's deletion executor. A partition that fails to apply is
   * logged and skipped; the rest still follow the image, and the image is always taken (requests
   * route by it).
   */
  public synchronized void onMetadataUpdate(MetadataImage next) {
    if (closed) {
      return; // shutting down: resigned partitions must not be led again, nor new logs opened
    }
    Set<TopicPartition> wanted = new HashSet<>();
    for (TopicImage topic : next.topicsByName().values()) {
      LogConfig config = LogConfig.fromMap(topic.configs());
      String topicId = topic.topicId().toString();
      for (PartitionImage placement : topic.partitions().values()) {
        if (!placement.replicas().contains(localBrokerId)) {
          continue;
        }
        TopicPartition tp = new TopicPartition(topic.name(), placement.partition());
        wanted.add(tp);
        try {
          applyPlacement(tp, topicId, config, placement);
        } catch (RuntimeException e) {
          logger.error("Could not apply metadata for {}; it stays as it was", tp, e);
        }
      }
    }
    for (TopicPartition tp : Set.copyOf(partitions.keySet())) {
      if (!wanted.contains(tp)) {
        removePartition(tp);
      }
    }
    for (var log :
        logManager.allLogs()) { // logs loaded at startup that the image no longer places here
      if (!wanted.contains(log.topicPartition())) {
        removePartition(log.topicPartition());
      }
    }
    this.image = next;
  }

  private void applyPlacement(
      TopicPartition tp, String topicId, LogConfig config, PartitionImage placement) {
    Partition partition = partitions.get(tp);
    if (partition != null && !partition.topicId().equals(topicId)) {
      // The topic was deleted and created again while this broker was not looking (a snapshot
      // install, or it was
      // down): the old topic's partition and log go, the new one starts empty.
      removePartition(tp);
      partition = null;
    }
    if (partition == null) {
      partition =
          new Partition(
              tp,
              topicId,
              logManager.getOrCreateLog(tp, config, topicId),
              localBrokerId,
              alterPartitionSender);
      partitions.put(tp, partition);
    }
    if (!partition.log().config().equals(config)) {
      partition.log().updateConfig(config);
    }
    if (partition.leaderEpoch() == placement.leaderEpoch()
        && partition.partitionEpoch() == placement.partitionEpoch()
        && partition.leaderId() == placement.leader()) {
      return; // nothing about this partition changed
    }
    List<Integer> isrBefore = partition.isr();
    if (placement.leader() == localBrokerId) {
      fetchers.removePartition(tp);
      if (partition.becomeLeader(
          placement.leaderEpoch(),
          placement.partitionEpoch(),
          placement.replicas(),
          placement.isr(),
          time.milliseconds())) {
        logger.info("Became leader: {}", partition.statusLine());
      } else if (!isrBefore.equals(placement.isr())) {
        logger.info(
            "ISR of {} changed {} -> {} (partition epoch {}): {}",
            tp,
            isrBefore,
            placement.isr(),
            placement.partitionEpoch(),
            partition.statusLine());
      }
      return;
    }
    boolean wasLeader = partition.isLeader();
    boolean changed =
        partition.becomeFollower(
            placement.leader(),
            placement.leaderEpoch(),
            placement.partitionEpoch(),
            placement.replicas(),
            placement.isr());
    if (placement.leader() == -1 || logManager.isOffline()) {
      fetchers.removePartition(tp); // an offline log directory takes no replicated batches either
    } else if (changed || fetchers.leaderFor(tp) != placement.leader()) {
      fetchers.addPartition(placement.leader(), partition, placement.leaderEpoch());
    }
    if (changed) {
      logger.info(
          "{} {} in leader epoch {}: {}",
          wasLeader ? "Resigned leadership of" : "Following",
          tp,
          placement.leaderEpoch(),
          partition.statusLine());
    }
  }

  private void removePartition(TopicPartition tp) {
    fetchers.removePartition(tp);
    Partition removed = partitions.remove(tp);
    if (removed != null) {
      removed.resign();
    }
    logManager.deleteLog(tp);
    logger.info("Deleted partition {}", tp);
  }

  /**
   * The partition {@code tp} if this broker leads it; otherwise the Kafka error a client would get:
   * unknown topic or partition, LEADER_NOT_AVAILABLE while the partition is offline, or
   * NOT_LEADER_OR_FOLLOWER naming the leader.
   */
  public Partition leaderPartition(TopicPartition tp) {
    Partition partition = partitions.get(tp);
    if (partition != null && partition.isLeader()) {
      return partition;
    }
    Optional<TopicImage> topic = image.topic(tp.topic());
    if (topic.isEmpty()) {
      throw UnknownTopicOrPartitionException.unknownTopic(tp.topic());
    }
    PartitionImage placement = topic.get().requirePartition(tp.partition());
    if (placement.leader() == -1) {
      throw new LeaderNotAvailableException(
          tp
              + " has no leader: its last in-sync replica "
              + placement.isr()
              + " is on a fenced broker");
    }
    throw new NotLeaderOrFollowerException(
        "Broker "
            + localBrokerId
            + " is not the leader of "
            + tp
            + "; its leader is broker "
            + placement.leader(),
        OptionalInt.of(placement.leader()));
  }

  /**
   * Appends to one partition as leader. The future completes with the append's result once {@code
   * acks} is satisfied, or fails with a timeout after {@code timeoutMs} if replication does not
   * catch up.
   */
  public CompletableFuture<Partition.AppendResult> appendRecords(
      TopicPartition tp, ByteBuffer batches, Acks acks, long timeoutMs) {
    Partition.AppendResult result = leaderPartition(tp).appendRecordsAsLeader(batches, acks);
    if (result.acked().isDone()) {
      return result.acked().thenApply(ignored -> result);
    }
    Scheduler.Cancellable timeout =
        scheduler.schedule(
            timeoutMs,
            () ->
                result
                    .acked()
                    .completeExceptionally(
                        new java.util.concurrent.TimeoutException(
                            "Timed out after "
                                + timeoutMs
                                + " ms waiting for in-sync replicas of "
                                + tp
                                + "; the records were appended and may still be committed (outcome unknown)")));
    return result
        .acked()
        .whenComplete((v, e) -> timeout.cancel())
        .thenApplyAsync(ignored -> result, delayedCompletionExecutor);
  }

  /**
   * Reads committed records from {@code offset}. If none are there yet, waits up to {@code
   * maxWaitMs} for the high watermark to pass {@code offset} (a long poll that parks no thread),
   * then reads again.
   */
  public CompletableFuture<FetchResult> fetch(
      TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    return fetch(leaderPartition(tp), offset, maxBytes, maxWaitMs);
  }

  /**
   * As {@link #fetch(TopicPartition, long, int, long)}, for a partition the caller already looked
   * up.
   */
  public CompletableFuture<FetchResult> fetch(
      Partition partition, long offset, int maxBytes, long maxWaitMs) {
    FetchResult now = readOnce(partition, offset, maxBytes);
    if (now.records().hasRemaining() || maxWaitMs <= 0 || draining) {
      return CompletableFuture.completedFuture(now);
    }
    CompletableFuture<Void> dataArrived = partition.awaitHighWatermarkAbove(offset);
    Scheduler.Cancellable timeout = scheduler.schedule(maxWaitMs, () -> dataArrived.complete(null));
    return dataArrived.thenApplyAsync(
        ignored -> {
          timeout.cancel();
          return readOnce(partition, offset, maxBytes);
        },
        delayedCompletionExecutor);
  }

  private static FetchResult readOnce(Partition partition, long offset, int maxBytes) {
    Partition.CommittedRead read = partition.read(offset, maxBytes);
    return new FetchResult(
        partition.topicPartition(),
        read.info().records(),
        read.highWatermark(),
        partition.logStartOffset(),
        partition.logEndOffset());
  }

  /**
   * What a fetch returns: whole batches (possibly none) plus the partition's offsets at the time of
   * the read.
   */
  public record FetchResult(
      TopicPartition topicPartition,
      ByteBuffer records,
      long highWatermark,
      long logStartOffset,
      long logEndOffset) {}

  // -------------------------------------------------------------------------------------------
  // replica fetch

  /**
   * Answers a follower's fetch: every partition's batches from its fetch offset, or, when none has
   * any and none failed, waits up to the request's max wait for one to get some (a long poll that
   * parks no thread). A sender that is not the current registration of its broker id is refused
   * whole, so a stale incarnation or a stranger cannot move a high watermark or join an ISR.
   */
  public CompletableFuture<ReplicaFetch.Response> handleReplicaFetch(ReplicaFetch.Request request) {
    if (!isCurrentRegistration(request.replicaId(), request.brokerEpoch())) {
      return CompletableFuture.completedFuture(
          new ReplicaFetch.Response(ReplicaFetchError.STALE_BROKER_EPOCH, List.of()));
    }
    ReplicaFetch.Response now = readForFollower(request);
    boolean answerNow = request.maxWaitMs() <= 0 || draining;
    for (ReplicaFetch.PartitionResponse partition : now.partitions()) {
      answerNow |=
          partition.error() != ReplicaFetchError.NONE || partition.records().hasRemaining();
    }
    if (answerNow) {
      return CompletableFuture.completedFuture(now);
    }
    List<CompletableFuture<Void>> waits = new ArrayList<>(request.partitions().size() + 1);
    CompletableFuture<Void> expired = new CompletableFuture<>();
    waits.add(expired);
    for (ReplicaFetch.PartitionRequest wanted : request.partitions()) {
      Partition partition = partitions.get(wanted.topicPartition());
      if (partition != null) {
        waits.add(partition.awaitLogEndOffsetAbove(wanted.fetchOffset()));
      }
    }
    Scheduler.Cancellable timeout =
        scheduler.schedule(request.maxWaitMs(), () -> expired.complete(null));
    return CompletableFuture.anyOf(waits.toArray(CompletableFuture[]::new))
        .handleAsync(
            (ignored, error) -> {
              timeout.cancel();
              waits.forEach(w -> w.complete(null)); // the others are done with too
              return readForFollower(request);
            },
            delayedCompletionExecutor);
  }

  private ReplicaFetch.Response readForFollower(ReplicaFetch.Request request) {
    long nowMs = time.milliseconds();
    int budget = request.maxBytes();
    List<ReplicaFetch.PartitionResponse> answers = new ArrayList<>(request.partitions().size());
    for (ReplicaFetch.PartitionRequest wanted : request.partitions()) {
      TopicPartition tp = wanted.topicPartition();
      Partition partition = partitions.get(tp);
      if (partition == null) {
        answers.add(
            ReplicaFetch.PartitionResponse.error(tp, ReplicaFetchError.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      try {
        Partition.FollowerRead read =
            partition.handleFollowerFetch(
                request.replicaId(),
                request.brokerEpoch(),
                image.isUnfenced(request.replicaId()),
                wanted.currentLeaderEpoch(),
                wanted.fetchOffset(),
                Math.max(1, Math.min(wanted.maxBytes(), budget)),
                nowMs);
        budget -= read.records().remaining();
        answers.add(
            new ReplicaFetch.PartitionResponse(
                tp,
                ReplicaFetchError.NONE,
                read.highWatermark(),
                read.logStartOffset(),
                read.logEndOffset(),
                read.leaderEpoch(),
                read.records()));
      } catch (OffsetOutOfRangeException e) {
        answers.add(
            new ReplicaFetch.PartitionResponse(
                tp,
                ReplicaFetchError.OFFSET_OUT_OF_RANGE,
                partition.highWatermark(),
                partition.logStartOffset(),
                partition.logEndOffset(),
                partition.leaderEpoch(),
                java.nio.ByteBuffer.allocate(0)));
      } catch (RuntimeException e) {
        answers.add(ReplicaFetch.PartitionResponse.error(tp, errorFor(e)));
      }
    }
    return new ReplicaFetch.Response(ReplicaFetchError.NONE, answers);
  }

  /**
   * Answers a follower's OffsetsForLeaderEpoch: where each asked-for epoch ends in this leader's
   * log.
   */
  public ReplicaFetch.EpochResponse handleEpochEndOffsets(ReplicaFetch.EpochRequest request) {
    if (!isCurrentRegistration(request.replicaId(), request.brokerEpoch())) {
      return new ReplicaFetch.EpochResponse(ReplicaFetchError.STALE_BROKER_EPOCH, List.of());
    }
    List<ReplicaFetch.EpochPartitionResponse> answers = new ArrayList<>();
    for (ReplicaFetch.EpochPartitionRequest wanted : request.partitions()) {
      TopicPartition tp = wanted.topicPartition();
      Partition partition = partitions.get(tp);
      if (partition == null) {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp,
                ReplicaFetchError.UNKNOWN_TOPIC_OR_PARTITION,
                dev.tributary.log.EpochEndOffset.UNDEFINED,
                -1));
        continue;
      }
      try {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp,
                ReplicaFetchError.NONE,
                partition.endOffsetForEpoch(wanted.currentLeaderEpoch(), wanted.leaderEpoch()),
                partition.logStartOffset()));
      } catch (RuntimeException e) {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp, errorFor(e), dev.tributary.log.EpochEndOffset.UNDEFINED, -1));
      }
    }
    return new ReplicaFetch.EpochResponse(ReplicaFetchError.NONE, answers);
  }

  private boolean isCurrentRegistration(int brokerId, long brokerEpoch) {
    Optional<BrokerImage> broker = image.broker(brokerId);
    return broker.isPresent() && broker.get().brokerEpoch() == brokerEpoch;
  }

  /** The replica-fetch error for what a partition threw; anything else is a bug and propagates. */
  static ReplicaFetchError errorFor(RuntimeException e) {
    if (e instanceof FencedLeaderEpochException) {
      return ReplicaFetchError.FENCED_LEADER_EPOCH;
    } else if (e instanceof UnknownLeaderEpochException) {
      return ReplicaFetchError.UNKNOWN_LEADER_EPOCH;
    } else if (e instanceof NotLeaderOrFollowerException) {
      return ReplicaFetchError.NOT_LEADER_OR_FOLLOWER;
    } else if (e instanceof LogStorageException) {
      logger.error("Storage error serving a replica fetch", e);
      return ReplicaFetchError.KAFKA_STORAGE_ERROR;
    }
    throw e;
  }

  /**
   * The log directory went offline (docs/adr/0015-offline-log-dir.md): stop copying from leaders,
   * since every follower append would fail. Partitions this broker leads keep answering reads of
   * their committed records and refuse appends with KAFKA_STORAGE_ERROR until the controller, told
   * by the next heartbeat, moves their leadership away. Idempotent; run it off the failing thread
   * (it takes this object's monitor, which comes before a log's lock).
   */
  public synchronized void onLogDirFailure() {
    for (Partition partition : partitions.values()) {
      fetchers.removePartition(partition.topicPartition());
    }
    logger.error(
        "Log directory {} is offline: stopped fetching for {} partition(s); produce answers"
            + " KAFKA_STORAGE_ERROR until the controller moves leadership away",
        logManager.dataDir(),
        partitions.size());
  }

  /**
   * Pauses this broker's replica fetching (a fault for the demo: its replicas fall out of ISRs).
   */
  public void pauseReplicaFetchers(long durationMs) {
    fetchers.pauseFor(durationMs);
  }

  public ReplicaFetcherManager fetchers() {
    return fetchers;
  }

  /**
   * Runs retention and flushes (via the log manager), then lets partitions see their new log start
   * offsets.
   */
  public void runPeriodicLogTasks() {
    logManager.runPeriodicTasks();
    partitions.values().forEach(Partition::onLogStartOffsetChange);
  }

  /** True once the image this replica manager has applied includes topic {@code name}. */
  public boolean partitionsKnown(String name) {
    return image.topic(name).isPresent();
  }

  /** The metadata offset of the last image this replica manager has applied. */
  public long metadataOffset() {
    return image.lastOffset();
  }

  public Optional<Partition> partition(TopicPartition tp) {
    return Optional.ofNullable(partitions.get(tp));
  }

  public Collection<Partition> partitions() {
    return partitions.values();
  }

  public int localBrokerId() {
    return localBrokerId;
  }

  /** Answers every waiting long poll now, so that a graceful shutdown is not held up by them. */
  public void releaseFetchWaiters() {
    draining = true;
    partitions.values().forEach(Partition::releaseFetchWaiters);
  }

  /**
   * Resigns every partition so waiting requests fail fast; the log manager is shut down by its
   * owner.
   */
  public synchronized void shutdown() {
    closed = true;
    fetchers.close();
    partitions.values().forEach(Partition::resign);
  }
}
