package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.server.AdminService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;

/**
 * ListPartitionReassignments (v0, KIP-455) through {@link AdminService}: the partitions being
 * reassigned, of every topic (null topics) or of the partitions named, each with its replicas (the
 * target, then those leaving), the adding and the removing ones. A partition named that is not
 * being reassigned, or does not exist, is left out, as in Kafka. Read from this broker's metadata
 * image, so the request's timeout is not used. Needs READ on the cluster (Kafka's DESCRIBE):
 * CLUSTER_AUTHORIZATION_FAILED for the request.
 */
final class ListPartitionReassignmentsApi implements ApiHandler {
  private final AdminService admin;

  ListPartitionReassignmentsApi(AdminService admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.LIST_PARTITION_REASSIGNMENTS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 0;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    ListPartitionReassignmentsRequestData data =
        ((ListPartitionReassignmentsRequest) request).data();
    Set<String> topics = null;
    Set<TopicPartition> named = null;
    if (data.topics() != null) {
      topics = new HashSet<>();
      named = new HashSet<>();
      for (ListPartitionReassignmentsTopics topic : data.topics()) {
        topics.add(topic.name());
        for (int partition : topic.partitionIndexes()) {
          if (partition >= 0) { // a negative one names no partition: left out
            named.add(new TopicPartition(topic.name(), partition));
          }
        }
      }
    }
    SortedMap<TopicPartition, PartitionImage> ongoing =
        admin.listPartitionReassignments(context.request(), topics);
    Map<String, OngoingTopicReassignment> byTopic = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, PartitionImage> entry : ongoing.entrySet()) {
      TopicPartition tp = entry.getKey();
      if (named != null && !named.contains(tp)) {
        continue;
      }
      PartitionImage partition = entry.getValue();
      byTopic
          .computeIfAbsent(tp.topic(), name -> new OngoingTopicReassignment().setName(name))
          .partitions()
          .add(
              new OngoingPartitionReassignment()
                  .setPartitionIndex(tp.partition())
                  .setReplicas(partition.replicas())
                  .setAddingReplicas(partition.addingReplicas())
                  .setRemovingReplicas(partition.removingReplicas()));
    }
    return CompletableFuture.completedFuture(
        new ListPartitionReassignmentsResponse(
            new ListPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setTopics(new ArrayList<>(byTopic.values()))));
  }
}
