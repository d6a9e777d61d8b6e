package dev.tributary.server;

import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.metadata.TopicImage;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates topics that clients use before anyone created them ({@code auto.create.topics.enable};
 * Kafka's AutoTopicCreationManager), the one place this happens: a REST produce to a missing topic,
 * a Kafka Metadata request that allows it. The new topic gets the broker's defaults ({@code
 * num.partitions}, {@code default.replication.factor}). Creating takes ADMIN on the topic, as Kafka
 * asks CREATE. When another broker creates the same topic first, the future completes once this
 * broker has applied that creation.
 */
public final class AutoTopicCreator {
  private static final Logger logger = LoggerFactory.getLogger(AutoTopicCreator.class);

  private final RunningBroker broker;
  private final BrokerConfig config;
  private final AdminService admin;
  private final MetadataWaiters metadata;

  public AutoTopicCreator(
      RunningBroker broker, BrokerConfig config, AdminService admin, MetadataWaiters metadata) {
    this.broker = broker;
    this.config = config;
    this.admin = admin;
    this.metadata = metadata;
  }

  /**
   * The topic, created with the broker's defaults if absent and auto-creation is on. A request that
   * names a partition the new topic would not have ({@code maxRequestedPartition >=
   * num.partitions}) is refused before anything is created.
   *
   * @throws UnknownTopicOrPartitionException (also as the future's failure) when it does not exist
   *     and is not created
   */
  public CompletableFuture<TopicImage> topicForProduce(
      RequestContext context, String name, int maxRequestedPartition) {
    // The replica manager's image: a topic found there has its partitions placed here already;
    // one only in the quorum's newer image is waited for below (its create finds it exists).
    Optional<TopicImage> topic = broker.replicaManager().metadataImage().topic(name);
    if (topic.isPresent()) {
      return CompletableFuture.completedFuture(topic.get());
    }
    if (!config.autoCreateTopicsEnable()) {
      throw UnknownTopicOrPartitionException.unknownTopic(name);
    }
    if (maxRequestedPartition >= config.numPartitions()) {
      throw UnknownTopicOrPartitionException.unknownTopic(
          name,
          "it was not auto-created because partition "
              + maxRequestedPartition
              + " was asked for and a new topic gets "
              + config.numPartitions()
              + " partition(s) (num.partitions)");
    }
    return create(context, name);
  }

  /** Creates {@code name} with the broker's defaults, or waits for whoever created it first. */
  public CompletableFuture<TopicImage> create(RequestContext context, String name) {
    logger.info("Auto-creating topic {} with {} partition(s)", name, config.numPartitions());
    return admin
        .createTopic(
            context, name, config.numPartitions(), config.defaultReplicationFactor(), Map.of())
        .exceptionallyCompose(
            failure ->
                Errors.unwrap(failure) instanceof TopicExistsException
                    ? metadata
                        .await(
                            image -> image.topic(name).isPresent(),
                            AdminService.METADATA_PROPAGATION_TIMEOUT_MS)
                        .thenApply(image -> image.topic(name).orElseThrow())
                    : CompletableFuture.failedFuture(failure));
  }
}
