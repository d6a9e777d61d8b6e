package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Locale;

/**
 * The body of {@code GET /dashboard/state} (scope {@code cluster}): the whole cluster as one broker sees it. Brokers
 * and partitions come from that broker's metadata image; each partition's offsets come from its leader (see
 * {@link ClusterSnapshots#merge}). The WebSocket issue will push the same shape (snapshot on subscribe, then deltas).
 *
 * @param brokerId the broker that answered (the one serving the page)
 * @param metadataOffset the metadata-log offset of the image the answer was built from
 */
record ClusterSnapshot(
    @JsonProperty("scope") String scope,
    @JsonProperty("cluster_id") String clusterId,
    @JsonProperty("broker_id") int brokerId,
    @JsonProperty("controller_id") int controllerId,
    @JsonProperty("controller_epoch") long controllerEpoch,
    @JsonProperty("metadata_offset") long metadataOffset,
    @JsonProperty("brokers") List<BrokerRow> brokers,
    @JsonProperty("partitions") List<PartitionRow> partitions) {

  static final String SCOPE = "cluster";

  /**
   * One registered broker.
   *
   * @param state {@code alive} (registered and unfenced) or {@code fenced} (may lead nothing; a broker that stopped
   *     heartbeating gets fenced after the session timeout, so a just-killed broker is still {@code alive} for a while)
   * @param reachable whether it answered this snapshot's offsets request: {@code true} for the answering broker
   *     itself, {@code null} when it was not asked (it leads no partition)
   */
  record BrokerRow(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("state") String state,
      @JsonProperty("broker_epoch") long brokerEpoch,
      @JsonProperty("controller") boolean controller,
      @JsonProperty("reachable") Boolean reachable) {}

  /**
   * One partition of one topic.
   *
   * @param leader the leader's broker id, -1 when the partition is offline
   * @param osr the out-of-sync replicas: replicas not in the ISR, in replica order
   * @param state see {@link PartitionState}
   * @param offsets the leader's offsets, {@code null} unless {@code state} is {@code online}
   */
  record PartitionRow(
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("state") String state,
      @JsonProperty("leader") int leader,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("replicas") List<Integer> replicas,
      @JsonProperty("isr") List<Integer> isr,
      @JsonProperty("osr") List<Integer> osr,
      @JsonProperty("offsets") LocalSnapshot.Offsets offsets) {}

  /** Where a partition's offsets stand; the JSON carries the lower-case name. */
  enum PartitionState {
    /** The leader answered and leads the partition: {@code offsets} are its own. */
    ONLINE,
    /** No leader (leader -1): nobody can produce or consume until one of the ISR comes back. */
    OFFLINE,
    /** The leader did not answer in time (crashed, paused, partitioned away): offsets unknown. */
    UNREACHABLE,
    /** The leader answered but does not lead the partition (yet): its metadata and ours disagree for a moment. */
    LEADER_NOT_AVAILABLE;

    String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
