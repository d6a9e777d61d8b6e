package dev.tributary.metadata;

import dev.tributary.common.Uuid;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One topic in the metadata image: immutable. Configs hold only the overrides; defaults come from
 * LogConfig.
 */
public record TopicImage(
    Uuid topicId,
    String name,
    SortedMap<Integer, PartitionImage> partitions,
    Map<String, String> configs) {
  public TopicImage {
    partitions = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    configs = Map.copyOf(configs);
  }

  /**
   * The partition, or Kafka's UNKNOWN_TOPIC_OR_PARTITION naming how many partitions the topic has.
   */
  public PartitionImage requirePartition(int partition) {
    PartitionImage found = partitions.get(partition);
    if (found == null) {
      throw dev.tributary.common.errors.UnknownTopicOrPartitionException.unknownPartition(
          name, partition, partitions.size());
    }
    return found;
  }

  public int partitionCount() {
    return partitions.size();
  }

  /** Replication factor: the replica count of partition 0 (all partitions of a topic share it). */
  public int replicationFactor() {
    return partitions.isEmpty() ? 0 : partitions.get(partitions.firstKey()).replicas().size();
  }

  TopicImage withPartition(PartitionImage partition) {
    TreeMap<Integer, PartitionImage> next = new TreeMap<>(partitions);
    next.put(partition.partition(), partition);
    return new TopicImage(topicId, name, next, configs);
  }

  TopicImage withConfig(String key, String value) {
    Map<String, String> next = new java.util.HashMap<>(configs);
    if (value == null) {
      next.remove(key);
    } else {
      next.put(key, value);
    }
    return new TopicImage(topicId, name, partitions, next);
  }
}
