package dev.tributary.metadata;

import dev.tributary.common.TopicName;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidReplicationFactorException;
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
 * Controller logic for topics (Kafka's ReplicationControlManager): validates a request against the
 * current image and <em>computes</em> the records that carry it out. It changes nothing itself; the
 * records take effect when the quorum commits and every broker replays them. Pure: no I/O,
 * randomness injected.
 */
public final class TopicControl {
  /**
   * Kafka's limit on partitions per topic request is far higher; ours keeps one broker's file
   * handles sane.
   */
  public static final int MAX_PARTITIONS = 10_000;

  private final Random random;

  public TopicControl(Random random) {
    this.random = random;
  }

  /**
   * Records that create {@code name} with replicas on the unfenced brokers of {@code image}; throws
   * an {@link dev.tributary.common.errors.ApiException} if invalid (an {@link
   * InvalidReplicationFactorException} if fewer brokers are alive than {@code replicationFactor}).
   */
  public List<MetadataRecord> createTopic(
      MetadataImage image,
      String name,
      int partitionCount,
      int replicationFactor,
      Map<String, String> configs) {
    return createTopic(
        image,
        name,
        partitionCount,
        replicationFactor,
        configs,
        aliveBrokers(image, replicationFactor));
  }

  /**
   * As {@link #createTopic(MetadataImage, String, int, int, Map)} but placing over exactly {@code
   * liveBrokers} (sorted ids), whatever the image says about them: for tests that place partitions
   * by hand.
   */
  public List<MetadataRecord> createTopic(
      MetadataImage image,
      String name,
      int partitionCount,
      int replicationFactor,
      Map<String, String> configs,
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
    configs.forEach(
        (key, value) -> records.add(new MetadataRecord.TopicConfigChanged(topicId, key, value)));
    for (int p = 0; p < partitionCount; p++) {
      records.add(newPartition(topicId, p, assignment.get(p)));
    }
    return records;
  }

  /**
   * Records that grow {@code name} to {@code newTotal} partitions (Kafka's CreatePartitions),
   * placed on the unfenced brokers of {@code image}.
   */
  public List<MetadataRecord> createPartitions(MetadataImage image, String name, int newTotal) {
    return createPartitions(
        image, name, newTotal, aliveBrokers(image, requireTopic(image, name).replicationFactor()));
  }

  /**
   * As {@link #createPartitions(MetadataImage, String, int)} but placing over exactly {@code
   * liveBrokers}.
   */
  public List<MetadataRecord> createPartitions(
      MetadataImage image, String name, int newTotal, List<Integer> liveBrokers) {
    TopicImage topic = requireTopic(image, name);
    checkPartitionCount(newTotal);
    int current = topic.partitionCount();
    if (newTotal <= current) {
      throw new InvalidPartitionsException(
          "Topic '"
              + name
              + "' has "
              + current
              + " partitions; the count can only grow, not become "
              + newTotal);
    }
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(
            liveBrokers, current, newTotal - current, topic.replicationFactor(), random);
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
   * Records that set ({@code value != null}) or reset ({@code value == null}) one topic config. The
   * resulting set of overrides is validated as a whole, so an invalid value changes nothing.
   */
  public List<MetadataRecord> alterConfig(
      MetadataImage image, String name, String key, String value) {
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

  /**
   * The unfenced brokers, refusing a replication factor above their count here (rather than in
   * {@link ReplicaPlacement}) so that the message can say how many brokers are alive and how many
   * are registered.
   */
  private static List<Integer> aliveBrokers(MetadataImage image, int replicationFactor) {
    List<Integer> alive = image.unfencedBrokerIds();
    if (replicationFactor > alive.size()) {
      throw new InvalidReplicationFactorException(
          "Replication factor "
              + replicationFactor
              + " is larger than the number of alive (unfenced) brokers: "
              + alive.size()
              + " of "
              + image.brokers().size()
              + " registered broker(s) are alive");
    }
    return alive;
  }

  private static MetadataRecord.PartitionChange newPartition(
      Uuid topicId, int partition, List<Integer> replicas) {
    // The preferred (first) replica leads; every replica starts in sync, as in Kafka: the log is
    // empty, so all of
    // them have everything the leader has.
    return new MetadataRecord.PartitionChange(
        topicId, partition, replicas, replicas, replicas.get(0), 0, 0);
  }

  private static void checkPartitionCount(int partitionCount) {
    if (partitionCount < 1 || partitionCount > MAX_PARTITIONS) {
      throw new InvalidPartitionsException(
          "Number of partitions must be between 1 and "
              + MAX_PARTITIONS
              + ", got "
              + partitionCount);
    }
  }

  static TopicImage requireTopic(MetadataImage image, String name) {
    return image.topic(name).orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(name));
  }
}
