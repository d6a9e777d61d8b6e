package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.replication.Partition;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The body of {@code GET /dashboard/state?scope=local}: the partitions this broker hosts, as its replicas see them,
 * with their offsets. Other brokers read it to fill in the offsets of the partitions this broker leads, so it is a
 * broker-to-broker contract too: add fields, do not rename them (readers ignore unknown fields).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record LocalSnapshot(
    @JsonProperty("scope") String scope,
    @JsonProperty("broker_id") int brokerId,
    @JsonProperty("partitions") List<LocalPartition> partitions) {

  static final String SCOPE = "local";

  LocalSnapshot {
    partitions = List.copyOf(partitions);
  }

  /** The snapshot of {@code brokerId}'s hosted partitions, sorted by topic then partition. */
  static LocalSnapshot of(int brokerId, Collection<Partition> hosted) {
    return new LocalSnapshot(
        SCOPE, brokerId,
        hosted.stream()
            .sorted(Comparator.comparing((Partition p) -> p.topicPartition().topic())
                .thenComparingInt(p -> p.topicPartition().partition()))
            .map(LocalSnapshot::row)
            .toList());
  }

  private static LocalPartition row(Partition p) {
    return new LocalPartition(
        p.topicPartition().topic(), p.topicPartition().partition(), p.isLeader(), p.leaderEpoch(),
        new Offsets(
            p.logStartOffset(), p.highWatermark(), p.logEndOffset(), p.log().size(), p.log().numberOfSegments(),
            p.statusLine(),
            p.replicaStatuses(System.currentTimeMillis()).stream()
                .map(r -> new ReplicaProgress(r.brokerId(), r.isInSync(), r.logEndOffset(), r.lag(), r.lastFetchMs()))
                .toList()));
  }

  /** One hosted replica; {@code leader} says whether this broker leads it (a follower's offsets lag the leader's). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalPartition(
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("leader") boolean leader,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("offsets") Offsets offsets) {}

  /**
   * A replica's log offsets, read without a common lock, so only roughly consistent with each other.
   *
   * @param statusLine the replica's one-line status ({@link Partition#statusLine()}), shared with logs and tests
   * @param replicas every replica's progress as this leader sees it (empty from a follower, which does not know)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Offsets(
      @JsonProperty("log_start_offset") long logStartOffset,
      @JsonProperty("high_watermark") long highWatermark,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("size_bytes") long sizeBytes,
      @JsonProperty("segments") int segments,
      @JsonProperty("status_line") String statusLine,
      @JsonProperty("replicas") List<ReplicaProgress> replicas) {
    Offsets {
      replicas = replicas == null ? List.of() : List.copyOf(replicas);
    }
  }

  /** One replica's log end offset and lag behind the leader's (-1 when the leader has not heard from it yet). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ReplicaProgress(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("in_sync") boolean inSync,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("lag") long lag,
      @JsonProperty("last_fetch_ms") long lastFetchMs) {}
}
