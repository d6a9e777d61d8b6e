package dev.tributary.server;

import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Admin requests for every protocol (Kafka's CreateTopics, DeleteTopics, CreatePartitions,
 * IncrementalAlterConfigs, and ACL and key changes): each goes to the active controller through the
 * {@link ControllerClient} (here or on another broker), and its future completes once this broker
 * has applied the metadata the controller committed ({@link MetadataWaiters}: no sleeping, no
 * polling), so a read right after sees the change. Topic changes need ADMIN on the topic, security
 * changes ADMIN on the cluster.
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
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    Map<String, String> withDefaults = configs;
    if (config.minInsyncReplicas() > 1 && !configs.containsKey(LogConfig.MIN_IN_SYNC_REPLICAS)) {
      withDefaults = new LinkedHashMap<>(configs);
      withDefaults.put(
          LogConfig.MIN_IN_SYNC_REPLICAS,
          String.valueOf(Math.min(config.minInsyncReplicas(), Math.max(1, replicationFactor))));
    }
    return applied(
            broker.controller().createTopic(name, partitions, replicationFactor, withDefaults))
        .thenApply(image -> topic(image, name));
  }

  /** Grows a topic to {@code newTotal} partitions. */
  public CompletableFuture<TopicImage> createPartitions(
      RequestContext context, String name, int newTotal) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return applied(broker.controller().createPartitions(name, newTotal))
        .thenApply(image -> topic(image, name));
  }

  public CompletableFuture<Void> deleteTopic(RequestContext context, String name) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return applied(broker.controller().deleteTopic(name)).thenApply(image -> null);
  }

  /** Sets one config of a topic ({@code value} null: back to the default). */
  public CompletableFuture<TopicImage> alterConfig(
      RequestContext context, String name, String key, String value) {
    access.require(context, AclOperation.ADMIN, ResourceType.TOPIC, name);
    return applied(broker.controller().alterConfig(name, key, value))
        .thenApply(image -> topic(image, name));
  }

  /** Creates and deletes API keys and ACLs. */
  public CompletableFuture<Void> alterSecurity(RequestContext context, SecurityChange change) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    return applied(broker.controller().alterSecurity(change)).thenApply(image -> null);
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
