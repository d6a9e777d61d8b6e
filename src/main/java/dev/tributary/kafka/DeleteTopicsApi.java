package dev.tributary.kafka;

import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.MetadataCache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

/**
 * DeleteTopics (v1–6; v6 names topics by name or by id) through {@link AdminService}, each topic on
 * its own, answered once this broker has applied the deletion. Errors as Kafka's:
 * UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, TOPIC_AUTHORIZATION_FAILED without ADMIN on the
 * topic (and, for a topic named by id, its name only to a principal that may read it),
 * INVALID_REQUEST for a topic named twice or by both name and id. A topic named by id is deleted by
 * the name it has in this broker's metadata.
 */
final class DeleteTopicsApi implements ApiHandler {
  private final AdminService admin;
  private final MetadataCache metadata;
  private final AccessControl access;

  DeleteTopicsApi(AdminService admin, MetadataCache metadata, AccessControl access) {
    this.admin = admin;
    this.metadata = metadata;
    this.access = access;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DELETE_TOPICS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    List<DeleteTopicState> topics = ((DeleteTopicsRequest) request).topics();
    Map<Object, Integer> named = new HashMap<>();
    topics.forEach(topic -> named.merge(key(topic), 1, Integer::sum));
    MetadataImage image = metadata.metadata();
    List<CompletableFuture<DeletableTopicResult>> results = new ArrayList<>();
    for (DeleteTopicState topic : topics) {
      results.add(
          named.get(key(topic)) > 1
              ? answered(
                  topic.name(),
                  topic.topicId(),
                  Errors.INVALID_REQUEST,
                  topic.name() == null ? "Duplicate topic id." : "Duplicate topic name.")
              : delete(context, image, topic));
    }
    return AdminCalls.all(results)
        .thenApply(
            answered -> {
              DeleteTopicsResponseData response = new DeleteTopicsResponseData();
              answered.forEach(response.responses()::add);
              return new DeleteTopicsResponse(response);
            });
  }

  /** What names a topic in the request: its name, or its id when it has none. */
  private static Object key(DeleteTopicState topic) {
    return topic.name() != null ? topic.name() : topic.topicId();
  }

  private CompletableFuture<DeletableTopicResult> delete(
      KafkaRequestContext context, MetadataImage image, DeleteTopicState topic) {
    boolean byId = topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId());
    if (byId && topic.name() != null) {
      return answered(
          topic.name(),
          topic.topicId(),
          Errors.INVALID_REQUEST,
          "You may not specify both topic name and topic id.");
    }
    if (!byId && topic.name() == null) {
      return answered(
          null, Uuid.ZERO_UUID, Errors.INVALID_REQUEST, "Neither topic name nor id was given.");
    }
    String name = topic.name();
    Uuid topicId;
    if (byId) {
      TopicImage found = TopicIds.find(image, topic.topicId());
      if (found == null) {
        return answered(null, topic.topicId(), Errors.UNKNOWN_TOPIC_ID, null);
      }
      if (!access.allows(context.request(), AclOperation.READ, ResourceType.TOPIC, found.name())) {
        return answered(null, topic.topicId(), Errors.TOPIC_AUTHORIZATION_FAILED, null);
      }
      name = found.name();
      topicId = topic.topicId();
    } else {
      topicId = image.topic(name).map(t -> TopicIds.toKafka(t.topicId())).orElse(Uuid.ZERO_UUID);
    }
    String deleted = name;
    Uuid deletedId = topicId;
    return AdminCalls.attempt(() -> admin.deleteTopic(context.request(), deleted))
        .handle(
            (done, failure) -> {
              AdminCalls.Outcome outcome = AdminCalls.Outcome.of(failure);
              return result(deleted, deletedId, outcome.error(), outcome.message());
            });
  }

  private static CompletableFuture<DeletableTopicResult> answered(
      String name, Uuid topicId, Errors error, String message) {
    return CompletableFuture.completedFuture(result(name, topicId, error, message));
  }

  private static DeletableTopicResult result(
      String name, Uuid topicId, Errors error, String message) {
    return new DeletableTopicResult()
        .setName(name)
        .setTopicId(topicId == null ? Uuid.ZERO_UUID : topicId)
        .setErrorCode(error.code())
        .setErrorMessage(message);
  }
}
