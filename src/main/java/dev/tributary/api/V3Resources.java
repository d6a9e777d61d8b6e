package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Response shapes of REST Proxy v3 (kind, metadata with a self link, related links), plus a few
 * plain fields.
 */
final class V3Resources {
  private V3Resources() {}

  record Related(@JsonProperty("related") String related) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ResourceMetadata(
      @JsonProperty("self") String self, @JsonProperty("resource_name") String resourceName) {}

  record ListMetadata(@JsonProperty("self") String self, @JsonProperty("next") String next) {}

  record ResourceList<T>(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ListMetadata metadata,
      @JsonProperty("data") List<T> data) {}

  record Cluster(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("controller_id") int controllerId,
      @JsonProperty("controller_epoch") long controllerEpoch,
      @JsonProperty("controller") Related controller,
      @JsonProperty("brokers") Related brokers,
      @JsonProperty("topics") Related topics) {}

  record Broker(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("rack") String rack,
      @JsonProperty("state") String state,
      @JsonProperty("incarnation_id") String incarnationId,
      @JsonProperty("broker_epoch") long brokerEpoch,
      @JsonProperty("listeners") List<Listener> listeners) {}

  /**
   * One listener a broker advertises; {@code host} and {@code port} of a broker are its HTTP one.
   */
  record Listener(
      @JsonProperty("name") String name,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("security_protocol") String securityProtocol) {}

  record Topic(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("topic_id") String topicId,
      @JsonProperty("is_internal") boolean isInternal,
      @JsonProperty("replication_factor") int replicationFactor,
      @JsonProperty("partitions_count") int partitionsCount,
      @JsonProperty("partitions") Related partitions,
      @JsonProperty("configs") Related configs) {}

  record Partition(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("leader_id") int leaderId,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("replica_ids") List<Integer> replicaIds,
      @JsonProperty("isr_ids") List<Integer> isrIds,
      @JsonProperty("leader") Related leader,
      @JsonProperty("replicas") Related replicas) {}

  record Replica(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("is_leader") boolean isLeader,
      @JsonProperty("is_in_sync") boolean isInSync,
      @JsonProperty("log_end_offset") Long logEndOffset,
      @JsonProperty("high_watermark") Long highWatermark,
      @JsonProperty("lag") Long lag,
      @JsonProperty("last_fetch_ms") Long lastFetchMs,
      @JsonProperty("last_caught_up_ms") Long lastCaughtUpMs,
      @JsonProperty("broker") Related broker) {}

  record TopicConfig(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("name") String name,
      @JsonProperty("value") String value,
      @JsonProperty("is_default") boolean isDefault,
      @JsonProperty("is_read_only") boolean isReadOnly,
      @JsonProperty("is_sensitive") boolean isSensitive,
      @JsonProperty("source") String source) {}
}
