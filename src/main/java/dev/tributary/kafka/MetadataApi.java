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
 * Metadata (v0–13): every live broker's Kafka listener and rack, the cluster id, the active
 * controller, and the topics asked for (all the principal may describe when none is named) with
 * their ids, partitions, leaders, epochs, replicas, ISRs and offline replicas. A named topic that
 * does not exist is auto-created when the request allows it and {@code auto.create.topics.enable}
 * is on; until then it answers LEADER_NOT_AVAILABLE, and the client asks again (as with Kafka).
 *
 * <p>ACLs, as Kafka's {@code handleTopicMetadataRequest} applies them: a topic is described to a
 * principal that may READ or WRITE it (Kafka's DESCRIBE, which READ and WRITE imply, so a
 * write-only producer finds its topic). A listing of all topics leaves the others out; a topic
 * named (or asked for by id) that the principal may not describe answers TOPIC_AUTHORIZATION_FAILED
 * whether it exists or not, and by id without its name. Auto-creation takes ADMIN on the topic
 * (REST's rule, Kafka's CREATE); a principal that may describe a missing topic but not create it
 * gets TOPIC_AUTHORIZATION_FAILED, as from Kafka.
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
                              .setRack(broker.rack().orElse(null))));
    }
    boolean allowAutoCreate = context.apiVersion() < 4 || data.allowAutoTopicCreation();
    if (data.topics() == null) {
      for (TopicImage topic : image.topicsByName().values()) {
        if (mayDescribe(context, topic.name())) {
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
    // By id when one is given, as Kafka decides: kafka-clients' Admin sends the name as "", not
    // null.
    if (wanted.topicId() != null && !Uuid.ZERO_UUID.equals(wanted.topicId())) {
      TopicImage byId = TopicIds.find(image, wanted.topicId());
      if (byId == null) {
        return error(null, Errors.UNKNOWN_TOPIC_ID).setTopicId(wanted.topicId());
      }
      if (!mayDescribe(context, byId.name())) {
        // Topic ids are not secret; the name is (Kafka leaves it out too).
        return error(null, Errors.TOPIC_AUTHORIZATION_FAILED).setTopicId(wanted.topicId());
      }
      name = byId.name();
    }
    if (!mayDescribe(context, name)) {
      return error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    TopicImage topic = image.topic(name).orElse(null);
    if (topic != null) {
      return topic(image, topic);
    }
    if (allowAutoCreate && config.autoCreateTopicsEnable() && TopicName.problemWith(name) == null) {
      if (!access.allows(context.request(), AclOperation.ADMIN, ResourceType.TOPIC, name)) {
        return error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
      }
      autoTopics.create(context.request(), name); // the client asks again until it is there
      return error(name, Errors.LEADER_NOT_AVAILABLE);
    }
    return error(
        name,
        TopicName.problemWith(name) == null
            ? Errors.UNKNOWN_TOPIC_OR_PARTITION
            : Errors.INVALID_TOPIC_EXCEPTION);
  }

  /** Kafka's DESCRIBE on a topic: implied by READ and by WRITE (and so by ADMIN). */
  private boolean mayDescribe(KafkaRequestContext context, String topic) {
    return access.allows(context.request(), AclOperation.READ, ResourceType.TOPIC, topic)
        || access.allows(context.request(), AclOperation.WRITE, ResourceType.TOPIC, topic);
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
