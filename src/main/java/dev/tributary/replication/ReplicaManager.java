package dev.tributary.replication;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.log.LogStorageException;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.TimestampAndOffset;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
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

  private final HighWatermarkCheckpoints highWatermarkCheckpoints;

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
    this.highWatermarkCheckpoints = new HighWatermarkCheckpoints(logManager);
  }

  /** A broker alone: it follows nobody and proposes ISR changes to nobody. For tests and tools. */
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
            FollowerEvents.NONE));
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
    long nowMs = time.monotonicMs(); // an ISR lag is an interval: see ReplicaState
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
    // Taken first, as Kafka updates its metadata cache before the replicas: a fetch or produce
    // that a leadership change below wakes re-reads, and its NOT_LEADER_OR_FOLLOWER must name the
    // new leader and epoch, not the ones this image replaces.
    this.image = next;
    fetchers.throttles().onMetadata(next);
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
  }

  private void applyPlacement(
      TopicPartition tp, String topicId, LogConfig config, PartitionImage placement) {
    Partition partition = partitions.get(tp);
    if (partition != null && !partition.topicId().equals(topicId)) {
      // The topic was deleted and created again while this broker was not looking (a snapshot
      // install, or it was down): the old topic's partition and log go, the new one starts empty.
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
              alterPartitionSender,
              highWatermarkCheckpoints.restartHighWatermark(tp));
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
          time.monotonicMs())) {
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

  /**
   * Stops serving {@code tp} here and deletes its log. A deletion that fails (a failing disk: the
   * log directory goes offline with it) is logged and the image is still applied to every other
   * partition, as a placement that fails to apply is; the files go with the directory's repair.
   */
  private void removePartition(TopicPartition tp) {
    fetchers.removePartition(tp);
    Partition removed = partitions.remove(tp);
    if (removed != null) {
      removed.resign();
    }
    try {
      logManager.deleteLog(tp);
      logger.info("Deleted partition {}", tp);
    } catch (RuntimeException e) {
      logger.error("Could not delete the log of {}; it no longer serves here", tp, e);
    }
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
   * Appends each partition's batches as its leader (Kafka's ReplicaManager.appendRecords) and
   * answers per partition once {@code acks} is met: at once for acks 0 and 1; for {@code acks=all}
   * once the high watermark passes each partition's records, or {@code timeoutMs} has passed (then
   * REQUEST_TIMED_OUT: appended, outcome unknown). A partition that cannot be appended to (not led
   * here, too few in-sync replicas, a bad batch, a storage error) answers its error; the others are
   * appended regardless, as in Kafka.
   */
  public CompletableFuture<Map<TopicPartition, ProducePartitionResult>> appendRecords(
      Map<TopicPartition, ByteBuffer> entriesPerPartition, Acks acks, long timeoutMs) {
    Map<TopicPartition, ProducePartitionResult> results = new LinkedHashMap<>();
    Map<TopicPartition, Partition.AppendResult> waiting = new LinkedHashMap<>();
    long nowMs = time.monotonicMs(); // one clock read per request, for every partition's bytes-in
    for (Map.Entry<TopicPartition, ByteBuffer> entry : entriesPerPartition.entrySet()) {
      TopicPartition tp = entry.getKey();
      try {
        Partition partition = leaderPartition(tp);
        Partition.AppendResult appended = partition.appendRecordsAsLeader(entry.getValue(), acks);
        partition.bytesIn().record(appended.info().sizeInBytes(), nowMs);
        ProducePartitionResult now = DelayedProduce.settled(appended);
        if (now != null) {
          results.put(tp, now);
        } else {
          waiting.put(tp, appended);
          results.put(tp, null); // keeps the request's order; filled in once acknowledged
        }
      } catch (RuntimeException e) {
        results.put(
            tp,
            ProducePartitionResult.failed(PartitionErrors.errorFor(tp, e), Errors.messageOf(e)));
      }
    }
    if (waiting.isEmpty()) {
      return CompletableFuture.completedFuture(results);
    }
    return new DelayedProduce(waiting, results, timeoutMs)
        .start(scheduler)
        .thenApplyAsync(done -> done, delayedCompletionExecutor);
  }

  /**
   * Reads each partition as its leader (Kafka's ReplicaManager.fetchMessages): whole batches as
   * stored, within the fetch's byte limits, up to the log end for a follower and the high watermark
   * for a consumer. When fewer than {@code params.minBytes()} are there and nothing failed, waits
   * up to {@code params.maxWaitMs()} for more ({@link DelayedFetch}: completed by appends and high
   * watermark moves, holding no thread). A follower's fetch also tells this leader how far the
   * follower has got (ISR and high watermark).
   *
   * @throws StaleBrokerEpochException a follower that is not the current registration of its broker
   *     id (a stale incarnation or a stranger): it may not move a high watermark or join an ISR, so
   *     the whole fetch is refused
   */
  public CompletableFuture<List<FetchPartitionData>> fetchMessages(
      FetchParams params, List<PartitionFetch> fetches) {
    if (params.isFromFollower()
        && !isCurrentRegistration(params.replicaId(), params.replicaEpoch())) {
      throw new StaleBrokerEpochException(
          "Broker "
              + params.replicaId()
              + " fetched with broker epoch "
              + params.replicaEpoch()
              + ", which is not its current registration");
    }
    List<FetchPartitionData> now = readFromLocalLog(params, fetches);
    if (params.maxWaitMs() <= 0
        || fetches.isEmpty()
        || draining
        || DelayedFetch.satisfies(params, now)) {
      return CompletableFuture.completedFuture(now);
    }
    return new DelayedFetch(
            params,
            fetches,
            fetch -> watchable(params, fetch),
            () -> readFromLocalLog(params, fetches),
            delayedCompletionExecutor)
        .start(now, scheduler);
  }

  private DelayedFetch.Watchable watchable(FetchParams params, PartitionFetch fetch) {
    Partition partition = partitions.get(fetch.topicPartition());
    if (partition == null) {
      return null;
    }
    return params.isFromFollower()
        ? partition::awaitLogEndOffsetAbove
        : partition::awaitHighWatermarkAbove;
  }

  /**
   * One read of every partition, in order. The byte budget is Kafka's: the first partition with
   * data returns at least one whole batch; after that, partitions share what is left of {@code
   * params.maxBytes()}.
   */
  private List<FetchPartitionData> readFromLocalLog(
      FetchParams params, List<PartitionFetch> fetches) {
    long nowMs = time.monotonicMs(); // a follower's fetch time, for its ISR lag
    MetadataImage current = image;
    boolean followerEligible = params.isFromFollower() && current.isUnfenced(params.replicaId());
    int budget = params.maxBytes();
    boolean minOneBatch = true;
    List<FetchPartitionData> answers = new ArrayList<>(fetches.size());
    for (PartitionFetch fetch : fetches) {
      TopicPartition tp = fetch.topicPartition();
      FetchPartitionData answer;
      try {
        Partition partition = leaderPartition(tp);
        // A follower copying a throttled replica outside the ISR gets no bytes while this leader
        // is over its leader.replication.throttled.rate (its fetch still counts: ISR, HW).
        ReplicationThrottles throttles = fetchers.throttles();
        boolean heldBack =
            params.isFromFollower()
                && throttles.leaderHoldsBack(tp, partition.isr(), params.replicaId(), nowMs);
        answer =
            partition.fetchRecords(
                params,
                fetch,
                heldBack ? 0 : Math.min(fetch.maxBytes(), budget),
                minOneBatch && !heldBack,
                followerEligible,
                nowMs);
        if (params.isFromFollower()) {
          throttles.leaderSent(
              tp, partition.isr(), params.replicaId(), answer.sizeInBytes(), nowMs);
        }
      } catch (OffsetOutOfRangeException e) {
        // The fetcher learns the leader's offsets, to truncate or restart its log from them.
        answer = FetchPartitionData.outOfRange(partitions.get(tp), Errors.messageOf(e));
      } catch (RuntimeException e) {
        PartitionImage placement = PartitionErrors.placement(current, tp);
        answer =
            FetchPartitionData.error(
                tp,
                PartitionErrors.errorFor(tp, e),
                Errors.messageOf(e),
                placement == null ? -1 : placement.leader(),
                placement == null ? -1 : placement.leaderEpoch());
      }
      if (answer.sizeInBytes() > 0) {
        budget = Math.max(0, budget - answer.sizeInBytes());
        minOneBatch = false;
      }
      answers.add(answer);
    }
    return answers;
  }

  /**
   * ListOffsets for one partition this broker leads; see {@link Partition#fetchOffsetForTimestamp}.
   * Empty when no committed record matches the timestamp.
   */
  public Optional<TimestampAndOffset> fetchOffsetForTimestamp(
      TopicPartition tp, long timestampMs, int currentLeaderEpoch) {
    return leaderPartition(tp).fetchOffsetForTimestamp(timestampMs, currentLeaderEpoch);
  }

  /**
   * OffsetsForLeaderEpoch for one partition this broker leads: where {@code leaderEpoch} ends in
   * its log, for a fetcher in {@code currentLeaderEpoch} (-1: no check).
   */
  public EpochEndOffset lastOffsetForLeaderEpoch(
      TopicPartition tp, int currentLeaderEpoch, int leaderEpoch) {
    return leaderPartition(tp).endOffsetForEpoch(currentLeaderEpoch, leaderEpoch);
  }

  /**
   * True if broker {@code brokerId}'s registration in this broker's metadata has {@code
   * brokerEpoch}: a sender with another is a stale incarnation or a stranger.
   */
  public boolean isCurrentRegistration(int brokerId, long brokerEpoch) {
    Optional<BrokerImage> broker = image.broker(brokerId);
    return broker.isPresent() && broker.get().brokerEpoch() == brokerEpoch;
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
    highWatermarkCheckpoints.write(partitions.values());
  }

  /** The last metadata image this replica manager has applied (routing uses this one). */
  public MetadataImage metadataImage() {
    return image;
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
    try {
      highWatermarkCheckpoints.write(partitions.values());
    } catch (LogStorageException e) {
      logger.warn("Could not checkpoint the high watermarks at shutdown: {}", e.getMessage());
    }
  }
}
