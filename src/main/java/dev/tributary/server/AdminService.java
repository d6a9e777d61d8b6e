package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Admin requests for every protocol (Kafka's CreateTopics, DeleteTopics, CreatePartitions,
 * IncrementalAlterConfigs, ElectLeaders, and ACL and key changes): each goes to the active
 * controller through the {@link ControllerClient} (here or on another broker), and its future
 * completes once this broker has applied the metadata the controller committed ({@link
 * MetadataWaiters}: no sleeping, no polling), so a read right after sees the change. Topic changes
 * need ADMIN on the topic, security changes ADMIN on the cluster.
 *
 * <p>Broker defaults are applied here, once for every protocol: a topic created without {@code
 * min.insync.replicas} gets the broker's, written as the topic's own setting so every broker
 * applies the same one.
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
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, topic.name());
    return applied(broker.controller().createTopic(withBrokerDefaults(topic), false))
        .thenApply(image -> topic(image, topic.name()));
  }

  /**
   * Asks the controller whether {@code topic} could be created, creating nothing (Kafka's
   * validate_only); completes with the topic as it would be created, broker defaults included.
   */
  public CompletableFuture<NewTopic> validateCreateTopic(RequestContext context, NewTopic topic) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, topic.name());
    NewTopic withDefaults = withBrokerDefaults(topic);
    return broker.controller().createTopic(withDefaults, true).thenApply(done -> withDefaults);
  }

  /** {@code topic} with the broker's {@code min.insync.replicas} unless it sets its own. */
  private NewTopic withBrokerDefaults(NewTopic topic) {
    if (config.minInsyncReplicas() <= 1
        || topic.configs().containsKey(LogConfig.MIN_IN_SYNC_REPLICAS)) {
      return topic;
    }
    Map<String, String> withDefaults = new LinkedHashMap<>(topic.configs());
    withDefaults.put(
        LogConfig.MIN_IN_SYNC_REPLICAS,
        String.valueOf(
            Math.min(config.minInsyncReplicas(), Math.max(1, topic.replicationFactorOrFirst()))));
    return topic.withConfigs(withDefaults);
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

  /** Sets one config of a topic ({@code value} null: back to the default). */
  public CompletableFuture<TopicImage> alterConfig(
      RequestContext context, String name, String key, String value) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    ConfigChange change = value == null ? ConfigChange.delete(key) : ConfigChange.set(key, value);
    return applied(broker.controller().alterConfigs(name, List.of(change), false))
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
    return done(broker.controller().alterConfigs(name, changes, validateOnly), validateOnly);
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
