package dev.tributary.metadata;

import dev.tributary.common.TopicName;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

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
    return createTopic(image, NewTopic.placed(name, partitionCount, replicationFactor, configs));
  }

  /**
   * As {@link #createTopic(MetadataImage, String, int, int, Map)} but placing over exactly {@code
   * liveBrokers} (sorted ids), whatever the image says about their fencing (their racks still
   * count): for tests that place partitions by hand.
   */
  public List<MetadataRecord> createTopic(
      MetadataImage image,
      String name,
      int partitionCount,
      int replicationFactor,
      Map<String, String> configs,
      List<Integer> liveBrokers) {
    NewTopic topic = NewTopic.placed(name, partitionCount, replicationFactor, configs);
    checkNewTopic(image, topic);
    checkPartitionCount(partitionCount);
    return newTopicRecords(
        topic,
        ReplicaPlacement.assign(
            liveBrokers, image.brokerRacks(), 0, partitionCount, replicationFactor, random),
        null);
  }

  /**
   * Records that create {@code topic} (Kafka's CreateTopics), checked in Kafka's order: the name,
   * that it does not exist yet, the configs, then the placement. Placed automatically over the
   * unfenced brokers (rack-aware when they have racks: {@link ReplicaPlacement}), or as {@link
   * NewTopic#assignments()} says: each list non-empty, of registered brokers without repeats, all
   * of one length, with at least one unfenced broker (INVALID_REPLICA_ASSIGNMENT otherwise). A
   * replica on a fenced broker starts outside the ISR.
   */
  public List<MetadataRecord> createTopic(MetadataImage image, NewTopic topic) {
    checkNewTopic(image, topic);
    if (topic.manuallyAssigned()) {
      if (topic.replicationFactor() != NewTopic.FROM_ASSIGNMENTS) {
        throw new InvalidRequestException(
            "A manual partition assignment was specified, but replication factor was not set to"
                + " -1.");
      }
      if (topic.partitions() != NewTopic.FROM_ASSIGNMENTS) {
        throw new InvalidRequestException(
            "A manual partition assignment was specified, but numPartitions was not set to -1.");
      }
      checkPartitionCount(topic.assignments().size());
      checkAssignments(image, topic.assignments(), topic.assignments().get(0).size(), 0);
      return newTopicRecords(topic, topic.assignments(), image);
    } else {
      if (topic.replicationFactor() < 1) {
        throw new InvalidReplicationFactorException(
            "Replication factor must be larger than 0, got " + topic.replicationFactor());
      }
      checkPartitionCount(topic.partitions());
      List<List<Integer>> placement =
          ReplicaPlacement.assign(
              aliveBrokers(image, topic.replicationFactor()),
              image.brokerRacks(),
              0,
              topic.partitions(),
              topic.replicationFactor(),
              random);
      return newTopicRecords(topic, placement, null);
    }
  }

  private static void checkNewTopic(MetadataImage image, NewTopic topic) {
    String problem = TopicName.problemWith(topic.name());
    if (problem != null) {
      throw new InvalidTopicException(problem);
    }
    if (image.topic(topic.name()).isPresent()) {
      throw new TopicExistsException("Topic '" + topic.name() + "' already exists.");
    }
    LogConfig.fromMap(topic.configs()); // throws InvalidConfigException naming the bad config
  }

  /**
   * The records of a new topic; {@code image} is given for a placement by hand (whose fenced
   * replicas start outside the ISR), null for one over live brokers.
   */
  private List<MetadataRecord> newTopicRecords(
      NewTopic topic, List<List<Integer>> placement, MetadataImage image) {
    Uuid topicId = Uuid.random(random);
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new MetadataRecord.TopicCreated(topicId, topic.name()));
    topic
        .configs()
        .forEach(
            (key, value) ->
                records.add(new MetadataRecord.TopicConfigChanged(topicId, key, value)));
    for (int p = 0; p < placement.size(); p++) {
      records.add(
          image == null
              ? newPartition(topicId, p, placement.get(p))
              : newPartition(topicId, p, placement.get(p), image));
    }
    return records;
  }

  /**
   * Records that grow {@code name} to {@code newTotal} partitions (Kafka's CreatePartitions),
   * placed on the unfenced brokers of {@code image}.
   */
  public List<MetadataRecord> createPartitions(MetadataImage image, String name, int newTotal) {
    return createPartitions(image, NewPartitions.placed(name, newTotal));
  }

  /**
   * Records that grow a topic as {@code request} says (Kafka's CreatePartitions): the count must
   * grow; manual assignments, one per new partition, follow {@link #createTopic(MetadataImage,
   * NewTopic)}'s rules with the topic's replication factor.
   */
  public List<MetadataRecord> createPartitions(MetadataImage image, NewPartitions request) {
    TopicImage topic = requireTopic(image, request.topic());
    int additional = checkGrowth(topic, request.totalCount());
    if (request.assignments().isEmpty()) {
      return createPartitions(
          image,
          request.topic(),
          request.totalCount(),
          aliveBrokers(image, topic.replicationFactor()));
    }
    if (request.assignments().size() != additional) {
      throw Errors.INVALID_REPLICA_ASSIGNMENT.exception(
          "Attempted to add "
              + additional
              + " additional partition(s), but only "
              + request.assignments().size()
              + " assignment(s) were specified.");
    }
    checkAssignments(
        image, request.assignments(), topic.replicationFactor(), topic.partitionCount());
    List<MetadataRecord> records = new ArrayList<>();
    for (int i = 0; i < additional; i++) {
      records.add(
          newPartition(
              topic.topicId(), topic.partitionCount() + i, request.assignments().get(i), image));
    }
    return records;
  }

  /**
   * As {@link #createPartitions(MetadataImage, String, int)} but placing over exactly {@code
   * liveBrokers}.
   */
  public List<MetadataRecord> createPartitions(
      MetadataImage image, String name, int newTotal, List<Integer> liveBrokers) {
    TopicImage topic = requireTopic(image, name);
    checkGrowth(topic, newTotal);
    int current = topic.partitionCount();
    List<List<Integer>> assignment =
        ReplicaPlacement.assign(
            liveBrokers,
            image.brokerRacks(),
            current,
            newTotal - current,
            topic.replicationFactor(),
            random);
    List<MetadataRecord> records = new ArrayList<>();
    for (int i = 0; i < assignment.size(); i++) {
      records.add(newPartition(topic.topicId(), current + i, assignment.get(i)));
    }
    return records;
  }

  /** The number of partitions to add; INVALID_PARTITIONS unless the count grows. */
  private static int checkGrowth(TopicImage topic, int newTotal) {
    checkPartitionCount(newTotal);
    int current = topic.partitionCount();
    if (newTotal <= current) {
      throw new InvalidPartitionsException(
          "Topic '"
              + topic.name()
              + "' has "
              + current
              + " partitions; the count can only grow, not become "
              + newTotal);
    }
    return newTotal - current;
  }

  /**
   * Kafka's checks of a manual assignment: partitions {@code firstPartition..} each on a non-empty
   * list of {@code replicationFactor} registered brokers without repeats, at least one of them
   * unfenced.
   */
  private static void checkAssignments(
      MetadataImage image,
      List<List<Integer>> assignments,
      int replicationFactor,
      int firstPartition) {
    for (int i = 0; i < assignments.size(); i++) {
      List<Integer> replicas = assignments.get(i);
      int partition = firstPartition + i;
      if (replicas.isEmpty()) {
        throw invalidAssignment("The manual partition assignment includes an empty replica list.");
      }
      Set<Integer> seen = new HashSet<>();
      for (int broker : replicas) {
        if (image.broker(broker).isEmpty()) {
          throw invalidAssignment(
              "The manual partition assignment includes broker "
                  + broker
                  + ", but no such broker is registered.");
        }
        if (!seen.add(broker)) {
          throw invalidAssignment(
              "The manual partition assignment includes the broker " + broker + " more than once.");
        }
      }
      if (replicas.size() != replicationFactor) {
        throw invalidAssignment(
            "The manual partition assignment includes a partition with "
                + replicas.size()
                + " replica(s), but this is not consistent with previous partitions, which have "
                + replicationFactor
                + " replica(s).");
      }
      if (replicas.stream().noneMatch(image::isUnfenced)) {
        throw invalidAssignment(
            "All brokers specified in the manual partition assignment for partition "
                + partition
                + " are fenced.");
      }
    }
  }

  private static ApiException invalidAssignment(String message) {
    return Errors.INVALID_REPLICA_ASSIGNMENT.exception(message);
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
    return alterConfigs(
        image,
        name,
        List.of(value == null ? ConfigChange.delete(key) : ConfigChange.set(key, value)));
  }

  /**
   * Records that apply {@code changes} to a topic's configs in order (Kafka's
   * IncrementalAlterConfigs): SET and DELETE as they say; APPEND and SUBTRACT add or remove the
   * comma-separated items of a list-typed config, starting from its current value (the default when
   * unset). The resulting overrides are validated as a whole, so one invalid change changes
   * nothing; a change that leaves a value as it was writes no record.
   *
   * @throws InvalidConfigException for an unknown config, an invalid value, or APPEND/SUBTRACT on a
   *     config that is not a list
   * @throws dev.tributary.common.errors.InvalidRequestException for a config named twice
   */
  public List<MetadataRecord> alterConfigs(
      MetadataImage image, String name, List<ConfigChange> changes) {
    TopicImage topic = requireTopic(image, name);
    Map<String, String> next = new HashMap<>(topic.configs());
    Set<String> named = new HashSet<>();
    for (ConfigChange change : changes) {
      if (!named.add(change.name())) {
        throw new InvalidRequestException("Error due to duplicate config keys");
      }
      if (change.op() != ConfigChange.Op.SET && !LogConfig.names().contains(change.name())) {
        throw new InvalidConfigException("Unknown topic config '" + change.name() + "'");
      }
      switch (change.op()) {
        case SET -> next.put(change.name(), change.value());
        case DELETE -> next.remove(change.name());
        case APPEND, SUBTRACT -> next.put(change.name(), listChanged(next, change));
      }
    }
    LogConfig.fromMap(next);
    List<MetadataRecord> records = new ArrayList<>();
    for (String key : named) {
      String before = topic.configs().get(key);
      String after = next.get(key);
      if (!java.util.Objects.equals(before, after)) {
        records.add(new MetadataRecord.TopicConfigChanged(topic.topicId(), key, after));
      }
    }
    records.sort(
        java.util.Comparator.comparing(r -> ((MetadataRecord.TopicConfigChanged) r).name()));
    return records;
  }

  private static String listChanged(Map<String, String> configs, ConfigChange change) {
    if (LogConfig.type(change.name()) != LogConfig.Type.LIST) {
      throw new InvalidConfigException(
          "Can't " + change.op() + " to key " + change.name() + " because its type is not LIST.");
    }
    String current = configs.getOrDefault(change.name(), LogConfig.defaultValue(change.name()));
    List<String> items = new ArrayList<>();
    for (String item : current.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    for (String item : change.value().split(",")) {
      if (change.op() == ConfigChange.Op.APPEND && !items.contains(item)) {
        items.add(item);
      } else if (change.op() == ConfigChange.Op.SUBTRACT) {
        items.remove(item);
      }
    }
    return String.join(",", items);
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
    // empty, so all of them have everything the leader has.
    return new MetadataRecord.PartitionChange(
        topicId, partition, replicas, replicas, replicas.get(0), 0, 0);
  }

  /**
   * A new partition on {@code replicas} where some may be fenced (placed by hand): only the
   * unfenced ones start in the ISR, and the first of those leads (Kafka's rule; a fenced broker
   * leads nothing).
   */
  private static MetadataRecord.PartitionChange newPartition(
      Uuid topicId, int partition, List<Integer> replicas, MetadataImage image) {
    List<Integer> isr = replicas.stream().filter(image::isUnfenced).toList();
    return new MetadataRecord.PartitionChange(topicId, partition, replicas, isr, isr.get(0), 0, 0);
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
