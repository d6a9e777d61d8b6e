package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.server.AdminService;
import dev.tributary.server.MetadataCache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;

/**
 * AlterPartitionReassignments (v0–1, KIP-455) through {@link AdminService}: each partition's
 * reassignment is started, replaced, or cancelled (null replicas) on its own, and answers NONE,
 * UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (an empty target, a broker named twice or
 * not registered) or NO_REASSIGNMENT_IN_PROGRESS (a cancellation with nothing to cancel); the
 * controller's rules are {@link dev.tributary.metadata.ReassignmentControl}'s. Needs ADMIN on the
 * cluster (Kafka's ALTER): CLUSTER_AUTHORIZATION_FAILED for the request and every partition.
 *
 * <p>v1's {@code allow_replication_factor_change} false (KIP-860) refuses a target whose size is
 * not the partition's replica count (the replicas it is headed for, if a reassignment is in
 * progress) with INVALID_REPLICATION_FACTOR, as Kafka does. That check reads this broker's metadata
 * image, not the controller's: a reassignment committed a moment ago may not be seen yet.
 *
 * <p>The request's timeout is not used: the answer comes once this broker has applied the change
 * (the copying goes on after), within {@link AdminService}'s bound. A partition named twice is
 * reassigned to its last target and each mention answered with the outcome, as Kafka's controller
 * applies them in order.
 */
final class AlterPartitionReassignmentsApi implements ApiHandler {
  private final AdminService admin;
  private final MetadataCache metadata;

  AlterPartitionReassignmentsApi(AdminService admin, MetadataCache metadata) {
    this.admin = admin;
    this.metadata = metadata;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.ALTER_PARTITION_REASSIGNMENTS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    AlterPartitionReassignmentsRequestData data =
        ((AlterPartitionReassignmentsRequest) request).data();
    Map<TopicPartition, Optional<List<Integer>>> targets = new LinkedHashMap<>();
    for (ReassignableTopic topic : data.topics()) {
      for (ReassignablePartition partition : topic.partitions()) {
        // Negative partitions: none exists, and TopicPartition cannot name one (answered below).
        if (partition.partitionIndex() >= 0) {
          targets.put(
              new TopicPartition(topic.name(), partition.partitionIndex()),
              Optional.ofNullable(partition.replicas()).map(List::copyOf));
        }
      }
    }
    // v0 reads as true (the field's default): the replication factor may change.
    Map<TopicPartition, AdminCalls.Outcome> refused =
        data.allowReplicationFactorChange()
            ? new HashMap<>()
            : replicationFactorChanges(metadata.metadata(), targets);
    refused.keySet().forEach(targets::remove);
    // Called even when nothing is left, so that the request is authorized all the same.
    return admin
        .alterPartitionReassignments(context.request(), targets)
        .thenApply(outcomes -> response(data, outcomes, refused));
  }

  /**
   * The targets that would change their partition's replication factor, refused as Kafka's
   * controller refuses them; unknown partitions are left to the controller to answer.
   */
  private static Map<TopicPartition, AdminCalls.Outcome> replicationFactorChanges(
      MetadataImage image, Map<TopicPartition, Optional<List<Integer>>> targets) {
    Map<TopicPartition, AdminCalls.Outcome> refused = new HashMap<>();
    targets.forEach(
        (tp, target) -> {
          if (target.isEmpty()) {
            return; // a cancellation returns to the original replicas, whatever their count
          }
          PartitionImage current =
              image
                  .topic(tp.topic())
                  .map(topic -> topic.partitions().get(tp.partition()))
                  .orElse(null);
          if (current == null) {
            return;
          }
          int replicationFactor = current.targetReplicas().size();
          if (replicationFactor != target.get().size()) {
            refused.put(
                tp,
                AdminCalls.Outcome.error(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "The replication factor is changed from "
                        + replicationFactor
                        + " to "
                        + target.get().size()));
          }
        });
    return refused;
  }

  private static AbstractResponse response(
      AlterPartitionReassignmentsRequestData data,
      Map<TopicPartition, PartitionOutcome> outcomes,
      Map<TopicPartition, AdminCalls.Outcome> refused) {
    List<ReassignableTopicResponse> topics = new ArrayList<>();
    for (ReassignableTopic topic : data.topics()) {
      ReassignableTopicResponse answered = new ReassignableTopicResponse().setName(topic.name());
      for (ReassignablePartition partition : topic.partitions()) {
        AdminCalls.Outcome outcome =
            partition.partitionIndex() < 0
                ? AdminCalls.Outcome.error(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "No such partition as " + topic.name() + "-" + partition.partitionIndex())
                : outcome(
                    new TopicPartition(topic.name(), partition.partitionIndex()),
                    outcomes,
                    refused);
        answered
            .partitions()
            .add(
                new ReassignablePartitionResponse()
                    .setPartitionIndex(partition.partitionIndex())
                    .setErrorCode(outcome.error().code())
                    .setErrorMessage(outcome.message()));
      }
      topics.add(answered);
    }
    return new AlterPartitionReassignmentsResponse(
        new AlterPartitionReassignmentsResponseData()
            .setErrorCode(Errors.NONE.code())
            .setAllowReplicationFactorChange(data.allowReplicationFactorChange())
            .setResponses(topics));
  }

  private static AdminCalls.Outcome outcome(
      TopicPartition tp,
      Map<TopicPartition, PartitionOutcome> outcomes,
      Map<TopicPartition, AdminCalls.Outcome> refused) {
    AdminCalls.Outcome refusal = refused.get(tp);
    if (refusal != null) {
      return refusal;
    }
    PartitionOutcome outcome = outcomes.get(tp);
    if (outcome == null) {
      // Every partition asked for has an outcome; this would be a controller bug, told as one.
      return AdminCalls.Outcome.error(Errors.UNKNOWN_SERVER_ERROR, "No outcome for " + tp);
    }
    return outcome.error() == dev.tributary.common.errors.Errors.NONE
        ? AdminCalls.Outcome.NONE
        : AdminCalls.Outcome.error(KafkaErrors.of(outcome.error()), outcome.message());
  }
}
