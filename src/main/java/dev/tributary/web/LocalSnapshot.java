package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.replication.PartitionStatus;
import dev.tributary.replication.ReplicaStatus;
import java.util.Collection;
import java.util.Collections;
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
 * @param groups the consumer groups this broker's coordinator holds (those whose {@code
 *     __consumer_offsets} partition it leads and has loaded), sorted by id; see {@link LocalGroups}
 * @param groupEvents its coordinator's recent group events, oldest first
 * @param clientConnectionCount how many client connections its Kafka listener has open; null from a
 *     broker that predates the field
 * @param clientConnections the oldest {@link LocalClients#MAX_CONNECTIONS} of them, oldest first;
 *     see {@link LocalClients}
 * @param replicaLagTimeMaxMs this broker's {@code replica.lag.time.max.ms}: as leader, it drops a
 *     follower from the ISR once its {@link ReplicaProgress#outOfSyncMs} passes this; null from a
 *     broker that predates the field
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record LocalSnapshot(
    @JsonProperty("scope") String scope,
    @JsonProperty("broker_id") int brokerId,
    @JsonProperty("partitions") List<LocalPartition> partitions,
    @JsonProperty("fetch_paused_until_ms") long fetchPausedUntilMs,
    @JsonProperty("fetched_records") Map<String, Long> fetchedRecords,
    @JsonProperty("groups") List<LocalGroup> groups,
    @JsonProperty("group_events") List<LocalGroupEvent> groupEvents,
    @JsonProperty("client_connection_count") Integer clientConnectionCount,
    @JsonProperty("client_connections") List<LocalConnection> clientConnections,
    @JsonProperty("replica_lag_time_max_ms") Long replicaLagTimeMaxMs) {

  static final String SCOPE = "local";

  /**
   * The steps in which {@link ReplicaProgress#outOfSyncMs} moves while the follower is in the ISR:
   * the page shows tenths of a second (and counts on between answers by itself), so finer steps
   * would only make more answers differ.
   */
  static final long IN_SYNC_STEP_MS = 100;

  /**
   * The steps out of the ISR: whole seconds, as {@link #fetchAgeMs}, so a replica that has been out
   * for hours (its broker is down) changes its leader's answer once a second, not on every poll.
   */
  static final long OUT_OF_SYNC_STEP_MS = 1_000;

  LocalSnapshot {
    partitions = partitions == null ? List.of() : List.copyOf(partitions);
    fetchedRecords = fetchedRecords == null ? Map.of() : Map.copyOf(fetchedRecords);
    groups = groups == null ? List.of() : List.copyOf(groups);
    groupEvents = groupEvents == null ? List.of() : List.copyOf(groupEvents);
    clientConnections = clientConnections == null ? List.of() : List.copyOf(clientConnections);
  }

  /**
   * Partitions only: no fetch pause, no counters, no groups (as from a broker that predates those
   * fields).
   */
  LocalSnapshot(String scope, int brokerId, List<LocalPartition> partitions) {
    this(scope, brokerId, partitions, 0, Map.of());
  }

  /** No groups (as from a broker that predates them, or whose coordinator has not started). */
  LocalSnapshot(
      String scope,
      int brokerId,
      List<LocalPartition> partitions,
      long fetchPausedUntilMs,
      Map<String, Long> fetchedRecords) {
    this(
        scope,
        brokerId,
        partitions,
        fetchPausedUntilMs,
        fetchedRecords,
        List.of(),
        List.of(),
        null,
        List.of(),
        null);
  }

  /** The same answer with these groups and group events (tests, and {@link LocalSnapshots}). */
  LocalSnapshot withGroups(List<LocalGroup> newGroups, List<LocalGroupEvent> newGroupEvents) {
    return new LocalSnapshot(
        scope,
        brokerId,
        partitions,
        fetchPausedUntilMs,
        fetchedRecords,
        newGroups,
        newGroupEvents,
        clientConnectionCount,
        clientConnections,
        replicaLagTimeMaxMs);
  }

  /** The same answer with these client connections (tests, and {@link LocalSnapshots}). */
  LocalSnapshot withClientConnections(int count, List<LocalConnection> connections) {
    return new LocalSnapshot(
        scope,
        brokerId,
        partitions,
        fetchPausedUntilMs,
        fetchedRecords,
        groups,
        groupEvents,
        count,
        connections,
        replicaLagTimeMaxMs);
  }

  /**
   * The same answer with this {@code replica.lag.time.max.ms} (tests, and {@link LocalSnapshots}).
   */
  LocalSnapshot withReplicaLagTimeMaxMs(long lagTimeMaxMs) {
    return new LocalSnapshot(
        scope,
        brokerId,
        partitions,
        fetchPausedUntilMs,
        fetchedRecords,
        groups,
        groupEvents,
        clientConnectionCount,
        clientConnections,
        lagTimeMaxMs);
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
      Collection<PartitionStatus> hosted,
      long nowMs,
      long fetchPausedUntilMs,
      Map<String, Long> fetchedRecords,
      boolean leadersOnly) {
    return new LocalSnapshot(
        SCOPE,
        brokerId,
        hosted.stream()
            .filter(p -> !leadersOnly || p.leader())
            .sorted(
                Comparator.comparing((PartitionStatus p) -> p.topicPartition().topic())
                    .thenComparingInt(p -> p.topicPartition().partition()))
            .map(p -> row(p, nowMs, !leadersOnly))
            .toList(),
        fetchPausedUntilMs,
        new TreeMap<>(fetchedRecords));
  }

  private static LocalPartition row(PartitionStatus p, long nowMs, boolean withFetchClock) {
    return new LocalPartition(
        p.topicPartition().topic(),
        p.topicPartition().partition(),
        p.leader(),
        p.leaderEpoch(),
        new Offsets(
            p.logStartOffset(),
            p.highWatermark(),
            p.logEndOffset(),
            p.sizeInBytes(),
            p.segmentCount(),
            p.statusLine(),
            p.replicaStatuses().stream().map(r -> progress(r, nowMs, withFetchClock)).toList()));
  }

  private static ReplicaProgress progress(ReplicaStatus r, long nowMs, boolean withFetchClock) {
    return new ReplicaProgress(
        r.brokerId(),
        r.isInSync(),
        r.logEndOffset(),
        r.lag(),
        withFetchClock ? r.lastFetchMs() : null,
        fetchAgeMs(r, nowMs),
        outOfSyncMs(r));
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
   * How long the replica has not been caught up ({@link ReplicaStatus#outOfSyncMs}, by the leader's
   * clock when it built the status), rounded down to {@link #IN_SYNC_STEP_MS} while it is in the
   * ISR and to {@link #OUT_OF_SYNC_STEP_MS} once out: 0 while it is caught up (an idle healthy
   * cluster gives the same value every time), -1 when the leader has not seen it caught up in this
   * leader epoch.
   */
  static long outOfSyncMs(ReplicaStatus r) {
    long ms = r.outOfSyncMs();
    if (ms <= 0) {
      return ms;
    }
    long step = r.isInSync() ? IN_SYNC_STEP_MS : OUT_OF_SYNC_STEP_MS;
    return ms / step * step;
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
   * @param statusLine the replica's one-line status ({@link PartitionStatus#statusLine()}), shared
   *     with logs and tests
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
   * @param outOfSyncMs see {@link #outOfSyncMs}; null from a broker that predates the field
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ReplicaProgress(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("in_sync") boolean inSync,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("lag") long lag,
      @JsonProperty("last_fetch_ms") Long lastFetchMs,
      @JsonProperty("last_fetch_age_ms") long lastFetchAgeMs,
      @JsonProperty("out_of_sync_ms") Long outOfSyncMs) {}

  /**
   * One consumer group as its coordinator holds it. Only what changes with the group's state: no
   * heartbeat or commit clocks, so an idle group gives the same bytes every time.
   *
   * @param state Kafka's name of the state ({@link dev.tributary.group.GroupState#kafkaName})
   * @param protocol the selected assignor ("" while none is)
   * @param leaderId the member that computes the assignment, null when none
   * @param coordinatorPartition the {@code __consumer_offsets} partition that holds the group
   * @param stateSinceMs the coordinator's clock when the group entered {@code state}: changes only
   *     with the state
   * @param members sorted by member id
   * @param offsets the committed offsets, sorted by topic then partition
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalGroup(
      @JsonProperty("group_id") String groupId,
      @JsonProperty("state") String state,
      @JsonProperty("protocol_type") String protocolType,
      @JsonProperty("protocol") String protocol,
      @JsonProperty("generation_id") int generationId,
      @JsonProperty("leader_id") String leaderId,
      @JsonProperty("coordinator_partition") int coordinatorPartition,
      @JsonProperty("state_since_ms") long stateSinceMs,
      @JsonProperty("members") List<LocalMember> members,
      @JsonProperty("offsets") List<LocalOffset> offsets) {
    LocalGroup {
      members = members == null ? List.of() : List.copyOf(members);
      offsets = offsets == null ? List.of() : List.copyOf(offsets);
    }
  }

  /**
   * One member of a group.
   *
   * @param clientId the client's id (a REST consumer's instance name)
   * @param clientHost where the client lives ("broker-N" for a REST consumer of broker N)
   * @param assignment its partitions in the current generation (empty until the leader's sync)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalMember(
      @JsonProperty("member_id") String memberId,
      @JsonProperty("client_id") String clientId,
      @JsonProperty("client_host") String clientHost,
      @JsonProperty("assignment") List<LocalTopicPartition> assignment) {
    LocalMember {
      assignment = assignment == null ? List.of() : List.copyOf(assignment);
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalTopicPartition(
      @JsonProperty("topic") String topic, @JsonProperty("partition") int partition) {}

  /** A committed offset: the next offset the group will read from the partition. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalOffset(
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("offset") long offset) {}

  /**
   * One client connection on this broker's Kafka listener ({@link
   * dev.tributary.server.ClientConnections.ClientConnection}, whose fields these are).
   *
   * @param requests requests so far by Kafka API name, sorted by name (the JSON's order too, so
   *     that equal rows are equal bytes)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalConnection(
      @JsonProperty("connection_id") String connectionId,
      @JsonProperty("listener") String listener,
      @JsonProperty("security_protocol") String securityProtocol,
      @JsonProperty("client_address") String clientAddress,
      @JsonProperty("client_id") String clientId,
      @JsonProperty("software_name") String softwareName,
      @JsonProperty("software_version") String softwareVersion,
      @JsonProperty("principal") String principal,
      @JsonProperty("connected_since_ms") long connectedSinceMs,
      @JsonProperty("last_request_ms") long lastRequestMs,
      @JsonProperty("requests") Map<String, Long> requests) {
    LocalConnection {
      requests = requests == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(requests));
    }
  }

  /**
   * One of the coordinator's group events ({@link dev.tributary.group.GroupEvent}).
   *
   * @param type the event type in lower case: {@code rebalance_started}, {@code
   *     rebalance_completed}, {@code member_removed}, {@code group_empty}, {@code
   *     coordinator_loaded}
   * @param groupId "" for {@code coordinator_loaded}, which is about a partition, not a group
   * @param generationId -1 when not about a generation
   * @param members the client id of each member {@code text} names, by member id; null from a
   *     broker that predates the field
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record LocalGroupEvent(
      @JsonProperty("time_ms") long timeMs,
      @JsonProperty("group_id") String groupId,
      @JsonProperty("generation_id") int generationId,
      @JsonProperty("type") String type,
      @JsonProperty("text") String text,
      @JsonProperty("members") Map<String, String> members) {}
}
