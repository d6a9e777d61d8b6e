package dev.tributary.group;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.OffsetFetchResult;
import dev.tributary.log.record.SimpleRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Answers OffsetCommit and OffsetFetch (after Kafka's {@code OffsetMetadataManager}); {@link
 * OffsetExpiration} removes offsets, {@link CoordinatorLoader} replays them.
 *
 * <p>A commit is validated as Kafka's classic coordinator does (a member of the current generation,
 * or generation -1 while the group has no members), written to the group's partition as one
 * OffsetCommit record per partition, and answered only once the records are committed: the group's
 * offsets in memory change then and not before, so an acknowledged commit survives any broker's
 * death while one in-sync replica of the partition does, and a fetch never shows an offset a new
 * coordinator would not load.
 *
 * <p>Invariant: {@code group.pendingOffsetCommits} counts this group's commits written and not yet
 * answered; it goes up here when the write starts and down when it is answered, whatever the
 * answer. {@link OffsetExpiration} does not expire a group while it is above zero.
 *
 * <p>Thread safety: each request takes the coordinator lock ({@link CoordinatorRuntime}'s monitor);
 * answers complete through {@link CoordinatorRuntime#complete}, never under the lock.
 */
final class OffsetMetadataManager {
  private final GroupCoordinatorConfig config;
  private final CoordinatorRuntime runtime;
  private final GroupRebalancer rebalancer;
  private final Time time;

  OffsetMetadataManager(
      GroupCoordinatorConfig config,
      CoordinatorRuntime runtime,
      GroupRebalancer rebalancer,
      Time time) {
    this.config = config;
    this.runtime = runtime;
    this.rebalancer = rebalancer;
    this.time = time;
  }

  CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    synchronized (runtime) {
      if (groupId == null || groupId.isBlank()) {
        return runtime.done(GroupError.INVALID_GROUP_ID);
      }
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(unavailable);
      }
      long nowMs = time.milliseconds();
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null) {
        if (generationId >= 0) {
          return runtime.done(GroupError.ILLEGAL_GENERATION);
        }
        group = new ConsumerGroup(groupId, nowMs);
        group.protocolType = ConsumerProtocol.PROTOCOL_TYPE;
        shard.groups.put(groupId, group);
      }
      if (group.is(GroupState.DEAD)) {
        return runtime.done(GroupError.COORDINATOR_NOT_AVAILABLE);
      }
      if (!(generationId < 0 && group.is(GroupState.EMPTY))) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
          return runtime.done(GroupError.REBALANCE_IN_PROGRESS);
        }
        GroupError unknown = group.validateMember(memberId, groupInstanceId);
        if (unknown != GroupError.NONE) {
          return runtime.done(unknown);
        }
        if (generationId != group.generationId) {
          return runtime.done(GroupError.ILLEGAL_GENERATION);
        }
        rebalancer.heartbeatReceived(group, group.members.get(memberId));
      }
      for (OffsetAndMetadata o : offsets.values()) {
        if (o.metadata().length() > config.offsetMetadataMaxBytes()) {
          return runtime.done(GroupError.OFFSET_METADATA_TOO_LARGE);
        }
      }
      if (offsets.isEmpty()) {
        return runtime.done(GroupError.NONE);
      }
      List<SimpleRecord> records = new ArrayList<>(offsets.size());
      offsets.forEach(
          (tp, o) ->
              records.add(
                  new SimpleRecord(
                      nowMs, GroupRecords.offsetKey(groupId, tp), GroupRecords.offsetValue(o))));
      ConsumerGroup target = group;
      Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
      target.pendingOffsetCommits++;
      CompletableFuture<GroupError> answer =
          runtime.appendAndThen(shard, records, () -> target.offsets.putAll(copy));
      answer.whenComplete((error, failure) -> onCommitAnswered(target));
      return answer;
    }
  }

  private void onCommitAnswered(ConsumerGroup group) {
    synchronized (runtime) {
      group.pendingOffsetCommits--;
    }
  }

  CompletableFuture<OffsetFetchResult> fetchOffsets(
      String groupId, List<TopicPartition> partitions) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(new OffsetFetchResult(unavailable, Map.of()));
      }
      ConsumerGroup group = shard.groups.get(groupId);
      Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
      if (group != null) {
        if (partitions == null) {
          out.putAll(group.offsets);
        } else {
          for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = group.offsets.get(tp);
            if (o != null) {
              out.put(tp, o);
            }
          }
        }
      }
      return runtime.done(new OffsetFetchResult(GroupError.NONE, out));
    }
  }
}
