package dev.tributary.group;

/**
 * The coordinator's settings, with Kafka's names and (except the partition count) its defaults.
 *
 * @param offsetsTopicPartitions {@code offsets.topic.num.partitions}: how many partitions {@code
 *     __consumer_offsets} has, and so how groups spread over coordinators (Kafka: 50; ours 10 for a
 *     laptop-sized cluster, see ADR 0013)
 * @param minSessionTimeoutMs {@code group.min.session.timeout.ms}
 * @param maxSessionTimeoutMs {@code group.max.session.timeout.ms}
 * @param initialRebalanceDelayMs {@code group.initial.rebalance.delay.ms}: how long the first
 *     rebalance of an empty group waits for more members
 * @param offsetMetadataMaxBytes {@code offset.metadata.max.bytes}
 * @param offsetsRetentionMs {@code offsets.retention.minutes} in ms: offsets of a group that has
 *     been empty this long are removed
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms}
 */
public record GroupCoordinatorConfig(
    int offsetsTopicPartitions,
    int minSessionTimeoutMs,
    int maxSessionTimeoutMs,
    int initialRebalanceDelayMs,
    int offsetMetadataMaxBytes,
    long offsetsRetentionMs,
    long offsetsRetentionCheckIntervalMs) {
  public static final String OFFSETS_TOPIC = "__consumer_offsets";

  public GroupCoordinatorConfig {
    if (offsetsTopicPartitions < 1) {
      throw new IllegalArgumentException("offsets.topic.num.partitions must be >= 1");
    }
    if (minSessionTimeoutMs < 1 || maxSessionTimeoutMs < minSessionTimeoutMs) {
      throw new IllegalArgumentException(
          "need 1 <= group.min.session.timeout.ms <= group.max.session.timeout.ms");
    }
  }

  public static GroupCoordinatorConfig defaults() {
    return new GroupCoordinatorConfig(
        10, 6_000, 1_800_000, 3_000, 4_096, 7L * 24 * 3600 * 1000, 600_000);
  }

  /** The partition of {@code __consumer_offsets} that holds {@code groupId}: Kafka's rule. */
  public int partitionFor(String groupId) {
    int hash = groupId.hashCode();
    return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % offsetsTopicPartitions;
  }
}
