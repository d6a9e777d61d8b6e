package dev.tributary.kafka;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.metadata.NewTopic;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.ConfigDescriptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;

/**
 * CreateTopics (v2–7) through {@link AdminService}, each topic on its own: placed automatically (-1
 * partitions or replication factor: the broker's defaults) or by hand, with its configs, or only
 * validated ({@code validate_only}). Each answers its error (TOPIC_ALREADY_EXISTS,
 * INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG,
 * TOPIC_AUTHORIZATION_FAILED without ADMIN on the cluster or the topic, INVALID_REQUEST for a name
 * given twice) or, from v5, its partitions, replication factor and configs (the configs only to a
 * principal that may read the topic's, else TOPIC_AUTHORIZATION_FAILED as the config error), and
 * from v7 its id. There is no create policy, so never POLICY_VIOLATION; the request's timeout is
 * not used (a create waits at most until this broker has applied it, see {@link AdminService}).
 */
final class CreateTopicsApi implements ApiHandler {
  private final AdminService admin;
  private final AccessControl access;

  CreateTopicsApi(AdminService admin, AccessControl access) {
    this.admin = admin;
    this.access = access;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.CREATE_TOPICS;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 7;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    CreateTopicsRequestData data = ((CreateTopicsRequest) request).data();
    Map<String, Integer> named = new HashMap<>();
    data.topics().forEach(topic -> named.merge(topic.name(), 1, Integer::sum));
    List<CompletableFuture<CreatableTopicResult>> results = new ArrayList<>();
    for (CreatableTopic topic : data.topics()) {
      results.add(
          named.get(topic.name()) > 1
              ? CompletableFuture.completedFuture(
                  failed(
                      topic.name(),
                      AdminCalls.Outcome.error(
                          org.apache.kafka.common.protocol.Errors.INVALID_REQUEST,
                          "Duplicate topic name.")))
              : create(context, topic, data.validateOnly()));
    }
    return AdminCalls.all(results)
        .thenApply(
            answered -> {
              CreateTopicsResponseData response = new CreateTopicsResponseData();
              answered.forEach(response.topics()::add);
              return new CreateTopicsResponse(response);
            });
  }

  private CompletableFuture<CreatableTopicResult> create(
      KafkaRequestContext context, CreatableTopic topic, boolean validateOnly) {
    CompletableFuture<Created> created =
        AdminCalls.attempt(
            () -> {
              NewTopic newTopic = newTopic(topic);
              return validateOnly
                  ? admin
                      .validateCreateTopic(context.request(), newTopic)
                      .thenApply(
                          valid ->
                              new Created(
                                  Uuid.ZERO_UUID,
                                  valid.partitionCount(),
                                  valid.replicationFactorOrFirst(),
                                  valid.configs()))
                  : admin
                      .createTopic(context.request(), newTopic)
                      .thenApply(
                          image ->
                              new Created(
                                  TopicIds.toKafka(image.topicId()),
                                  image.partitionCount(),
                                  image.replicationFactor(),
                                  image.configs()));
            });
    return created.handle(
        (done, failure) ->
            failure != null
                ? failed(topic.name(), AdminCalls.Outcome.of(failure))
                : succeeded(context, topic.name(), done));
  }

  /** What a create made (or would make): the answer's id (zero when validated), counts, configs. */
  private record Created(
      Uuid topicId, int partitions, int replicationFactor, Map<String, String> configs) {}

  private CreatableTopicResult succeeded(
      KafkaRequestContext context, String name, Created created) {
    CreatableTopicResult result =
        new CreatableTopicResult()
            .setName(name)
            .setTopicId(created.topicId())
            .setErrorCode(Errors.NONE.code())
            .setNumPartitions(created.partitions())
            .setReplicationFactor((short) created.replicationFactor());
    if (access.allows(context.request(), AclOperation.READ, ResourceType.TOPIC, name)) {
      ConfigDescriptions.topicConfigs(created.configs())
          .forEach(entry -> result.configs().add(ConfigEntries.created(entry)));
    } else {
      result.setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
    return result;
  }

  private static CreatableTopicResult failed(String name, AdminCalls.Outcome outcome) {
    return new CreatableTopicResult()
        .setName(name)
        .setErrorCode(outcome.error().code())
        .setErrorMessage(outcome.message());
  }

  /**
   * The request's topic as the controller takes it: partitions {@code 0..n-1} placed by hand (in
   * any order), or a count and replication factor (-1 stays -1: {@link AdminService} applies the
   * broker's defaults).
   *
   * @throws ApiException INVALID_REPLICA_ASSIGNMENT for a partition assigned twice or assignments
   *     not of partitions 0 to n-1 (Kafka's messages); INVALID_CONFIG for a config without a value
   */
  static NewTopic newTopic(CreatableTopic topic) {
    Map<String, String> configs = new LinkedHashMap<>();
    List<String> withoutValue = new ArrayList<>();
    for (CreatableTopicConfig config : topic.configs()) {
      if (config.value() == null) {
        withoutValue.add(config.name());
      } else {
        configs.put(config.name(), config.value());
      }
    }
    if (!withoutValue.isEmpty()) {
      throw new InvalidConfigException(
          "Null value not supported for topic configs: " + String.join(",", withoutValue));
    }
    if (topic.assignments().isEmpty()) {
      return new NewTopic(
          topic.name(), topic.numPartitions(), topic.replicationFactor(), List.of(), configs);
    }
    Map<Integer, List<Integer>> byPartition = new TreeMap<>();
    for (CreatableReplicaAssignment assignment : topic.assignments()) {
      if (byPartition.put(assignment.partitionIndex(), assignment.brokerIds()) != null) {
        throw Errors.INVALID_REPLICA_ASSIGNMENT.exception(
            "Found multiple manual partition assignments for partition "
                + assignment.partitionIndex());
      }
    }
    List<List<Integer>> assignments = new ArrayList<>();
    for (int partition = 0; partition < byPartition.size(); partition++) {
      if (!byPartition.containsKey(partition)) {
        throw Errors.INVALID_REPLICA_ASSIGNMENT.exception(
            "partitions should be a consecutive 0-based integer sequence");
      }
      assignments.add(byPartition.get(partition));
    }
    return new NewTopic(
        topic.name(), topic.numPartitions(), topic.replicationFactor(), assignments, configs);
  }
}
