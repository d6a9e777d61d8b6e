package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The group coordinator of one broker: Kafka's classic protocol (join, sync, heartbeat, leave,
 * offset commit and fetch) for every group whose {@code __consumer_offsets} partition this broker
 * leads. Each such partition is a <em>shard</em>: becoming its leader loads the shard by reading
 * the partition back ({@link #onBecomeLeader}); losing leadership drops it ({@link #onResign}), and
 * whichever broker leads next rebuilds the same state from the same records. There is no other
 * replication of group state.
 *
 * <p>What is written, and when (with {@code acks=all}, through {@link CoordinatorLog}): an offset
 * commit's records before the commit is answered (the in-memory offsets change only once they are
 * committed, so an acknowledged commit survives any broker's death while one in-sync replica of the
 * partition does); a group's metadata when a generation's assignment is synced and when the group
 * becomes empty. Member liveness (heartbeats) is memory only, as in Kafka: a new coordinator gives
 * each stored member a fresh session timeout.
 *
 * <p>This class is the entry point and holds no logic; the parts, along the lines Kafka drew in its
 * {@code group-coordinator} module:
 *
 * <ul>
 *   <li>{@link CoordinatorRuntime}: the shard table and its epochs, the coordinator lock, the write
 *       path to the log, the executor that answers, the recent events;
 *   <li>{@link CoordinatorLoader}: loading a shard by replaying its partition, and unloading it;
 *   <li>{@link GroupMetadataManager}: the join, sync, heartbeat, leave and describe requests;
 *   <li>{@link GroupRebalancer}: the group state machine ({@link GroupState}), its join and session
 *       timers;
 *   <li>{@link OffsetMetadataManager}: offset commit and fetch;
 *   <li>{@link OffsetExpiration}: offset retention, checked periodically.
 * </ul>
 *
 * <p>Concurrency: one lock, the runtime's monitor, guards every shard and group; every part takes
 * it and none has another, so there is no lock order among them (the order towards the scheduler
 * and the log is in {@link CoordinatorRuntime}). Futures are completed on {@code completions},
 * never under the lock, so a caller's continuation cannot re-enter or stall the coordinator. Timers
 * run on {@code scheduler}; all time comes from {@code time}, so tests drive it with a manual
 * clock. Loads run on {@code loader}. Every public method is safe to call from any thread.
 */
public final class GroupCoordinator implements CoordinatorApi {
  private final GroupCoordinatorConfig config;
  private final CoordinatorRuntime runtime;
  private final CoordinatorLoader loader;
  private final GroupMetadataManager groups;
  private final OffsetMetadataManager offsets;
  private final OffsetExpiration expiration;

  public GroupCoordinator(
      GroupCoordinatorConfig config,
      CoordinatorLog log,
      Time time,
      Scheduler scheduler,
      Random random,
      Executor completions,
      Executor loader) {
    this.config = config;
    this.runtime = new CoordinatorRuntime(config, log, completions);
    GroupRebalancer rebalancer = new GroupRebalancer(config, runtime, time, scheduler);
    this.loader = new CoordinatorLoader(runtime, rebalancer, log, time, scheduler, loader);
    this.groups = new GroupMetadataManager(config, runtime, rebalancer, time, scheduler, random);
    this.offsets = new OffsetMetadataManager(config, runtime, rebalancer, time);
    this.expiration = new OffsetExpiration(config, runtime, time, scheduler);
    expiration.scheduleRetentionCheck();
  }

  public GroupCoordinatorConfig config() {
    return config;
  }

  // ---------------------------------------------------------------------------------------------
  // shards

  /**
   * This broker now leads {@code partition} of {@code __consumer_offsets} in {@code leaderEpoch}:
   * (re)load its groups in the background. Requests for them get COORDINATOR_LOAD_IN_PROGRESS until
   * the load is done. Harmless if already loaded in this epoch.
   */
  public void onBecomeLeader(int partition, int leaderEpoch) {
    loader.onBecomeLeader(partition, leaderEpoch);
  }

  /** This broker no longer leads {@code partition}: its groups go to whoever does. */
  public void onResign(int partition) {
    loader.onResign(partition);
  }

  /** The partitions this coordinator has loaded or is loading, with their leader epochs. */
  public Map<Integer, Integer> shardEpochs() {
    synchronized (runtime) {
      Map<Integer, Integer> out = new HashMap<>();
      runtime.shards().forEach(s -> out.put(s.partition, s.leaderEpoch));
      return out;
    }
  }

  /** Unloads every shard (waiting members are told NOT_COORDINATOR) and stops the timers. */
  public void shutdown() {
    loader.shutdown();
  }

  // ---------------------------------------------------------------------------------------------
  // the classic protocol

  @Override
  public CompletableFuture<JoinResult> joinGroup(JoinRequest request) {
    return groups.joinGroup(request);
  }

  @Override
  public CompletableFuture<SyncResult> syncGroup(SyncRequest request) {
    return groups.syncGroup(request);
  }

  @Override
  public CompletableFuture<GroupError> heartbeat(
      String groupId, String memberId, int generationId) {
    return heartbeat(groupId, memberId, null, generationId);
  }

  @Override
  public CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String reason) {
    return leaveGroup(groupId, List.of(new LeavingMember(memberId, null, reason)))
        .thenApply(r -> r.error() != GroupError.NONE ? r.error() : r.memberErrors().get(0));
  }

  @Override
  public CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    return commitOffsets(groupId, memberId, null, generationId, offsets);
  }

  // ---------------------------------------------------------------------------------------------
  // the classic protocol with static members, and DeleteGroups: for the Kafka listener, whose
  // clients find their coordinator themselves and so always call this broker's own

  /** A heartbeat; {@code groupInstanceId} names a static member (KIP-345), or is null. */
  public CompletableFuture<GroupError> heartbeat(
      String groupId, String memberId, String groupInstanceId, int generationId) {
    return groups.heartbeat(groupId, memberId, groupInstanceId, generationId);
  }

  /**
   * One member leaving (LeaveGroup v3+ batches them): by its member id, and its instance id if
   * static; or by instance id alone, with an empty member id (an admin removing a static member).
   */
  public record LeavingMember(String memberId, String groupInstanceId, String reason) {}

  /**
   * A leave's answer: {@code error} when the coordinator could not take it at all, else NONE and
   * one error per member, in request order.
   */
  public record LeaveResult(GroupError error, List<GroupError> memberErrors) {}

  public CompletableFuture<LeaveResult> leaveGroup(String groupId, List<LeavingMember> leaving) {
    return groups.leaveGroup(groupId, leaving);
  }

  /** {@link #commitOffsets(String, String, int, Map)} from a static member, or null. */
  public CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      String groupInstanceId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    return this.offsets.commitOffsets(groupId, memberId, groupInstanceId, generationId, offsets);
  }

  /**
   * Deletes an Empty group and its committed offsets (Kafka's DeleteGroups): GROUP_ID_NOT_FOUND if
   * there is none, NON_EMPTY_GROUP while it has members; NONE once the tombstones are committed.
   */
  public CompletableFuture<GroupError> deleteGroup(String groupId) {
    return groups.deleteGroup(groupId, expiration);
  }

  @Override
  public CompletableFuture<OffsetFetchResult> fetchOffsets(
      String groupId, List<TopicPartition> partitions) {
    return offsets.fetchOffsets(groupId, partitions);
  }

  @Override
  public CompletableFuture<DescribeResult> describeGroup(String groupId) {
    return groups.describeGroup(groupId);
  }

  @Override
  public CompletableFuture<List<GroupListing>> listGroups() {
    synchronized (runtime) {
      List<GroupListing> out = new ArrayList<>();
      for (CoordinatorShard shard : runtime.shards()) {
        for (ConsumerGroup g : shard.groups.values()) {
          out.add(
              new GroupListing(
                  g.groupId,
                  g.state(),
                  g.protocolType == null ? "" : g.protocolType,
                  shard.partition));
        }
      }
      out.sort(Comparator.comparing(GroupListing::groupId));
      return runtime.done(out);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // views and housekeeping

  /** Every group this coordinator has loaded, described, with its committed offsets. */
  public List<LoadedGroup> loadedGroups() {
    synchronized (runtime) {
      List<LoadedGroup> out = new ArrayList<>();
      for (CoordinatorShard shard : runtime.shards()) {
        if (shard.isLoading()) {
          continue;
        }
        for (ConsumerGroup g : shard.groups.values()) {
          out.add(
              new LoadedGroup(
                  GroupMetadataManager.describe(g, shard.partition),
                  Map.copyOf(g.offsets),
                  g.stateTimestampMs));
        }
      }
      out.sort(Comparator.comparing(l -> l.group().groupId()));
      return out;
    }
  }

  /** A loaded group with its committed offsets and when it entered its current state. */
  public record LoadedGroup(
      GroupDescription group,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      long stateTimestampMs) {}

  /** The most recent group events, oldest first (at most 200). */
  public List<GroupEvent> recentEvents() {
    return runtime.recentEvents();
  }

  /**
   * Removes the offsets (and metadata) of groups that have been empty for {@code
   * offsets.retention.minutes}, as Kafka does since KIP-211: tombstones are written, then
   * compaction drops the keys. Runs every {@code offsets.retention.check.interval.ms} by itself;
   * public for tests and tools.
   */
  public void expireOffsets() {
    expiration.expireOffsets();
  }
}
