package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.SimpleRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the offsets, and then the group, of groups that have been empty for {@code
 * offsets.retention.minutes}, as Kafka does since KIP-211 (Kafka's offset expiration, run by its
 * periodic {@code cleanupGroupMetadata}): tombstones for every offset and for the group's metadata
 * are written, and once they are committed the group is forgotten (Dead); compaction later drops
 * the keys. A group is checked every {@code offsets.retention.check.interval.ms}. A group deleted
 * by request (DeleteGroups) goes the same way ({@link #remove}).
 *
 * <p>A group counts as last active at the later of the time it became empty and its newest commit:
 * a standalone consumer commits without joining, so its commits keep its offsets (Kafka expires
 * such offsets by commit timestamp). A group with a commit in flight is skipped, since its record
 * would land after the tombstones.
 *
 * <p>Thread safety: {@link #expireOffsets} takes the coordinator lock ({@link CoordinatorRuntime}'s
 * monitor) for the whole pass; the periodic check runs on {@code scheduler} and stops once the
 * coordinator is shut down.
 */
final class OffsetExpiration {
  private static final Logger logger = LoggerFactory.getLogger(OffsetExpiration.class);

  private final GroupCoordinatorConfig config;
  private final CoordinatorRuntime runtime;
  private final Time time;
  private final Scheduler scheduler;

  OffsetExpiration(
      GroupCoordinatorConfig config, CoordinatorRuntime runtime, Time time, Scheduler scheduler) {
    this.config = config;
    this.runtime = runtime;
    this.time = time;
    this.scheduler = scheduler;
  }

  /** Schedules the periodic check: every retention check interval until shutdown. */
  void scheduleRetentionCheck() {
    scheduler.schedule(
        config.offsetsRetentionCheckIntervalMs(),
        () -> {
          expireOffsets();
          synchronized (runtime) {
            if (runtime.isClosed()) {
              return;
            }
          }
          scheduleRetentionCheck();
        });
  }

  /** See {@link GroupCoordinator#expireOffsets}. */
  void expireOffsets() {
    synchronized (runtime) {
      long nowMs = time.milliseconds();
      for (CoordinatorShard shard : runtime.shards()) {
        if (shard.isLoading()) {
          continue;
        }
        for (ConsumerGroup group : List.copyOf(shard.groups.values())) {
          if (expired(group, nowMs)) {
            remove(shard, group, nowMs, "empty for longer than offsets.retention.minutes");
          }
        }
      }
    }
  }

  private boolean expired(ConsumerGroup group, long nowMs) {
    // Empty since stateTimestampMs; a standalone consumer commits without joining, so its newest
    // commit counts too (Kafka expires such offsets by commit timestamp).
    long lastActiveMs = group.stateTimestampMs;
    for (OffsetAndMetadata o : group.offsets.values()) {
      lastActiveMs = Math.max(lastActiveMs, o.commitTimestampMs());
    }
    return group.is(GroupState.EMPTY)
        && group.pendingOffsetCommits == 0 // a commit in flight would race the tombstones
        && nowMs - lastActiveMs >= config.offsetsRetentionMs();
  }

  /**
   * Writes tombstones for an Empty group's offsets and metadata (expiry, or a DeleteGroups); once
   * they are committed, forgets what they covered, and the group itself unless a commit landed
   * after them. Answers NONE once committed, else the write's error. Under the lock.
   */
  CompletableFuture<GroupError> remove(
      CoordinatorShard shard, ConsumerGroup group, long nowMs, String why) {
    Map<TopicPartition, OffsetAndMetadata> removing = Map.copyOf(group.offsets);
    List<SimpleRecord> tombstones = new ArrayList<>();
    for (TopicPartition tp : group.offsets.keySet()) {
      tombstones.add(new SimpleRecord(nowMs, GroupRecords.offsetKey(group.groupId, tp), null));
    }
    tombstones.add(new SimpleRecord(nowMs, GroupRecords.groupKey(group.groupId), null));
    return runtime.appendAndThen(
        shard,
        tombstones,
        () -> {
          // Only what the tombstones covered goes: a commit that landed after them (its record is
          // after theirs in the log, too) stays.
          removing.forEach((tp, o) -> group.offsets.remove(tp, o));
          if (group.is(GroupState.EMPTY)
              && group.offsets.isEmpty()
              && group.pendingOffsetCommits == 0
              && shard.groups.get(group.groupId) == group) {
            shard.groups.remove(group.groupId);
            group.transitionTo(GroupState.DEAD, time.milliseconds());
            logger.info("Removed group {}: {}", group.groupId, why);
          }
        });
  }
}
