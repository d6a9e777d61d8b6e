package dev.tributary.consumer;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.consumer.SubscriptionState.Consumed;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offsets side of Kafka's {@code ConsumerCoordinator} for one consumer instance: commits asked
 * for by the client, automatic ones ({@code auto.commit.enable}: every {@code
 * auto.commit.interval.ms}, before partitions are revoked, on unsubscribe and close), the group's
 * committed offsets, and the positions of newly assigned partitions taken from them (Kafka's {@code
 * refreshCommittedOffsetsIfNeeded}).
 *
 * <p>Thread-safety: this object's lock guards {@link #lastCommitted} and {@link #lastAutoCommitMs}
 * only, and is never held while calling out: it is a leaf in the lock order {@link
 * ConsumerInstance} → {@link SubscriptionState} → {@link GroupMembership}. Its methods may be
 * called with the consumer instance's lock held (the instance sends its auto-commits under it) but
 * not with the subscription state's: they read positions through it.
 */
final class OffsetCommitter {
  private static final Logger logger = LoggerFactory.getLogger(OffsetCommitter.class);

  private final String groupId;
  private final String instanceId;
  private final ConsumerSettings settings;
  private final CoordinatorApi coordinator;
  private final SubscriptionState subscriptions;
  private final Time time;
  private final Scheduler scheduler;

  /**
   * The offset last committed per partition, to skip auto-commits that change nothing. Only commits
   * the coordinator accepted enter it.
   */
  private final Map<TopicPartition, Long> lastCommitted = new HashMap<>();

  /**
   * When the last auto-commit was due (at first, when the instance was created), on the monotonic
   * clock: the interval must not stretch or vanish when the wall clock jumps.
   */
  private long lastAutoCommitMs;

  OffsetCommitter(
      String groupId,
      String instanceId,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      SubscriptionState subscriptions,
      Time time,
      Scheduler scheduler) {
    this.groupId = groupId;
    this.instanceId = instanceId;
    this.settings = settings;
    this.coordinator = coordinator;
    this.subscriptions = subscriptions;
    this.time = time;
    this.scheduler = scheduler;
    this.lastAutoCommitMs = time.monotonicMs();
  }

  /**
   * Commits {@code offsets} (the next offset to read, per partition), or, if null, the position of
   * every assigned partition: everything returned so far. Fails at once, before sending anything,
   * if a subscribed consumer is between generations or an offset is negative.
   */
  CompletableFuture<Void> commit(Map<TopicPartition, Long> offsets) {
    Consumed consumed = subscriptions.consumed();
    if (consumed.betweenGenerations()) {
      throw new CommitFailedException(
          "The consumer is not a member of group "
              + groupId
              + " right now (it is rebalancing); poll for records, then commit");
    }
    if (offsets != null) {
      offsets.forEach(
          (tp, offset) -> {
            if (offset < 0) {
              throw new InvalidRequestException(
                  "A committed offset is >= 0, got " + offset + " for " + tp);
            }
          });
    }
    return sendCommit(
            consumed.memberId(),
            consumed.generationId(),
            offsets == null ? consumed.positions() : offsets)
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

  /**
   * Auto-commits the assigned partitions' positions if {@code auto.commit.interval.ms} is up at
   * {@code nowMs} (monotonic).
   */
  void maybeAutoCommit(long nowMs) {
    if (!settings.autoCommitEnable()) {
      return;
    }
    synchronized (this) {
      if (nowMs - lastAutoCommitMs < settings.autoCommitIntervalMs()) {
        return;
      }
      lastAutoCommitMs = nowMs;
    }
    commitConsumed(subscriptions.consumed());
  }

  /**
   * Commits the positions in {@code consumed} that moved since they were last committed; async,
   * failures logged. Nothing is sent for a subscribed consumer between generations.
   */
  CompletableFuture<Void> commitConsumed(Consumed consumed) {
    Map<TopicPartition, Long> changed = new LinkedHashMap<>();
    synchronized (this) {
      consumed
          .positions()
          .forEach(
              (tp, position) -> {
                if (!position.equals(lastCommitted.get(tp))) {
                  changed.put(tp, position);
                }
              });
    }
    if (changed.isEmpty() || consumed.betweenGenerations()) {
      return CompletableFuture.completedFuture(null);
    }
    return sendCommit(consumed.memberId(), consumed.generationId(), changed)
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
  CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(
      List<TopicPartition> partitions) {
    return coordinator
        .fetchOffsets(groupId, partitions)
        .thenApply(
            result -> {
              CoordinatorNotAvailableException.requireAnswered(groupId, result.error());
              return result.offsets();
            });
  }

  /**
   * Positions those of {@code partitions} that have neither a position nor a pending reset at the
   * group's committed offset, or marks them for {@code auto.offset.reset} if there is none. While
   * the coordinator cannot answer (moving, loading, its topic being created) asks again every
   * {@link GroupMembership#RETRY_BACKOFF_MS} until {@code deadlineMs} (monotonic); after that the
   * call goes on with what the other partitions have, and these get positions on a later call.
   */
  CompletableFuture<Void> refreshCommittedOffsetsIfNeeded(
      List<TopicPartition> partitions, long epoch, long deadlineMs) {
    List<TopicPartition> initializing = subscriptions.initializingPartitions(partitions);
    if (initializing.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return coordinator
        .fetchOffsets(groupId, initializing)
        .thenCompose(
            result -> {
              if (result.error() == GroupError.NONE) {
                subscriptions.maybeSeekToCommitted(
                    epoch, initializing, result.offsets(), settings.autoOffsetReset());
                return CompletableFuture.completedFuture(null);
              }
              if (deadlineMs - time.monotonicMs() <= GroupMembership.RETRY_BACKOFF_MS) {
                return CompletableFuture.completedFuture(null);
              }
              CompletableFuture<Void> later = new CompletableFuture<>();
              scheduler.schedule(GroupMembership.RETRY_BACKOFF_MS, () -> later.complete(null));
              return later.thenCompose(
                  ignored -> refreshCommittedOffsetsIfNeeded(partitions, epoch, deadlineMs));
            });
  }
}
