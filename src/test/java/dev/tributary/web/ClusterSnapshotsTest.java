package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.Uuid;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.ClusterEvent;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The cluster snapshot merge, from a hand-made image of three brokers (1 serves the page and is the
 * controller, 2 leads orders-1, 3 is fenced) and hand-made leader answers; and the JSON the page
 * and other brokers read.
 */
class ClusterSnapshotsTest {
  private static final Uuid ORDERS = new Uuid(1, 1);
  private final JsonMapper json = JsonMapper.builder().build();

  /**
   * orders-0 led here, orders-1 led by broker 2, orders-2 offline (its only replica, broker 3, is
   * fenced).
   */
  private static MetadataImage image() {
    TreeMap<Integer, PartitionImage> partitions = new TreeMap<>();
    partitions.put(0, new PartitionImage(0, List.of(1, 2, 3), List.of(1, 2), 1, 4, 6));
    partitions.put(1, new PartitionImage(1, List.of(2, 3, 1), List.of(2, 1), 2, 7, 9));
    partitions.put(2, new PartitionImage(2, List.of(3), List.of(3), -1, 2, 3));
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    topics.put("orders", new TopicImage(ORDERS, "orders", partitions, Map.of()));
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    brokers.put(1, new BrokerImage(1, new Uuid(0, 1), "127.0.0.1", 8081, 10, false));
    brokers.put(2, new BrokerImage(2, new Uuid(0, 2), "127.0.0.1", 8082, 11, false));
    brokers.put(3, new BrokerImage(3, new Uuid(0, 3), "127.0.0.1", 8083, 12, true));
    return new MetadataImage(42, topics, Map.of(ORDERS, "orders"), brokers);
  }

  private static LocalSnapshot.Offsets offsets(long hw, long leo) {
    return new LocalSnapshot.Offsets(
        0, hw, leo, 100 * leo, 1, "hw=" + hw + " leo=" + leo, List.of());
  }

  /** What {@link #offsets} becomes in the cluster view. */
  private static ClusterSnapshot.OffsetsRow offsetsRow(long hw, long leo) {
    return new ClusterSnapshot.OffsetsRow(
        0, hw, leo, 100 * leo, 1, "hw=" + hw + " leo=" + leo, List.of());
  }

  /** Broker 1 leads orders-0 and follows orders-1 (its follower offsets must never be shown). */
  private static LocalSnapshot self() {
    return new LocalSnapshot(
        "local",
        1,
        List.of(
            new LocalSnapshot.LocalPartition("orders", 0, true, 4, offsets(120, 127)),
            new LocalSnapshot.LocalPartition("orders", 1, false, 7, offsets(5, 5))));
  }

  private static ClusterSnapshot merge(
      Map<Integer, LocalSnapshot> answers, Set<Integer> unreachable) {
    return ClusterSnapshots.merge(
        new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
        image(),
        answers,
        unreachable,
        Map.of());
  }

  private static ClusterSnapshot.PartitionRow partition(ClusterSnapshot snapshot, int partition) {
    return snapshot.partitions().stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void asksEveryUnfencedBrokerOtherThanItself() {
    assertThat(ClusterSnapshots.brokersToAsk(image(), 1)).containsExactly(2);
    assertThat(ClusterSnapshots.brokersToAsk(image(), 2)).containsExactly(1);
  }

  @Test
  void asksABrokerThatLeadsNothingForItsOwnRowAndAFencedOneOnlyWhileItLeads() {
    MetadataImage image = image();
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>(image.brokers());
    brokers.put(4, new BrokerImage(4, new Uuid(0, 4), "127.0.0.1", 8084, 13, false));
    MetadataImage withIdleBroker =
        new MetadataImage(43, image.topicsByName(), Map.of(ORDERS, "orders"), brokers);
    assertThat(ClusterSnapshots.brokersToAsk(withIdleBroker, 1)).containsExactly(2, 4);

    TreeMap<Integer, PartitionImage> partitions =
        new TreeMap<>(image.topicsByName().get("orders").partitions());
    partitions.put(2, new PartitionImage(2, List.of(3), List.of(3), 3, 2, 3));
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    topics.put("orders", new TopicImage(ORDERS, "orders", partitions, Map.of()));
    MetadataImage fencedLeader = new MetadataImage(44, topics, Map.of(ORDERS, "orders"), brokers);
    assertThat(ClusterSnapshots.brokersToAsk(fencedLeader, 1)).containsExactly(2, 3, 4);
  }

  @Test
  void unreachableLeaderLeavesItsPartitionListedWithoutOffsets() {
    ClusterSnapshot snapshot = merge(Map.of(1, self()), Set.of(2));

    assertThat(snapshot.partitions())
        .extracting(ClusterSnapshot.PartitionRow::state)
        .containsExactly("online", "unreachable", "offline");
    ClusterSnapshot.PartitionRow remote = partition(snapshot, 1);
    assertThat(remote.leader()).isEqualTo(2);
    assertThat(remote.leaderEpoch()).isEqualTo(7);
    assertThat(remote.isr()).containsExactly(2, 1);
    assertThat(remote.offsets())
        .as("no answer from the leader, no offsets (not even this broker's follower copy)")
        .isNull();
    assertThat(snapshot.brokers())
        .extracting(ClusterSnapshot.BrokerRow::reachable)
        .containsExactly(true, false, null);
  }

  @Test
  void localLeaderSuppliesItsOwnOffsetsAndOsrIsTheReplicasOutsideTheIsr() {
    ClusterSnapshot.PartitionRow local = partition(merge(Map.of(1, self()), Set.of(2)), 0);

    assertThat(local.offsets()).isEqualTo(offsetsRow(120, 127));
    assertThat(local.osr()).containsExactly(3);
  }

  @Test
  void offlinePartitionHasLeaderMinusOneAndNoOffsets() {
    ClusterSnapshot.PartitionRow offline = partition(merge(Map.of(1, self()), Set.of(2)), 2);

    assertThat(offline.state()).isEqualTo("offline");
    assertThat(offline.leader()).isEqualTo(-1);
    assertThat(offline.offsets()).isNull();
    assertThat(offline.osr()).isEmpty();
  }

  @Test
  void remoteLeaderSuppliesOffsetsOnlyForPartitionsItSaysItLeads() {
    LocalSnapshot leading =
        new LocalSnapshot(
            "local",
            2,
            List.of(new LocalSnapshot.LocalPartition("orders", 1, true, 7, offsets(9, 11))));
    LocalSnapshot notYet =
        new LocalSnapshot(
            "local",
            2,
            List.of(new LocalSnapshot.LocalPartition("orders", 1, false, 6, offsets(8, 8))));

    ClusterSnapshot.PartitionRow online =
        partition(merge(Map.of(1, self(), 2, leading), Set.of()), 1);
    ClusterSnapshot.PartitionRow pending =
        partition(merge(Map.of(1, self(), 2, notYet), Set.of()), 1);

    assertThat(online.state()).isEqualTo("online");
    assertThat(online.offsets()).isEqualTo(offsetsRow(9, 11));
    assertThat(pending.state()).isEqualTo("leader_not_available");
    assertThat(pending.offsets()).isNull();
  }

  /**
   * orders-0 moving from [1, 2, 3] to [2, 3, 4]: the image lists the target then the replica
   * leaving, 4 copies the log outside the ISR.
   */
  @Test
  void aPartitionBeingMovedShowsItsAddingAndRemovingReplicasAndTheTopicItsTargetFactor() {
    MetadataImage image = image();
    TreeMap<Integer, PartitionImage> partitions =
        new TreeMap<>(image.topicsByName().get("orders").partitions());
    partitions.put(
        0,
        new PartitionImage(
            0, List.of(2, 3, 4, 1), List.of(1, 2, 3), 1, 4, 7, List.of(4), List.of(1)));
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    topics.put("orders", new TopicImage(ORDERS, "orders", partitions, Map.of()));
    ClusterSnapshot snapshot =
        ClusterSnapshots.merge(
            new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
            new MetadataImage(43, topics, Map.of(ORDERS, "orders"), image.brokers()),
            Map.of(1, self()),
            Set.of(2),
            Map.of());

    ClusterSnapshot.PartitionRow moving = partition(snapshot, 0);
    assertThat(moving.replicas()).containsExactly(2, 3, 4, 1);
    assertThat(moving.addingReplicas()).containsExactly(4);
    assertThat(moving.removingReplicas()).containsExactly(1);
    assertThat(moving.osr()).as("the adding replica, until it catches up").containsExactly(4);
    assertThat(partition(snapshot, 1).addingReplicas()).isEmpty();
    assertThat(partition(snapshot, 1).removingReplicas()).isEmpty();
    assertThat(snapshot.topics().get(0).replicationFactor())
        .as("the leaving replica is not part of the factor")
        .isEqualTo(3);

    JsonNode row = json.readTree(json.writeValueAsString(snapshot)).get("partitions").get(0);
    assertThat(row.get("adding_replicas").toString()).isEqualTo("[4]");
    assertThat(row.get("removing_replicas").toString()).isEqualTo("[1]");
  }

  @Test
  void brokersShowFencingAndTheController() {
    ClusterSnapshot snapshot = merge(Map.of(1, self()), Set.of(2));

    assertThat(snapshot.brokers())
        .extracting(ClusterSnapshot.BrokerRow::state)
        .containsExactly("alive", "alive", "fenced");
    assertThat(snapshot.brokers())
        .extracting(ClusterSnapshot.BrokerRow::controller)
        .containsExactly(true, false, false);
    assertThat(snapshot.header().controllerEpoch()).isEqualTo(3);
    assertThat(snapshot.header().metadataOffset()).isEqualTo(42);
  }

  @Test
  void eachBrokerRowCarriesItsRatesInAndABrokerWithoutRatesReadsZero() {
    ClusterSnapshot snapshot =
        ClusterSnapshots.merge(
            new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
            image(),
            Map.of(1, self()),
            Set.of(2),
            Map.of(),
            Map.of(1, new Throughput.BrokerRates(12.5, 2_048)));

    assertThat(snapshot.brokers())
        .extracting(
            ClusterSnapshot.BrokerRow::brokerId,
            ClusterSnapshot.BrokerRow::recordsInPerSec,
            ClusterSnapshot.BrokerRow::bytesInPerSec)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, 12.5, 2_048.0),
            org.assertj.core.groups.Tuple.tuple(2, 0.0, 0.0),
            org.assertj.core.groups.Tuple.tuple(3, 0.0, 0.0));
    JsonNode broker1 = json.readTree(json.writeValueAsString(snapshot)).get("brokers").get(0);
    assertThat(broker1.get("records_in_per_sec").asDouble()).isEqualTo(12.5);
    assertThat(broker1.get("bytes_in_per_sec").asDouble()).isEqualTo(2_048.0);
  }

  @Test
  void jsonHasSnakeCaseFieldsAndNullOffsetsForAnUnreachableLeader() {
    JsonNode tree = json.readTree(json.writeValueAsString(merge(Map.of(1, self()), Set.of(2))));

    assertThat(fieldNames(tree))
        .containsExactlyInAnyOrder(
            "scope",
            "cluster_id",
            "broker_id",
            "controller_id",
            "controller_epoch",
            "metadata_offset",
            "server_time_ms",
            "fault_actions",
            "demo",
            "network_faults",
            "brokers",
            "partitions",
            "topics",
            "events",
            "groups",
            "group_events");
    assertThat(tree.get("scope").asString()).isEqualTo("cluster");
    JsonNode broker2 = tree.get("brokers").get(1);
    assertThat(fieldNames(broker2))
        .containsExactlyInAnyOrder(
            "broker_id",
            "host",
            "port",
            "rack",
            "state",
            "broker_epoch",
            "incarnation_id",
            "controller",
            "reachable",
            "fetch_paused_until_ms",
            "listeners",
            "client_connection_count",
            "client_connections",
            "replica_lag_time_max_ms",
            "records_in_per_sec",
            "bytes_in_per_sec");
    assertThat(broker2.get("rack").isNull()).as("broker 2 has no rack").isTrue();
    assertThat(broker2.get("reachable").asBoolean()).isFalse();
    assertThat(broker2.get("client_connections").isNull())
        .as("unknown: it did not answer")
        .isTrue();
    assertThat(tree.get("brokers").get(2).get("reachable").isNull()).isTrue();

    JsonNode online = tree.get("partitions").get(0);
    assertThat(fieldNames(online))
        .containsExactlyInAnyOrder(
            "key",
            "topic",
            "partition",
            "state",
            "leader",
            "leader_epoch",
            "replicas",
            "isr",
            "osr",
            "adding_replicas",
            "removing_replicas",
            "offsets");
    assertThat(fieldNames(online.get("offsets")))
        .containsExactlyInAnyOrder(
            "log_start_offset",
            "high_watermark",
            "log_end_offset",
            "size_bytes",
            "segments",
            "status_line",
            "replicas");
    assertThat(online.get("offsets").get("high_watermark").asLong()).isEqualTo(120);
    assertThat(online.get("osr").toString()).isEqualTo("[3]");
    assertThat(online.get("adding_replicas").toString())
        .as("not being moved: empty, never null")
        .isEqualTo("[]");
    assertThat(online.get("removing_replicas").toString()).isEqualTo("[]");

    JsonNode unreachable = tree.get("partitions").get(1);
    assertThat(unreachable.get("state").asString()).isEqualTo("unreachable");
    assertThat(unreachable.get("leader").asInt()).isEqualTo(2);
    assertThat(unreachable.get("offsets").isNull()).isTrue();
    assertThat(tree.get("partitions").get(2).get("leader").asInt()).isEqualTo(-1);
  }

  @Test
  void eachEventNamesItsPlaceInItsBatchAndItsCauseThere() {
    MetadataImage image =
        image()
            .replay(
                43,
                new MetadataRecord.EventsRecorded(
                    List.of(
                        new ClusterEvent(
                            -1,
                            7,
                            ClusterEvent.Type.BROKER_FENCED,
                            null,
                            -1,
                            3,
                            "broker 3 fenced",
                            "session expired",
                            0,
                            -1),
                        new ClusterEvent(
                            -1,
                            7,
                            ClusterEvent.Type.ISR_SHRINK,
                            "orders",
                            0,
                            3,
                            "orders-0 ISR [1, 2, 3] → [1, 2]: replica 3 left",
                            "session expired",
                            1,
                            0))));

    ClusterSnapshot snapshot =
        ClusterSnapshots.merge(
            new ClusterSnapshots.Context("c-1", 1, 1, 3, 1_000, false, 1),
            image,
            Map.of(1, self()),
            Set.of(),
            Map.of());

    assertThat(snapshot.events())
        .extracting(
            ClusterSnapshot.EventRow::offset,
            ClusterSnapshot.EventRow::index,
            ClusterSnapshot.EventRow::causeIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(43L, 0, -1),
            org.assertj.core.groups.Tuple.tuple(43L, 1, 0));
    JsonNode shrink = json.readTree(json.writeValueAsString(snapshot)).get("events").get(1);
    assertThat(fieldNames(shrink))
        .containsExactlyInAnyOrder(
            "offset",
            "timestamp_ms",
            "type",
            "topic",
            "partition",
            "broker_id",
            "text",
            "reason",
            "index",
            "cause_index");
    assertThat(shrink.get("cause_index").asInt()).isZero();
  }

  @Test
  void localSnapshotSurvivesTheTripBetweenBrokersAndIgnoresFieldsItDoesNotKnow() {
    String written = json.writeValueAsString(self());
    String withExtra = written.replaceFirst("\\{", "{\"added_later\":true,");

    assertThat(json.readValue(written, LocalSnapshot.class)).isEqualTo(self());
    assertThat(json.readValue(withExtra, LocalSnapshot.class)).isEqualTo(self());
  }

  private static List<String> fieldNames(JsonNode node) {
    return List.copyOf(node.propertyNames());
  }
}
