package dev.tributary.metadata;

import dev.tributary.common.TopicName;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Controller logic for topics (Kafka's ReplicationControlManager): validates a request against the current image
 * and <em>computes</em> the records that carry it out. It changes nothing itself; the records take effect when the
 * quorum commits and every broker replays them. Pure: no I/O, randomness injected.
 */
public final class TopicControl {
  /** Kafka's limit on partitions per topic request is far higher; ours keeps one broker's file handles sane. */
  public static final int MAX_PARTITIONS = 10_000;

  private final Random random;

  public TopicControl(Random random) {
    this.random = random;
  }

  /** Records that create {@code name}; throws an {@link dev.tributary.common.errors.ApiException} if invalid. */
  public List<MetadataRecord> createTopic(
      MetadataImage image, String name, int partitionCount, int replicationFactor, Map<String, String> configs,
      List<Integer> liveBrokers) {
    String problem = TopicName.problemWith(name);
    if (problem != null) {
      throw new InvalidTopicException(problem);
    }
    if (image.topic(name).isPresent()) {
      throw new TopicExistsException("Topic '" + name + "' already exists.");
    }
    checkPartitionCount(partitionCount);
    LogConfig.fromMap(configs); // throws InvalidConfigException naming the bad config
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(liveBrokers, 0, partitionCount, replicationFactor, random);
    Uuid topicId = Uuid.random(random);
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new MetadataRecord.TopicCreated(topicId, name));
    configs.forEach((key, value) -> records.add(new MetadataRecord.TopicConfigChanged(topicId, key, value)));
    for (int p = 0; p < partitionCount; p++) {
      records.add(newPartition(topicId, p, assignment.get(p)));
    }
    return records;
  }

  /** Records that grow {@code name} to {@code newTotal} partitions (Kafka's CreatePartitions). */
  public List<MetadataRecord> createPartitions(
      MetadataImage image, String name, int newTotal, List<Integer> liveBrokers) {
    TopicImage topic = requireTopic(image, name);
    checkPartitionCount(newTotal);
    int current = topic.partitionCount();
    if (newTotal <= current) {
      throw new InvalidPartitionsException(
          "Topic '" + name + "' has " + current + " partitions; the count can only grow, not become " + newTotal);
    }
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(liveBrokers, current, newTotal - current, topic.replicationFactor(), random);
    List<MetadataRecord> records = new ArrayList<>();
    for (int i = 0; i < assignment.size(); i++) {
      records.add(newPartition(topic.topicId(), current + i, assignment.get(i)));
    }
    return records;
  }

  public List<MetadataRecord> deleteTopic(MetadataImage image, String name) {
    return List.of(new MetadataRecord.TopicDeleted(requireTopic(image, name).topicId()));
  }

  /**
   * Records that set ({@code value != null}) or reset ({@code value == null}) one topic config. The resulting set
   * of overrides is validated as a whole, so an invalid value changes nothing.
   */
  public List<MetadataRecord> alterConfig(MetadataImage image, String name, String key, String value) {
    TopicImage topic = requireTopic(image, name);
    Map<String, String> next = new HashMap<>(topic.configs());
    if (value == null) {
      if (!LogConfig.names().contains(key)) {
        throw new InvalidConfigException("Unknown topic config '" + key + "'");
      }
      next.remove(key);
    } else {
      next.put(key, value);
    }
    LogConfig.fromMap(next);
    return List.of(new MetadataRecord.TopicConfigChanged(topic.topicId(), key, value));
  }

  private static MetadataRecord.PartitionChange newPartition(Uuid topicId, int partition, List<Integer> replicas) {
    // The preferred (first) replica leads; all replicas start in sync since every log starts empty.
    return new MetadataRecord.PartitionChange(topicId, partition, replicas, replicas, replicas.get(0), 0, 0);
  }

  private static void checkPartitionCount(int partitionCount) {
    if (partitionCount < 1 || partitionCount > MAX_PARTITIONS) {
      throw new InvalidPartitionsException(
          "Number of partitions must be between 1 and " + MAX_PARTITIONS + ", got " + partitionCount);
    }
  }

  static TopicImage requireTopic(MetadataImage image, String name) {
    return image
        .topic(name)
        .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(name));
  }
}
