package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.PartitionStatus;
import dev.tributary.replication.ReplicaStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Each follower's time not caught up ({@code out_of_sync_ms}) and its leader's {@code
 * replica.lag.time.max.ms} in the dashboard's state: from the leader's {@link LocalSnapshot} (its
 * clock, in the steps the page shows) through the merge to the view's JSON and its deltas. Broker 2
 * leads orders-0 (replicas 2, 1, 3; broker 3 out of the ISR) and answers broker 1, which serves the
 * page.
 */
class ClusterSnapshotsLagTimeTest {
  private static final Uuid ORDERS = new Uuid(1, 1);
  private static final long LAG_TIME_MAX_MS = 5_000;
  private final JsonMapper json = JsonMapper.builder().build();

  private static MetadataImage image() {
    TreeMap<Integer, PartitionImage> partitions = new TreeMap<>();
    partitions.put(0, new PartitionImage(0, List.of(2, 1, 3), List.of(2, 1), 2, 4, 6));
    TreeMap<String, TopicImage> topics = new TreeMap<>();
    topics.put("orders", new TopicImage(ORDERS, "orders", partitions, Map.of()));
    TreeMap<Integer, BrokerImage> brokers = new TreeMap<>();
    for (int id = 1; id <= 3; id++) {
      brokers.put(id, new BrokerImage(id, new Uuid(0, id), "127.0.0.1", 8080 + id, 10 + id, false));
    }
    return new MetadataImage(42, topics, Map.of(ORDERS, "orders"), brokers);
  }

  /**
   * Broker 2's answer at {@code nowMs}: follower 1 (in the ISR) not caught up for {@code
   * follower1Ms}, follower 3 (out) for {@code follower3Ms}.
   */
  private static LocalSnapshot leaderAnswer(long nowMs, long follower1Ms, long follower3Ms) {
    List<ReplicaStatus> replicas =
        List.of(
            new ReplicaStatus(2, true, true, 120, 0, -1, nowMs, 0),
            new ReplicaStatus(
                1,
                false,
                true,
                follower1Ms == 0 ? 120 : 110,
                follower1Ms == 0 ? 0 : 10,
                nowMs - 50,
                nowMs - follower1Ms,
                follower1Ms),
            new ReplicaStatus(
                3, false, false, 40, 80, nowMs - 9_000, nowMs - follower3Ms, follower3Ms));
    PartitionStatus led =
        new PartitionStatus(
            new TopicPartition("orders", 0),
            true,
            2,
            4,
            0,
            100,
            120,
            12_000,
            1,
            List.of(2, 1, 3),
            List.of(2, 1),
            replicas,
            "b2 leader e4 orders-0");
    return LocalSnapshot.of(2, List.of(led), nowMs, 0, Map.of(), true)
        .withReplicaLagTimeMaxMs(LAG_TIME_MAX_MS);
  }

  private static ClusterSnapshot view(long nowMs, LocalSnapshot leader) {
    return ClusterSnapshots.merge(
        new ClusterSnapshots.Context("c-1", 1, 1, 3, nowMs, false, 1),
        image(),
        Map.of(1, new LocalSnapshot("local", 1, List.of()), 2, leader),
        Set.of(),
        Map.of());
  }

  private static Map<Integer, Long> outOfSyncByBroker(ClusterSnapshot view) {
    Map<Integer, Long> byBroker = new TreeMap<>();
    view.partitions()
        .get(0)
        .offsets()
        .replicas()
        .forEach(r -> byBroker.put(r.brokerId(), r.outOfSyncMs()));
    return byBroker;
  }

  @Test
  void theLeadersTimesReachTheViewInTenthsInTheIsrAndWholeSecondsOutOfIt() {
    ClusterSnapshot view = view(1_000_000, leaderAnswer(1_000_000, 3_249, 12_999));

    assertThat(outOfSyncByBroker(view))
        .containsExactly(entry(1, 3_200L), entry(2, 0L), entry(3, 12_000L));
    assertThat(view.brokers())
        .extracting(ClusterSnapshot.BrokerRow::replicaLagTimeMaxMs)
        .as("only the leader answered with its setting")
        .containsExactly(null, LAG_TIME_MAX_MS, null);
  }

  @Test
  void theJsonCarriesOutOfSyncMsPerReplicaAndTheLagTimeOncePerBroker() {
    JsonNode tree =
        json.readTree(json.writeValueAsString(view(1_000_000, leaderAnswer(1_000_000, 3_249, -1))));

    JsonNode replicas = tree.get("partitions").get(0).get("offsets").get("replicas");
    assertThat(replicas.get(0).get("broker_id").asInt()).isEqualTo(2);
    assertThat(replicas.get(0).get("out_of_sync_ms").asLong()).as("the leader").isZero();
    assertThat(replicas.get(1).get("out_of_sync_ms").asLong()).isEqualTo(3_200);
    assertThat(replicas.get(2).get("out_of_sync_ms").asLong())
        .as("not caught up since the leader took over")
        .isEqualTo(-1);
    assertThat(tree.get("brokers").get(1).get("replica_lag_time_max_ms").asLong())
        .isEqualTo(LAG_TIME_MAX_MS);
    assertThat(tree.get("brokers").get(0).get("replica_lag_time_max_ms").isNull())
        .as("broker 1 leads nothing here: its own answer carries no setting")
        .isTrue();
  }

  @Test
  void aCountingFollowerMakesItsPartitionPartOfTheNextDelta() {
    ClusterSnapshot before = view(1_000_000, leaderAnswer(1_000_000, 3_200, 12_000));
    ClusterSnapshot after = view(1_000_300, leaderAnswer(1_000_300, 3_500, 12_300));

    DashboardMessages.Delta delta = DashboardMessages.between(before, after).orElseThrow();

    assertThat(delta.partitions()).hasSize(1);
    JsonNode replicas =
        json.readTree(json.writeValueAsString(delta))
            .get("partitions")
            .get(0)
            .get("offsets")
            .get("replicas");
    assertThat(replicas.get(1).get("out_of_sync_ms").asLong()).isEqualTo(3_500);
    assertThat(replicas.get(2).get("out_of_sync_ms").asLong())
        .as("out of the ISR it moves in whole seconds")
        .isEqualTo(12_000);
  }

  @Test
  void caughtUpFollowersSendNothingAsTheClockMoves() {
    ClusterSnapshot before = view(1_000_000, leaderAnswer(1_000_000, 0, 12_000));
    ClusterSnapshot later = view(1_000_400, leaderAnswer(1_000_400, 0, 12_400));

    assertThat(DashboardMessages.between(before, later))
        .as("the caught-up follower reads 0 and the one out of the ISR is within the same second")
        .isEmpty();
  }
}
