package dev.tributary.kafka;

import dev.tributary.common.TopicName;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AutoTopicCreator;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * Metadata (v0–13): every live broker's Kafka listener, the cluster id, the active controller, and
 * the topics asked for (all the principal may describe when none is named) with their ids,
 * partitions, leaders, epochs, replicas, ISRs and offline replicas. A named topic that does not
 * exist is auto-created when the request allows it and {@code auto.create.topics.enable} is on;
 * until then it answers LEADER_NOT_AVAILABLE, and the client asks again (as with Kafka).
 */
final class MetadataApi implements ApiHandler {
  static final String KAFKA_LISTENER = "KAFKA";
  private static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;

  private final MetadataCache metadata;
  private final AccessControl access;
  private final AutoTopicCreator autoTopics;
  private final BrokerConfig config;

  MetadataApi(
      MetadataCache metadata,
      AccessControl access,
      AutoTopicCreator autoTopics,
      BrokerConfig config) {
    this.metadata = metadata;
    this.access = access;
    this.autoTopics = autoTopics;
    this.config = config;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.METADATA;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 13;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    MetadataRequestData data = ((MetadataRequest) request).data();
    MetadataImage image = metadata.metadata();
    MetadataResponseData response =
        new MetadataResponseData()
            .setThrottleTimeMs(0)
            .setClusterId(metadata.clusterId())
            .setControllerId(metadata.activeControllerId())
            .setClusterAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
    for (BrokerImage broker : image.brokers().values()) {
      if (broker.fenced()) {
        continue;
      }
      broker
          .listener(KAFKA_LISTENER)
          .ifPresent(
              listener ->
                  response
                      .brokers()
                      .add(
                          new MetadataResponseData.MetadataResponseBroker()
                              .setNodeId(broker.brokerId())
                              .setHost(listener.host())
                              .setPort(listener.port())
                              .setRack(null)));
    }
    boolean allowAutoCreate = context.apiVersion() < 4 || data.allowAutoTopicCreation();
    if (data.topics() == null) {
      for (TopicImage topic : image.topicsByName().values()) {
        if (access.allows(context.request(), AclOperation.READ, ResourceType.TOPIC, topic.name())) {
          response.topics().add(topic(image, topic));
        }
      }
    } else {
      for (MetadataRequestData.MetadataRequestTopic wanted : data.topics()) {
        response.topics().add(named(context, image, wanted, allowAutoCreate));
      }
    }
    return CompletableFuture.completedFuture(new MetadataResponse(response, context.apiVersion()));
  }

  private MetadataResponseData.MetadataResponseTopic named(
      KafkaRequestContext context,
      MetadataImage image,
      MetadataRequestData.MetadataRequestTopic wanted,
      boolean allowAutoCreate) {
    String name = wanted.name();
    // A topic asked by id has no name: null, or "" (the field's default, which clients send).
    if ((name == null || name.isEmpty())
        && wanted.topicId() != null
        && !Uuid.ZERO_UUID.equals(wanted.topicId())) {
      TopicImage byId = TopicIds.find(image, wanted.topicId());
      if (byId == null) {
        return error(null, Errors.UNKNOWN_TOPIC_ID).setTopicId(wanted.topicId());
      }
      name = byId.name();
    }
    if (!access.allows(context.request(), AclOperation.READ, ResourceType.TOPIC, name)) {
      return error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    TopicImage topic = image.topic(name).orElse(null);
    if (topic != null) {
      return topic(image, topic);
    }
    if (allowAutoCreate
        && config.autoCreateTopicsEnable()
        && TopicName.problemWith(name) == null
        && access.allows(context.request(), AclOperation.ADMIN, ResourceType.TOPIC, name)) {
      autoTopics.create(context.request(), name); // the client asks again until it is there
      return error(name, Errors.LEADER_NOT_AVAILABLE);
    }
    return error(
        name,
        TopicName.problemWith(name) == null
            ? Errors.UNKNOWN_TOPIC_OR_PARTITION
            : Errors.INVALID_TOPIC_EXCEPTION);
  }

  private static MetadataResponseData.MetadataResponseTopic error(String name, Errors error) {
    return new MetadataResponseData.MetadataResponseTopic()
        .setName(name)
        .setErrorCode(error.code())
        .setIsInternal(false)
        .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
  }

  static MetadataResponseData.MetadataResponseTopic topic(MetadataImage image, TopicImage topic) {
    MetadataResponseData.MetadataResponseTopic out =
        new MetadataResponseData.MetadataResponseTopic()
            .setName(topic.name())
            .setTopicId(TopicIds.toKafka(topic.topicId()))
            .setErrorCode(Errors.NONE.code())
            .setIsInternal(topic.name().startsWith("__"))
            .setTopicAuthorizedOperations(AUTHORIZED_OPERATIONS_OMITTED);
    for (PartitionImage p : topic.partitions().values()) {
      List<Integer> offline = new ArrayList<>();
      for (int replica : p.replicas()) {
        if (!image.isUnfenced(replica)) {
          offline.add(replica);
        }
      }
      out.partitions()
          .add(
              new MetadataResponseData.MetadataResponsePartition()
                  .setPartitionIndex(p.partition())
                  .setErrorCode(
                      p.leader() < 0 ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code())
                  .setLeaderId(p.leader())
                  .setLeaderEpoch(p.leaderEpoch())
                  .setReplicaNodes(p.replicas())
                  .setIsrNodes(p.isr())
                  .setOfflineReplicas(offline));
    }
    return out;
  }

  /** The Kafka listener of {@code broker}, if it advertises one. */
  static java.util.Optional<AdvertisedListener> kafkaListener(BrokerImage broker) {
    return broker.listener(KAFKA_LISTENER);
  }
}
