package dev.tributary.metadata;

import java.util.List;
import java.util.Map;

/**
 * One topic of a create request, as the controller validates it (Kafka's {@code CreatableTopic}).
 * Either placed automatically ({@code assignments} empty: {@code partitions} partitions of {@code
 * replicationFactor} replicas over the live brokers) or by hand: partition {@code i} on {@code
 * assignments.get(i)}, whose first broker is its preferred leader; then {@code partitions} and
 * {@code replicationFactor} are {@link #FROM_ASSIGNMENTS}.
 *
 * @param configs the topic's own settings (overrides of {@link dev.tributary.log.LogConfig}'s
 *     defaults)
 */
public record NewTopic(
    String name,
    int partitions,
    int replicationFactor,
    List<List<Integer>> assignments,
    Map<String, String> configs) {
  /** Kafka's -1: "from the assignments", or, before defaults are applied, "the broker default". */
  public static final int FROM_ASSIGNMENTS = -1;

  public NewTopic {
    assignments = assignments.stream().map(List::copyOf).toList();
    configs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(configs));
  }

  /** A topic placed automatically. */
  public static NewTopic placed(
      String name, int partitions, int replicationFactor, Map<String, String> configs) {
    return new NewTopic(name, partitions, replicationFactor, List.of(), configs);
  }

  /** A topic placed by hand. */
  public static NewTopic assigned(
      String name, List<List<Integer>> assignments, Map<String, String> configs) {
    return new NewTopic(name, FROM_ASSIGNMENTS, FROM_ASSIGNMENTS, assignments, configs);
  }

  public boolean manuallyAssigned() {
    return !assignments.isEmpty();
  }

  /** The partitions it would have. */
  public int partitionCount() {
    return manuallyAssigned() ? assignments.size() : partitions;
  }

  /** Its replication factor (that of partition 0 when placed by hand). */
  public int replicationFactorOrFirst() {
    return manuallyAssigned() ? assignments.get(0).size() : replicationFactor;
  }

  /** The same topic with {@code configs} instead. */
  public NewTopic withConfigs(Map<String, String> newConfigs) {
    return new NewTopic(name, partitions, replicationFactor, assignments, newConfigs);
  }
}
