package dev.tributary.replication;

import dev.tributary.common.Scheduler;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashSet;
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
 * The partitions this broker hosts, kept in step with the metadata image: a partition placed on this broker gets
 * a log and (if this broker is its leader) leadership; when the image names another leader, or none (the partition
 * is offline), leadership is resigned and the log kept (a follower replica; it copies nothing until the
 * replication issue lands); a deleted topic's partitions are resigned and their logs removed. It answers produce
 * and fetch for the partitions it leads.
 *
 * <p>Concurrency: {@link #onMetadataUpdate} runs on whichever thread commits metadata (under the quorum's lock,
 * so one image at a time, in order); produce and fetch run on request threads and see partitions through a
 * concurrent map.
 */
public final class ReplicaManager {
  private static final Logger logger = LoggerFactory.getLogger(ReplicaManager.class);

  private final int localBrokerId;
  private final LogManager logManager;
  private final Scheduler scheduler;
  private final Executor delayedCompletionExecutor;
  private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
  private volatile MetadataImage image = MetadataImage.EMPTY;
  /** Set when the broker begins shutting down: long polls answer at once instead of waiting. */
  private volatile boolean draining;
  /** Set by {@link #shutdown}: later images are ignored. */
  private boolean closed;

  /**
   * @param delayedCompletionExecutor runs what follows a delayed completion (the re-read of a long poll, the
   *     response of an {@code acks=all} produce), so that neither the scheduler's thread nor the request thread
   *     whose append released the waiter does that work
   */
  public ReplicaManager(
      int localBrokerId, LogManager logManager, Scheduler scheduler, Executor delayedCompletionExecutor) {
    this.localBrokerId = localBrokerId;
    this.logManager = logManager;
    this.scheduler = scheduler;
    this.delayedCompletionExecutor = delayedCompletionExecutor;
  }

  /**
   * Applies a new metadata image: creates, leads, reconfigures and deletes partitions to match it. Runs on the
   * metadata apply thread, so it does no long I/O: deleting a log renames its directory and leaves the files to
   * the log manager's deletion executor. A partition that fails to apply is logged and skipped; the rest still
   * follow the image, and the image is always taken (requests route by it).
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
    for (var log : logManager.allLogs()) { // logs loaded at startup that the image no longer places here
      if (!wanted.contains(log.topicPartition())) {
        removePartition(log.topicPartition());
      }
    }
    this.image = next;
  }

  private void applyPlacement(TopicPartition tp, String topicId, LogConfig config, PartitionImage placement) {
    Partition partition = partitions.get(tp);
    if (partition != null && !partition.topicId().equals(topicId)) {
      // The topic was deleted and created again while this broker was not looking (a snapshot install, or it was
      // down): the old topic's partition and log go, the new one starts empty.
      removePartition(tp);
      partition = null;
    }
    if (partition == null) {
      partition = new Partition(tp, topicId, logManager.getOrCreateLog(tp, config, topicId), localBrokerId);
      partitions.put(tp, partition);
    }
    if (!partition.log().config().equals(config)) {
      partition.log().updateConfig(config);
    }
    if (placement.leader() == localBrokerId
        && (!partition.isLeader() || partition.leaderEpoch() != placement.leaderEpoch())) {
      partition.becomeLeader(placement.leaderEpoch(), placement.replicas(), placement.isr());
      logger.info("Became leader: {}", partition.statusLine());
    } else if (placement.leader() != localBrokerId && partition.isLeader()) {
      partition.resign();
      logger.info("Resigned leadership of {} to broker {} in leader epoch {}", tp, placement.leader(),
          placement.leaderEpoch());
    }
  }

  private void removePartition(TopicPartition tp) {
    Partition removed = partitions.remove(tp);
    if (removed != null) {
      removed.resign();
    }
    logManager.deleteLog(tp);
    logger.info("Deleted partition {}", tp);
  }

  /**
   * The partition {@code tp} if this broker leads it; otherwise the Kafka error a client would get: unknown topic
   * or partition, LEADER_NOT_AVAILABLE while the partition is offline, or NOT_LEADER_OR_FOLLOWER naming the leader.
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
          tp + " has no leader: every in-sync replica " + placement.isr() + " is on a fenced broker");
    }
    throw new NotLeaderOrFollowerException(
        "Broker " + localBrokerId + " is not the leader of " + tp + "; its leader is broker " + placement.leader(),
        OptionalInt.of(placement.leader()));
  }

  /**
   * Appends to one partition as leader. The future completes with the append's result once {@code acks} is
   * satisfied, or fails with a timeout after {@code timeoutMs} if replication does not catch up.
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
                result.acked()
                    .completeExceptionally(
                        new java.util.concurrent.TimeoutException(
                            "Timed out after " + timeoutMs + " ms waiting for in-sync replicas of " + tp)));
    return result
        .acked()
        .whenComplete((v, e) -> timeout.cancel())
        .thenApplyAsync(ignored -> result, delayedCompletionExecutor);
  }

  /**
   * Reads committed records from {@code offset}. If none are there yet, waits up to {@code maxWaitMs} for the high
   * watermark to pass {@code offset} (a long poll that parks no thread), then reads again.
   */
  public CompletableFuture<FetchResult> fetch(TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    return fetch(leaderPartition(tp), offset, maxBytes, maxWaitMs);
  }

  /** As {@link #fetch(TopicPartition, long, int, long)}, for a partition the caller already looked up. */
  public CompletableFuture<FetchResult> fetch(Partition partition, long offset, int maxBytes, long maxWaitMs) {
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
        partition.topicPartition(), read.info().records(), read.highWatermark(), partition.logStartOffset(),
        partition.logEndOffset());
  }

  /** What a fetch returns: whole batches (possibly none) plus the partition's offsets at the time of the read. */
  public record FetchResult(
      TopicPartition topicPartition, ByteBuffer records, long highWatermark, long logStartOffset,
      long logEndOffset) {}

  /** Runs retention and flushes (via the log manager), then lets partitions see their new log start offsets. */
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

  /** Resigns every partition so waiting requests fail fast; the log manager is shut down by its owner. */
  public synchronized void shutdown() {
    closed = true;
    partitions.values().forEach(Partition::resign);
  }
}
