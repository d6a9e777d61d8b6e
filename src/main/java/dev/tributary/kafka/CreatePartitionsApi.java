package dev.tributary.kafka;

import dev.tributary.metadata.NewPartitions;
import dev.tributary.server.AdminService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;

/**
 * CreatePartitions (v0–3) through {@link AdminService}, each topic on its own: grows it to the new
 * count, the new partitions placed automatically (null assignments) or by hand, or only validates.
 * Errors as Kafka's: INVALID_PARTITIONS (the count does not grow), INVALID_REPLICA_ASSIGNMENT,
 * UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED without ADMIN on the topic,
 * INVALID_REQUEST for a topic named twice.
 */
final class CreatePartitionsApi implements ApiHandler {
  private final AdminService admin;

  CreatePartitionsApi(AdminService admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.CREATE_PARTITIONS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 3;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    CreatePartitionsRequestData data = ((CreatePartitionsRequest) request).data();
    Map<String, Integer> named = new HashMap<>();
    data.topics().forEach(topic -> named.merge(topic.name(), 1, Integer::sum));
    List<CompletableFuture<CreatePartitionsTopicResult>> results = new ArrayList<>();
    for (CreatePartitionsTopic topic : data.topics()) {
      CompletableFuture<Void> grown =
          named.get(topic.name()) > 1
              ? CompletableFuture.failedFuture(
                  Errors.INVALID_REQUEST.exception("Duplicate topic name."))
              : AdminCalls.attempt(
                  () ->
                      admin.createPartitions(
                          context.request(), newPartitions(topic), data.validateOnly()));
      results.add(
          grown.handle(
              (done, failure) -> {
                AdminCalls.Outcome outcome = AdminCalls.Outcome.of(failure);
                return new CreatePartitionsTopicResult()
                    .setName(topic.name())
                    .setErrorCode(outcome.error().code())
                    .setErrorMessage(outcome.message());
              }));
    }
    return AdminCalls.all(results)
        .thenApply(
            answered ->
                new CreatePartitionsResponse(
                    new CreatePartitionsResponseData().setResults(answered)));
  }

  private static NewPartitions newPartitions(CreatePartitionsTopic topic) {
    List<List<Integer>> assignments = new ArrayList<>();
    if (topic.assignments() != null) {
      for (CreatePartitionsAssignment assignment : topic.assignments()) {
        assignments.add(assignment.brokerIds());
      }
    }
    return new NewPartitions(topic.name(), topic.count(), assignments);
  }
}
