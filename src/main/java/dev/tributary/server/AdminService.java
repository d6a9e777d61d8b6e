package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Admin requests for every protocol (Kafka's CreateTopics, DeleteTopics, CreatePartitions,
 * IncrementalAlterConfigs, ElectLeaders, and ACL and key changes): each goes to the active
 * controller through the {@link ControllerClient} (here or on another broker), and its future
 * completes once this broker has applied the metadata the controller committed ({@link
 * MetadataWaiters}: no sleeping, no polling), so a read right after sees the change. Topic changes
 * need ADMIN on the topic (a create, as Kafka's CREATE, ADMIN on the cluster or on the topic),
 * security changes and elections ADMIN on the cluster.
 *
 * <p>Broker defaults are applied here, once for every protocol: a topic created with Kafka's -1 for
 * its partitions or replication factor gets {@code num.partitions} or {@code
 * default.replication.factor}; one created without {@code min.insync.replicas} gets the broker's,
 * written as the topic's own setting so every broker applies the same one, and a change that
 * removes a topic's {@code min.insync.replicas} puts the broker's back (Kafka's topic falls back to
 * the broker's setting).
 */
public final class AdminService {
  /**
   * How long a change the controller committed may take to reach this broker before the caller is
   * told to retry its read (the change itself is done).
   */
  static final long METADATA_PROPAGATION_TIMEOUT_MS = 10_000;

  private final RunningBroker broker;
  private final BrokerConfig config;
  private final AccessControl access;
  private final MetadataWaiters metadata;

  public AdminService(
      RunningBroker broker, BrokerConfig config, AccessControl access, MetadataWaiters metadata) {
    this.broker = broker;
    this.config = config;
    this.access = access;
    this.metadata = metadata;
  }

  /** The broker defaults a create without explicit values gets. */
  public BrokerConfig config() {
    return config;
  }

  /** Creates a topic; completes with it as this broker sees it. */
  public CompletableFuture<TopicImage> createTopic(
      RequestContext context,
      String name,
      int partitions,
      int replicationFactor,
      Map<String, String> configs) {
    return createTopic(context, NewTopic.placed(name, partitions, replicationFactor, configs));
  }

  /**
   * Creates {@code topic} (placed automatically or by hand) with the broker's defaults for what it
   * leaves out; completes with it as this broker sees it.
   */
  public CompletableFuture<TopicImage> createTopic(RequestContext context, NewTopic topic) {
    requireCreate(context, topic.name());
    return applied(broker.controller().createTopic(withBrokerDefaults(topic), false))
        .thenApply(image -> topic(image, topic.name()));
  }

  /**
   * Asks the controller whether {@code topic} could be created, creating nothing (Kafka's
   * validate_only); completes with the topic as it would be created, broker defaults included.
   */
  public CompletableFuture<NewTopic> validateCreateTopic(RequestContext context, NewTopic topic) {
    requireCreate(context, topic.name());
    NewTopic withDefaults = withBrokerDefaults(topic);
    return broker.controller().createTopic(withDefaults, true).thenApply(done -> withDefaults);
  }

  /** Kafka's CREATE: on the cluster (any topic) or on the topic. */
  private void requireCreate(RequestContext context, String name) {
    if (!access.allows(
        context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName())) {
      access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    }
  }

  /**
   * {@code topic} with the broker's partition count and replication factor for Kafka's -1 (placed
   * automatically), and the broker's {@code min.insync.replicas} unless it sets its own.
   */
  private NewTopic withBrokerDefaults(NewTopic topic) {
    if (!topic.manuallyAssigned()) {
      topic =
          NewTopic.placed(
              topic.name(),
              topic.partitions() == NewTopic.FROM_ASSIGNMENTS
                  ? config.numPartitions()
                  : topic.partitions(),
              topic.replicationFactor() == NewTopic.FROM_ASSIGNMENTS
                  ? config.defaultReplicationFactor()
                  : topic.replicationFactor(),
              topic.configs());
    }
    if (config.minInsyncReplicas() <= 1
        || topic.configs().containsKey(LogConfig.MIN_IN_SYNC_REPLICAS)) {
      return topic;
    }
    Map<String, String> withDefaults = new LinkedHashMap<>(topic.configs());
    withDefaults.put(
        LogConfig.MIN_IN_SYNC_REPLICAS, brokerMinInsyncReplicas(topic.replicationFactorOrFirst()));
    return topic.withConfigs(withDefaults);
  }

  /** The broker's {@code min.insync.replicas} for a topic of {@code replicationFactor}. */
  private String brokerMinInsyncReplicas(int replicationFactor) {
    return String.valueOf(Math.min(config.minInsyncReplicas(), Math.max(1, replicationFactor)));
  }

  /** Grows a topic to {@code newTotal} partitions. */
  public CompletableFuture<TopicImage> createPartitions(
      RequestContext context, String name, int newTotal) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return applied(
            broker.controller().createPartitions(NewPartitions.placed(name, newTotal), false))
        .thenApply(image -> topic(image, name));
  }

  /**
   * Grows a topic as {@code request} says (placed automatically or by hand); with {@code
   * validateOnly} only asks the controller whether it could.
   */
  public CompletableFuture<Void> createPartitions(
      RequestContext context, NewPartitions request, boolean validateOnly) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, request.topic());
    return done(broker.controller().createPartitions(request, validateOnly), validateOnly);
  }

  public CompletableFuture<Void> deleteTopic(RequestContext context, String name) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return applied(broker.controller().deleteTopic(name)).thenApply(image -> null);
  }

  /**
   * Removes a decommissioned broker from the cluster: it must be fenced (stopped) and hold no
   * replica ({@link dev.tributary.metadata.BrokerUnregistration}); completes once this broker's
   * metadata no longer lists it. Needs ADMIN on the cluster, as the other cluster operations.
   */
  public CompletableFuture<Void> unregisterBroker(RequestContext context, int brokerId) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    return applied(broker.controller().unregisterBroker(brokerId)).thenApply(image -> null);
  }

  /** Sets one config of a topic ({@code value} null: back to the default). */
  public CompletableFuture<TopicImage> alterConfig(
      RequestContext context, String name, String key, String value) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    ConfigChange change = value == null ? ConfigChange.delete(key) : ConfigChange.set(key, value);
    return applied(
            broker
                .controller()
                .alterConfigs(name, withBrokerDefaults(name, List.of(change)), false))
        .thenApply(image -> topic(image, name));
  }

  /**
   * Applies {@code changes} to a topic's configs, all or none (Kafka's IncrementalAlterConfigs; see
   * {@link dev.tributary.metadata.TopicControl#alterConfigs}); with {@code validateOnly} only asks
   * the controller whether it could.
   */
  public CompletableFuture<Void> alterConfigs(
      RequestContext context, String name, List<ConfigChange> changes, boolean validateOnly) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return done(
        broker.controller().alterConfigs(name, withBrokerDefaults(name, changes), validateOnly),
        validateOnly);
  }

  /**
   * Makes {@code configs} a topic's own settings, and only them (Kafka's AlterConfigs: every config
   * left out goes back to its default), all or none; with {@code validateOnly} only asks the
   * controller whether it could. The changes are computed from the topic as this broker sees it.
   *
   * @throws dev.tributary.common.errors.InvalidRequestException for a null value
   */
  public CompletableFuture<Void> replaceConfigs(
      RequestContext context, String name, Map<String, String> configs, boolean validateOnly) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    List<ConfigChange> changes = new ArrayList<>();
    configs.forEach((key, value) -> changes.add(ConfigChange.set(key, value)));
    broker
        .metadata()
        .topic(name)
        .ifPresent(
            topic ->
                topic.configs().keySet().stream()
                    .filter(key -> !configs.containsKey(key))
                    .sorted()
                    .forEach(key -> changes.add(ConfigChange.delete(key))));
    return done(
        broker.controller().alterConfigs(name, withBrokerDefaults(name, changes), validateOnly),
        validateOnly);
  }

  /**
   * {@code changes} with a removal of {@code min.insync.replicas} turned into setting the broker's
   * (what a Kafka topic without its own falls back to).
   */
  private List<ConfigChange> withBrokerDefaults(String name, List<ConfigChange> changes) {
    if (config.minInsyncReplicas() <= 1) {
      return changes;
    }
    List<ConfigChange> withDefaults = new ArrayList<>(changes.size());
    for (ConfigChange change : changes) {
      boolean removesMinIsr =
          change.op() == ConfigChange.Op.DELETE
              && change.name().equals(LogConfig.MIN_IN_SYNC_REPLICAS);
      TopicImage topic = removesMinIsr ? broker.metadata().topic(name).orElse(null) : null;
      withDefaults.add(
          topic == null
              ? change
              : ConfigChange.set(
                  LogConfig.MIN_IN_SYNC_REPLICAS,
                  brokerMinInsyncReplicas(topic.replicationFactor())));
    }
    return withDefaults;
  }

  /**
   * Changes broker {@code brokerName}'s dynamic configs (the empty name: every broker's default, as
   * in Kafka), all or none: needs ADMIN on the cluster. Only the replication throttle rates change
   * at run time ({@link dev.tributary.metadata.BrokerConfigControl}); a DELETE of a config without
   * a dynamic value succeeds and changes nothing, as in Kafka ({@code kafka-reassign-partitions
   * --verify} deletes the throttles of every broker). Completes once this broker has applied the
   * change.
   *
   * @throws dev.tributary.common.errors.AuthorizationException without ADMIN on the cluster
   */
  public CompletableFuture<Void> alterBrokerConfigs(
      RequestContext context, String brokerName, Collection<ConfigChange> changes) {
    return alterBrokerConfigs(context, brokerName, changes, false);
  }

  /** As {@link #alterBrokerConfigs(RequestContext, String, Collection)}; may only validate. */
  public CompletableFuture<Void> alterBrokerConfigs(
      RequestContext context,
      String brokerName,
      Collection<ConfigChange> changes,
      boolean validateOnly) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    int brokerId = MetadataImage.DEFAULT_BROKER;
    if (!brokerName.isEmpty()) {
      try {
        brokerId = Integer.parseInt(brokerName);
      } catch (NumberFormatException e) {
        return CompletableFuture.failedFuture(
            new InvalidRequestException("Broker id must be an integer, but it is: " + brokerName));
      }
      if (brokerId < 0) {
        return CompletableFuture.failedFuture(
            new InvalidRequestException("Broker id must not be negative: " + brokerName));
      }
    }
    return done(
        broker.controller().alterBrokerConfigs(brokerId, List.copyOf(changes), validateOnly),
        validateOnly);
  }

  /**
   * Elects the preferred replica leader of {@code partitions} (every partition when null); needs
   * ADMIN on the cluster, as every leadership move by hand (Kafka's ALTER on the cluster).
   * Completes with each partition's outcome once this broker has applied the elections.
   */
  public CompletableFuture<Map<TopicPartition, ElectionOutcome>> electPreferredLeaders(
      RequestContext context, Collection<TopicPartition> partitions) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    return broker
        .controller()
        .electPreferredLeaders(partitions == null ? null : List.copyOf(partitions))
        .thenCompose(
            result ->
                metadata
                    .awaitOffset(result.metadataOffset(), METADATA_PROPAGATION_TIMEOUT_MS)
                    .thenApply(image -> result.outcomes()));
  }

  /**
   * Starts, replaces or cancels (an empty target) the reassignment of each partition in {@code
   * targets} (see {@link dev.tributary.metadata.ReassignmentControl}); needs ADMIN on the cluster,
   * as every move of replicas by hand (Kafka's ALTER on the cluster). Completes with each
   * partition's outcome once this broker has applied the change (the move itself goes on).
   */
  public CompletableFuture<Map<TopicPartition, PartitionOutcome>> alterPartitionReassignments(
      RequestContext context, Map<TopicPartition, Optional<List<Integer>>> targets) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    return broker
        .controller()
        .alterPartitionReassignments(new LinkedHashMap<>(targets))
        .thenCompose(
            result ->
                metadata
                    .awaitOffset(result.metadataOffset(), METADATA_PROPAGATION_TIMEOUT_MS)
                    .thenApply(image -> result.outcomes()));
  }

  /**
   * The partitions being reassigned, by topic and partition: of every topic when {@code topics} is
   * null, else of the topics named (an unknown one is left out, as Kafka's
   * ListPartitionReassignments does). Needs READ on the cluster (Kafka's DESCRIBE). Read from this
   * broker's metadata image.
   */
  public java.util.SortedMap<TopicPartition, PartitionImage> listPartitionReassignments(
      RequestContext context, Collection<String> topics) {
    access.require(context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    java.util.SortedMap<TopicPartition, PartitionImage> ongoing =
        new java.util.TreeMap<>(
            java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
    MetadataImage image = broker.replicaManager().metadataImage();
    for (TopicImage topic : image.topicsByName().values()) {
      if (topics != null && !topics.contains(topic.name())) {
        continue;
      }
      for (PartitionImage p : topic.partitions().values()) {
        if (p.isReassigning()) {
          ongoing.put(new TopicPartition(topic.name(), p.partition()), p);
        }
      }
    }
    return ongoing;
  }

  /**
   * One partition's replicas and reassignment state (empty adding and removing lists when none is
   * in progress); needs READ on the cluster.
   *
   * @throws UnknownTopicOrPartitionException no such topic or partition
   */
  public PartitionImage partitionReplicas(RequestContext context, TopicPartition tp) {
    access.require(context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    return topic(broker.replicaManager().metadataImage(), tp.topic())
        .requirePartition(tp.partition());
  }

  /** Creates and deletes API keys and ACLs. */
  public CompletableFuture<Void> alterSecurity(RequestContext context, SecurityChange change) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    return applied(broker.controller().alterSecurity(change)).thenApply(image -> null);
  }

  /** Once a change is committed, applied here (or, only validated, at once). */
  private CompletableFuture<Void> done(
      CompletableFuture<ControllerChannel.AdminResult> result, boolean validateOnly) {
    return validateOnly
        ? result.thenApply(answer -> null)
        : applied(result).thenApply(image -> null);
  }

  /** Once the controller committed, waits until this broker has applied that offset too. */
  private CompletableFuture<MetadataImage> applied(
      CompletableFuture<ControllerChannel.AdminResult> committed) {
    return committed.thenCompose(
        result ->
            metadata.awaitOffset(
                result.metadataOffset(), AdminService.METADATA_PROPAGATION_TIMEOUT_MS));
  }

  private static TopicImage topic(MetadataImage image, String name) {
    return image.topic(name).orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(name));
  }
}
