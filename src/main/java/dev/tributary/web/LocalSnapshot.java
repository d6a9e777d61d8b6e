package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ReplicaStatus;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The body of {@code GET /dashboard/state?scope=local}: the partitions this broker hosts, as its
 * replicas see them, with their offsets. Other brokers read it to fill in the offsets of the
 * partitions this broker leads, so it is a broker-to-broker contract too: add fields, do not rename
 * them (readers ignore unknown fields).
 *
 * @param fetchPausedUntilMs until when this broker's replica fetching is paused (the dashboard
 *     fault), 0 if not
 * @param fetchedRecords records this broker has served to consumers since it started, by topic (a
 *     counter: the live view turns successive values into rates)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record LocalSnapshot(
    @JsonProperty("scope") String scope,
    @JsonProperty("broker_id") int brokerId,
    @JsonProperty("partitions") List<LocalPartition> partitions,
    @JsonProperty("fetch_paused_until_ms") long fetchPausedUntilMs,
    @JsonProperty("fetched_records") Map<String, Long> fetchedRecords) {

  static final String SCOPE = "local";

  LocalSnapshot {
    partitions = partitions == null ? List.of() : List.copyOf(partitions);
    fetchedRecords = fetchedRecords == null ? Map.of() : Map.copyOf(fetchedRecords);
  }

  /** Partitions only: no fetch pause, no counters (as from a broker that predates those fields). */
  LocalSnapshot(String scope, int brokerId, List<LocalPartition> partitions) {
    this(scope, brokerId, partitions, 0, Map.of());
  }

  /**
   * The snapshot of {@code brokerId}'s hosted partitions, sorted by topic then partition.
   *
   * @param leadersOnly only the partitions it leads, without the raw fetch clocks: all a cluster
   *     view takes from a broker (its own or a peer's), and the same bytes as long as nothing a
   *     page shows has changed (the answer's ETag then holds)
   */
  static LocalSnapshot of(
      int brokerId,
      Collection<Partition> hosted,
      long nowMs,
      long fetchPausedUntilMs,
      Map<String, Long> fetchedRecords,
      boolean leadersOnly) {
    return new LocalSnapshot(
        SCOPE,
        brokerId,
        hosted.stream()
            .filter(p -> !leadersOnly || p.isLeader())
            .sorted(
                Comparator.comparing((Partition p) -> p.topicPartition().topic())
                    .thenComparingInt(p -> p.topicPartition().partition()))
            .map(p -> row(p, nowMs, !leadersOnly))
            .toList(),
        fetchPausedUntilMs,
        new TreeMap<>(fetchedRecords));
  }

  private static LocalPartition row(Partition p, long nowMs, boolean withFetchClock) {
    return new LocalPartition(
        p.topicPartition().topic(),
        p.topicPartition().partition(),
        p.isLeader(),
        p.leaderEpoch(),
        new Offsets(
            p.logStartOffset(),
            p.highWatermark(),
            p.logEndOffset(),
            p.log().size(),
            p.log().numberOfSegments(),
            p.statusLine(),
            p.replicaStatuses(nowMs).stream()
                .map(r -> progress(r, nowMs, withFetchClock))
                .toList()));
  }

  private static ReplicaProgress progress(ReplicaStatus r, long nowMs, boolean withFetchClock) {
    return new ReplicaProgress(
        r.brokerId(),
        r.isInSync(),
        r.logEndOffset(),
        r.lag(),
        withFetchClock ? r.lastFetchMs() : null,
        fetchAgeMs(r, nowMs));
  }

  /**
   * Time since the replica's last fetch, in whole seconds (as ms): 0 while it fetches normally (a
   * long poll returns at least every replica.fetch.wait.max.ms), so an idle healthy cluster gives
   * the same value every time and the live view sends nothing; a stalled follower's age then ticks
   * once a second.
   */
  static long fetchAgeMs(ReplicaStatus r, long nowMs) {
    if (r.isLeader()) {
      return 0;
    }
    if (r.lastFetchMs() < 0) {
      return -1;
    }
    return Math.max(0, nowMs - r.lastFetchMs()) / 1000 * 1000;
  }

  /**
   * One hosted replica; {@code leader} says whether this broker leads it (a follower's offsets lag
   * the leader's).
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalPartition(
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("leader") boolean leader,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("offsets") Offsets offsets) {}

  /**
   * A replica's log offsets, read without a common lock, so only roughly consistent with each
   * other.
   *
   * @param statusLine the replica's one-line status ({@link Partition#statusLine()}), shared with
   *     logs and tests
   * @param replicas every replica's progress as this leader sees it (empty from a follower, which
   *     does not know)
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

  /**
   * One replica's log end offset and lag behind the leader's (-1 when the leader has not heard from
   * it yet).
   *
   * @param lastFetchMs the leader's clock at the replica's last fetch (-1 never); null in {@code
   *     leading_only} answers, which serve the live view: it moves on every fetch and would make
   *     every answer new
   * @param lastFetchAgeMs see {@link #fetchAgeMs}; what the live view shows and compares
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ReplicaProgress(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("in_sync") boolean inSync,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("lag") long lag,
      @JsonProperty("last_fetch_ms") Long lastFetchMs,
      @JsonProperty("last_fetch_age_ms") long lastFetchAgeMs) {}
}
