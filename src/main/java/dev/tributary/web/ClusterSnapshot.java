package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What the dashboard shows: the cluster's brokers and, for each partition this broker hosts, its leadership and
 * offsets. The dashboard issue will push the same shape over a WebSocket (snapshot on subscribe, then deltas).
 */
record ClusterSnapshot(
    @JsonProperty("cluster_id") String clusterId,
    @JsonProperty("broker_id") int brokerId,
    @JsonProperty("controller_id") int controllerId,
    @JsonProperty("controller_epoch") long controllerEpoch,
    @JsonProperty("brokers") List<BrokerRow> brokers,
    @JsonProperty("partitions") List<PartitionRow> partitions) {

  record BrokerRow(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("state") String state,
      @JsonProperty("controller") boolean controller) {}

  record PartitionRow(
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("leader") int leader,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("replicas") List<Integer> replicas,
      @JsonProperty("isr") List<Integer> isr,
      @JsonProperty("log_start_offset") long logStartOffset,
      @JsonProperty("high_watermark") long highWatermark,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("size_bytes") long sizeBytes,
      @JsonProperty("segments") int segments,
      @JsonProperty("status") String status) {}
}
