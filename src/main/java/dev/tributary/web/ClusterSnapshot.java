package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.tributary.metadata.ClusterEvent;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The whole cluster as one broker sees it: the body of {@code GET /dashboard/state} (scope {@code
 * cluster}) and the {@code state} of the live view's snapshot message ({@link DashboardMessages}).
 * Brokers, partitions and events come from that broker's metadata image; each partition's offsets
 * come from its leader (see {@link ClusterSnapshots#merge}). Immutable records with value equality:
 * the live view diffs two snapshots row by row.
 *
 * @param header the scalar fields, written at the top level of the JSON (a delta carries them as
 *     its {@code header})
 * @param events the cluster timeline, oldest first (the last {@link
 *     dev.tributary.metadata.ClusterEvents#MAX_RETAINED})
 * @param groups the consumer groups, by id, one copy each ({@link ClusterGroups#merge})
 * @param groupEvents the coordinators' group events, oldest first (the last {@link
 *     ClusterGroups#MAX_GROUP_EVENTS}); the page interleaves them with {@code events} by time
 */
record ClusterSnapshot(
    @JsonProperty("scope") String scope,
    @JsonUnwrapped Header header,
    @JsonProperty("brokers") List<BrokerRow> brokers,
    @JsonProperty("partitions") List<PartitionRow> partitions,
    @JsonProperty("topics") List<TopicRow> topics,
    @JsonProperty("events") List<EventRow> events,
    @JsonProperty("groups") List<GroupRow> groups,
    @JsonProperty("group_events") List<GroupEventRow> groupEvents) {

  static final String SCOPE = "cluster";

  ClusterSnapshot {
    brokers = List.copyOf(brokers);
    partitions = List.copyOf(partitions);
    topics = List.copyOf(topics);
    events = List.copyOf(events);
    groups = List.copyOf(groups);
    groupEvents = List.copyOf(groupEvents);
  }

  /**
   * Who answered, and as of when.
   *
   * @param brokerId the broker that answered (the one serving the page)
   * @param metadataOffset the metadata-log offset of the image the answer was built from
   * @param serverTimeMs this broker's clock when it built the snapshot (not compared when diffing)
   * @param faultActions whether this broker accepts the dashboard's fault buttons ({@code
   *     tributary.dashboard.fault-actions})
   * @param demo the guided demo running now, as its runner last told this broker ({@link
   *     DemoBanner}); null when none (or its runner went quiet for a minute)
   * @param networkFaults whether the page may cut and heal links: fault actions on and the brokers
   *     on separate hosts ({@code tributary.dashboard.network-faults}, {@link NetworkFaults})
   */
  record Header(
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("controller_id") int controllerId,
      @JsonProperty("controller_epoch") long controllerEpoch,
      @JsonProperty("metadata_offset") long metadataOffset,
      @JsonProperty("server_time_ms") long serverTimeMs,
      @JsonProperty("fault_actions") boolean faultActions,
      @JsonProperty("demo") DemoRow demo,
      @JsonProperty("network_faults") boolean networkFaults) {

    Header(
        String clusterId,
        int brokerId,
        int controllerId,
        long controllerEpoch,
        long metadataOffset,
        long serverTimeMs,
        boolean faultActions,
        DemoRow demo) {
      this(
          clusterId,
          brokerId,
          controllerId,
          controllerEpoch,
          metadataOffset,
          serverTimeMs,
          faultActions,
          demo,
          false);
    }

    Header(
        String clusterId,
        int brokerId,
        int controllerId,
        long controllerEpoch,
        long metadataOffset,
        long serverTimeMs,
        boolean faultActions) {
      this(
          clusterId,
          brokerId,
          controllerId,
          controllerEpoch,
          metadataOffset,
          serverTimeMs,
          faultActions,
          null);
    }

    /** Equal but for the clock, which moves on every snapshot and alone is no change. */
    boolean sameAs(Header other) {
      return equals(
          new Header(
              other.clusterId,
              other.brokerId,
              other.controllerId,
              other.controllerEpoch,
              other.metadataOffset,
              serverTimeMs,
              other.faultActions,
              other.demo,
              other.networkFaults));
    }
  }

  /**
   * The step a guided demo ({@code ./tributary demo NAME}) is on, for the page's banner: set by the
   * demo's runner through {@code POST /dashboard/actions/demo}, in the demo's language.
   *
   * @param topics the topics the demo uses, {@code partitions} the {@code topic-partition} keys it
   *     watches: the page highlights them
   * @param updatedMs this broker's clock when the runner last set it; the banner goes 60 s later
   */
  record DemoRow(
      @JsonProperty("name") String name,
      @JsonProperty("title") String title,
      @JsonProperty("step") int step,
      @JsonProperty("steps") int steps,
      @JsonProperty("text") String text,
      @JsonProperty("topics") List<String> topics,
      @JsonProperty("partitions") List<String> partitions,
      @JsonProperty("updated_ms") long updatedMs) {
    DemoRow {
      topics = List.copyOf(topics);
      partitions = List.copyOf(partitions);
    }

    DemoRow at(long nowMs) {
      return new DemoRow(name, title, step, steps, text, topics, partitions, nowMs);
    }
  }

  /**
   * One registered broker.
   *
   * @param rack its rack ({@code broker.rack}); null when it has none
   * @param state {@code alive} (registered and unfenced) or {@code fenced} (may lead nothing; a
   *     broker that stopped heartbeating gets fenced after the session timeout, so a just-killed
   *     broker is still {@code alive} for a while)
   * @param reachable whether it answered this snapshot's offsets request: {@code true} for the
   *     answering broker itself, {@code null} when it was not asked (it leads no partition)
   * @param fetchPausedUntilMs until when its replica fetching is paused (0: not paused, or unknown)
   * @param listeners every listener it advertises, by name ({@code HTTP}; {@code KAFKA}: the
   *     bootstrap address for Kafka clients)
   * @param clientConnectionCount how many Kafka client connections it has open; null when unknown
   *     (it did not answer, or was not asked)
   * @param clientConnections the oldest of them ({@link LocalClients#MAX_CONNECTIONS} at most),
   *     oldest first; null when unknown
   * @param replicaLagTimeMaxMs its {@code replica.lag.time.max.ms}: as a partition's leader it
   *     drops a follower from the ISR once the follower's {@link ReplicaRow#outOfSyncMs} passes
   *     this; null when unknown (it did not answer, was not asked, or predates the field)
   * @param recordsInPerSec records appended per second to the partitions it leads, over about the
   *     last second ({@link Throughput}); 0 when unknown (it did not answer at both ends of the
   *     window)
   * @param bytesInPerSec bytes appended per second to them (their leader logs' growth), likewise
   */
  record BrokerRow(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("rack") String rack,
      @JsonProperty("state") String state,
      @JsonProperty("broker_epoch") long brokerEpoch,
      @JsonProperty("incarnation_id") String incarnationId,
      @JsonProperty("controller") boolean controller,
      @JsonProperty("reachable") Boolean reachable,
      @JsonProperty("fetch_paused_until_ms") long fetchPausedUntilMs,
      @JsonProperty("listeners") List<ListenerRow> listeners,
      @JsonProperty("client_connection_count") Integer clientConnectionCount,
      @JsonProperty("client_connections") List<ClientConnectionRow> clientConnections,
      @JsonProperty("replica_lag_time_max_ms") Long replicaLagTimeMaxMs,
      @JsonProperty("records_in_per_sec") double recordsInPerSec,
      @JsonProperty("bytes_in_per_sec") double bytesInPerSec) {}

  /** One listener a broker advertises: where clients reach it for one protocol. */
  record ListenerRow(
      @JsonProperty("name") String name,
      @JsonProperty("host") String host,
      @JsonProperty("port") int port,
      @JsonProperty("security_protocol") String securityProtocol) {}

  /**
   * One client connection on a broker's Kafka listener.
   *
   * @param clientId the client's {@code client.id}; null before its first request
   * @param softwareName its library, as it said (ApiVersions v3+); null when it did not say
   * @param principal who it authenticated as ({@code User:ANONYMOUS} without authentication)
   * @param connectedSinceMs its broker's clock when it connected
   * @param lastRequestMs its broker's clock at its last request, -1 before the first
   * @param requests requests so far by Kafka API name ({@code Produce}, {@code Fetch}, ...)
   * @param requestCount their total
   */
  record ClientConnectionRow(
      @JsonProperty("connection_id") String connectionId,
      @JsonProperty("client_id") String clientId,
      @JsonProperty("software_name") String softwareName,
      @JsonProperty("software_version") String softwareVersion,
      @JsonProperty("client_address") String clientAddress,
      @JsonProperty("principal") String principal,
      @JsonProperty("security_protocol") String securityProtocol,
      @JsonProperty("connected_since_ms") long connectedSinceMs,
      @JsonProperty("last_request_ms") long lastRequestMs,
      @JsonProperty("requests") Map<String, Long> requests,
      @JsonProperty("request_count") long requestCount) {}

  /**
   * One partition of one topic.
   *
   * @param key {@code topic-partition}, unique: the live view's row key
   * @param leader the leader's broker id, -1 when the partition is offline
   * @param replicas the assigned replicas; during a reassignment the target followed by the
   *     replicas leaving
   * @param osr the out-of-sync replicas: replicas not in the ISR, in replica order (during a
   *     reassignment the adding replicas are among them until they catch up)
   * @param addingReplicas the replicas a reassignment in progress adds (KIP-455): they copy the log
   *     outside the ISR, then join it; empty when the partition is not being moved
   * @param removingReplicas the replicas it removes once every target replica is in sync; empty
   *     when the partition is not being moved
   * @param state see {@link PartitionState}
   * @param offsets the leader's offsets, {@code null} unless {@code state} is {@code online}
   */
  record PartitionRow(
      @JsonProperty("key") String key,
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("state") String state,
      @JsonProperty("leader") int leader,
      @JsonProperty("leader_epoch") int leaderEpoch,
      @JsonProperty("replicas") List<Integer> replicas,
      @JsonProperty("isr") List<Integer> isr,
      @JsonProperty("osr") List<Integer> osr,
      @JsonProperty("adding_replicas") List<Integer> addingReplicas,
      @JsonProperty("removing_replicas") List<Integer> removingReplicas,
      @JsonProperty("offsets") OffsetsRow offsets) {
    /** A partition that is not being moved. */
    PartitionRow(
        String key,
        String topic,
        int partition,
        String state,
        int leader,
        int leaderEpoch,
        List<Integer> replicas,
        List<Integer> isr,
        List<Integer> osr,
        OffsetsRow offsets) {
      this(
          key,
          topic,
          partition,
          state,
          leader,
          leaderEpoch,
          replicas,
          isr,
          osr,
          List.of(),
          List.of(),
          offsets);
    }
  }

  /** The leader's offsets of one partition, and each replica's progress as the leader sees it. */
  record OffsetsRow(
      @JsonProperty("log_start_offset") long logStartOffset,
      @JsonProperty("high_watermark") long highWatermark,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("size_bytes") long sizeBytes,
      @JsonProperty("segments") int segments,
      @JsonProperty("status_line") String statusLine,
      @JsonProperty("replicas") List<ReplicaRow> replicas) {}

  /**
   * One replica's progress: log end offset and lag (-1: the leader has not heard from it in this
   * epoch), and time since its last fetch in whole seconds ({@link LocalSnapshot#fetchAgeMs}).
   *
   * @param outOfSyncMs how long it has not been caught up to the leader's log end offset, by the
   *     leader's clock when the leader answered ({@link LocalSnapshot#outOfSyncMs}: in steps of 100
   *     ms in the ISR, whole seconds out of it): 0 while caught up; -1 when the leader has not seen
   *     it caught up in this leader epoch; null when the leader did not say (it predates the
   *     field). Compared with the leader's {@link BrokerRow#replicaLagTimeMaxMs}.
   */
  record ReplicaRow(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("in_sync") boolean inSync,
      @JsonProperty("log_end_offset") long logEndOffset,
      @JsonProperty("lag") long lag,
      @JsonProperty("last_fetch_age_ms") long lastFetchAgeMs,
      @JsonProperty("out_of_sync_ms") Long outOfSyncMs) {}

  /**
   * One topic with its records-per-second in (appended by its leaders) and out (served to
   * consumers), over about the last second ({@link Throughput}).
   */
  record TopicRow(
      @JsonProperty("name") String name,
      @JsonProperty("partitions") int partitions,
      @JsonProperty("replication_factor") int replicationFactor,
      @JsonProperty("min_insync_replicas") int minInsyncReplicas,
      @JsonProperty("records_in_per_sec") double recordsInPerSec,
      @JsonProperty("records_out_per_sec") double recordsOutPerSec) {}

  /**
   * One timeline entry; see {@link ClusterEvent}.
   *
   * @param index its place among the events of its batch (same {@code offset}): {@code offset} and
   *     {@code index} name it
   * @param causeIndex the {@code index} of the event of the same batch that caused it (a broker's
   *     fencing for the leadership and ISR changes it made), -1 when none
   */
  record EventRow(
      @JsonProperty("offset") long offset,
      @JsonProperty("timestamp_ms") long timestampMs,
      @JsonProperty("type") String type,
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("text") String text,
      @JsonProperty("reason") String reason,
      @JsonProperty("index") int index,
      @JsonProperty("cause_index") int causeIndex) {

    static EventRow of(ClusterEvent e) {
      return new EventRow(
          e.offset(),
          e.timestampMs(),
          e.type().jsonName(),
          e.topic(),
          e.partition(),
          e.brokerId(),
          e.text(),
          e.reason(),
          e.index(),
          e.causeIndex());
    }
  }

  /**
   * One consumer group, as the broker that coordinates it holds it. No clock in it but {@code
   * stateSinceMs}, which moves only with {@code state}: an idle group is an unchanged row.
   *
   * @param state Kafka's name: {@code Empty}, {@code PreparingRebalance}, {@code
   *     CompletingRebalance}, {@code Stable} or {@code Dead}
   * @param protocol the assignor the group selected ("" while none is)
   * @param leaderId the member that computes the assignment, null when none
   * @param coordinator the broker whose copy this is: the leader of {@code
   *     __consumer_offsets-<coordinatorPartition>} when it answered
   * @param members sorted by member id
   * @param partitions every partition assigned to a member or with a committed offset, sorted by
   *     topic then partition
   */
  record GroupRow(
      @JsonProperty("group_id") String groupId,
      @JsonProperty("state") String state,
      @JsonProperty("state_since_ms") long stateSinceMs,
      @JsonProperty("generation_id") int generationId,
      @JsonProperty("protocol_type") String protocolType,
      @JsonProperty("protocol") String protocol,
      @JsonProperty("leader_id") String leaderId,
      @JsonProperty("coordinator") int coordinator,
      @JsonProperty("coordinator_partition") int coordinatorPartition,
      @JsonProperty("members") List<GroupMemberRow> members,
      @JsonProperty("partitions") List<GroupPartitionRow> partitions) {}

  /**
   * One member of a group.
   *
   * @param clientId the client's id: a REST consumer's instance name
   * @param host where the client lives: {@code broker-N} for a REST consumer of broker N
   * @param partitions its assigned partitions as {@code topic-partition} keys, sorted
   */
  record GroupMemberRow(
      @JsonProperty("member_id") String memberId,
      @JsonProperty("client_id") String clientId,
      @JsonProperty("host") String host,
      @JsonProperty("partitions") List<String> partitions) {}

  /**
   * One partition a group reads or has read.
   *
   * @param key {@code topic-partition}, as in the partitions list
   * @param memberId the member it is assigned to, null when none is
   * @param committedOffset the next offset the group will read, null when it committed none
   * @param lag records the group has yet to read: the high watermark minus the committed offset
   *     (the log start offset when nothing is committed), at least 0; null while the partition's
   *     high watermark is unknown (offline, leader not answering)
   */
  record GroupPartitionRow(
      @JsonProperty("key") String key,
      @JsonProperty("topic") String topic,
      @JsonProperty("partition") int partition,
      @JsonProperty("member_id") String memberId,
      @JsonProperty("committed_offset") Long committedOffset,
      @JsonProperty("high_watermark") Long highWatermark,
      @JsonProperty("lag") Long lag) {}

  /**
   * One coordinator's group event (a rebalance started and why, a generation completed and who got
   * what, a member removed and why, a group emptied, a coordinator loaded a partition).
   *
   * @param type {@code rebalance_started}, {@code rebalance_completed}, {@code member_removed},
   *     {@code group_empty} or {@code coordinator_loaded}
   * @param groupId "" for {@code coordinator_loaded}
   * @param generationId -1 when not about a generation
   * @param coordinator the broker whose coordinator recorded it (its clock is {@code timestampMs})
   * @param members the client id of each member {@code text} names, by member id (sorted; empty
   *     when it names none, or its coordinator predates the field): the page shows them by client
   *     id
   */
  record GroupEventRow(
      @JsonProperty("timestamp_ms") long timestampMs,
      @JsonProperty("type") String type,
      @JsonProperty("group_id") String groupId,
      @JsonProperty("generation_id") int generationId,
      @JsonProperty("coordinator") int coordinator,
      @JsonProperty("text") String text,
      @JsonProperty("members") Map<String, String> members) {}

  /** Where a partition's offsets stand; the JSON carries the lower-case name. */
  enum PartitionState {
    /** The leader answered and leads the partition: {@code offsets} are its own. */
    ONLINE,
    /** No leader (leader -1): nobody can produce or consume until one of the ISR comes back. */
    OFFLINE,
    /** The leader did not answer in time (crashed, paused, partitioned away): offsets unknown. */
    UNREACHABLE,
    /**
     * The leader answered but does not lead the partition (yet): its metadata and ours disagree for
     * a moment.
     */
    LEADER_NOT_AVAILABLE;

    String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
