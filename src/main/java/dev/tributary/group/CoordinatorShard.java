package dev.tributary.group;

import java.util.HashMap;
import java.util.Map;

/**
 * One partition of {@code __consumer_offsets} that this broker leads in {@link #leaderEpoch}, with
 * the groups whose ids hash to it (Kafka's {@code GroupCoordinatorShard}). {@link
 * CoordinatorLoader} creates it loading, replays the partition into it and opens it; when
 * leadership moves the shard is dropped, never reused: the next epoch gets a new shard object, so a
 * callback that holds an old shard knows it is stale by identity ({@link
 * CoordinatorRuntime#isCurrent}).
 *
 * <p>Guarded by the coordinator lock ({@link CoordinatorRuntime}'s monitor).
 */
final class CoordinatorShard {
  final int partition;
  final int leaderEpoch;

  /** The groups of this partition, by id. Empty while loading. */
  final Map<String, ConsumerGroup> groups = new HashMap<>();

  /**
   * True until the partition has been read back to its log end; requests meanwhile get
   * COORDINATOR_LOAD_IN_PROGRESS. Invariant: only goes from true to false ({@link #finishLoading}).
   */
  private boolean loading = true;

  CoordinatorShard(int partition, int leaderEpoch) {
    this.partition = partition;
    this.leaderEpoch = leaderEpoch;
  }

  boolean isLoading() {
    return loading;
  }

  /** The load is done: the shard answers requests from now on. */
  void finishLoading() {
    loading = false;
  }

  /** {@code __consumer_offsets-<partition>}, for logs and events. */
  String topicPartitionName() {
    return GroupCoordinatorConfig.OFFSETS_TOPIC + "-" + partition;
  }
}
