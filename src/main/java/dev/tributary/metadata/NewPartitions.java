package dev.tributary.metadata;

import java.util.List;

/**
 * A request to grow a topic to {@code totalCount} partitions (Kafka's {@code
 * CreatePartitionsTopic}): the new partitions are placed automatically when {@code assignments} is
 * empty, else new partition {@code i} (counted from the first new one) on {@code
 * assignments.get(i)}, whose first broker is its preferred leader.
 */
public record NewPartitions(String topic, int totalCount, List<List<Integer>> assignments) {
  public NewPartitions {
    assignments = assignments.stream().map(List::copyOf).toList();
  }

  /** Grow to {@code totalCount}, placed automatically. */
  public static NewPartitions placed(String topic, int totalCount) {
    return new NewPartitions(topic, totalCount, List.of());
  }
}
