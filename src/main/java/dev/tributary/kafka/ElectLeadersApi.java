package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.server.AdminService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;

/**
 * ElectLeaders (v0–2), preferred elections only, through {@link AdminService}: each partition asked
 * for (every partition when none is named, then only those whose leader changed or could not) is
 * elected (NONE), ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE or
 * UNKNOWN_TOPIC_OR_PARTITION. Needs ADMIN on the cluster (Kafka's ALTER):
 * CLUSTER_AUTHORIZATION_FAILED for the request and every partition. An UNCLEAN election is not
 * offered (the controller moves leadership to an out-of-sync replica only by itself, for a topic
 * that allows it): INVALID_REQUEST for the request and every partition.
 */
final class ElectLeadersApi implements ApiHandler {
  private final AdminService admin;

  ElectLeadersApi(AdminService admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.ELECT_LEADERS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    ElectLeadersRequestData data = ((ElectLeadersRequest) request).data();
    if (context.apiVersion() >= 1 && data.electionType() != ElectionType.PREFERRED.value) {
      throw new InvalidRequestException(
          data.electionType() == ElectionType.UNCLEAN.value
              ? "Unclean leader elections are not supported; the controller elects an out-of-sync"
                  + " leader by itself when a topic sets unclean.leader.election.enable"
              : "Unknown election type " + data.electionType());
    }
    List<TopicPartition> partitions = null;
    // Negative partitions: none exists, and TopicPartition cannot name one; answered as unknown.
    Map<String, List<Integer>> negative = new LinkedHashMap<>();
    if (data.topicPartitions() != null) {
      partitions = new ArrayList<>();
      for (ElectLeadersRequestData.TopicPartitions topic : data.topicPartitions()) {
        for (int partition : topic.partitions()) {
          if (partition < 0) {
            negative.computeIfAbsent(topic.topic(), t -> new ArrayList<>()).add(partition);
          } else {
            partitions.add(new TopicPartition(topic.topic(), partition));
          }
        }
      }
    }
    return admin
        .electPreferredLeaders(context.request(), partitions)
        .thenApply(outcomes -> response(outcomes, negative));
  }

  private static AbstractResponse response(
      Map<TopicPartition, ElectionOutcome> outcomes, Map<String, List<Integer>> negative) {
    Map<String, ReplicaElectionResult> byTopic = new LinkedHashMap<>();
    outcomes.forEach(
        (tp, outcome) ->
            result(byTopic, tp.topic(), tp.partition(), outcome.error().code(), outcome.message()));
    negative.forEach(
        (topic, partitions) ->
            partitions.forEach(
                partition ->
                    result(
                        byTopic,
                        topic,
                        partition,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                        "No such partition as " + topic + "-" + partition)));
    return new ElectLeadersResponse(
        new ElectLeadersResponseData()
            .setErrorCode(Errors.NONE.code())
            .setReplicaElectionResults(new ArrayList<>(byTopic.values())));
  }

  private static void result(
      Map<String, ReplicaElectionResult> byTopic,
      String topic,
      int partition,
      short errorCode,
      String message) {
    byTopic
        .computeIfAbsent(topic, t -> new ReplicaElectionResult().setTopic(t))
        .partitionResult()
        .add(
            new PartitionResult()
                .setPartitionId(partition)
                .setErrorCode(errorCode)
                .setErrorMessage(message));
  }
}
