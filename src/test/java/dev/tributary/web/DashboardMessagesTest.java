package dev.tributary.web;

import static dev.tributary.web.DashboardFixtures.broker;
import static dev.tributary.web.DashboardFixtures.event;
import static dev.tributary.web.DashboardFixtures.healthy;
import static dev.tributary.web.DashboardFixtures.partition;
import static dev.tributary.web.DashboardFixtures.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The deltas of the live view: only what changed, keyed so the page can merge them. */
class DashboardMessagesTest {
  private final JsonMapper json = JsonMapper.builder().build();

  @Test
  void nothingButTheClockMovingIsNoDelta() {
    assertThat(DashboardMessages.between(healthy(3, 7, 1_000), healthy(3, 7, 2_000))).isEmpty();
  }

  @Test
  void aMovedHighWatermarkSendsThatOnePartitionRowAndTheHeader() {
    ClusterSnapshot before = healthy(3, 7, 1_000);
    ClusterSnapshot after =
        snapshot(
            100,
            1_100,
            before.brokers(),
            List.of(
                before.partitions().get(0),
                partition("orders", 1, 1, List.of(1, 2, 3), 9),
                before.partitions().get(2)),
            before.events());

    DashboardMessages.Delta delta = DashboardMessages.between(before, after).orElseThrow();

    assertThat(delta.partitions())
        .extracting(ClusterSnapshot.PartitionRow::key)
        .containsExactly("orders-1");
    assertThat(delta.partitions().get(0).offsets().highWatermark()).isEqualTo(9);
    assertThat(delta.brokers()).isEmpty();
    assertThat(delta.removedPartitions()).isEmpty();
    assertThat(delta.topics()).as("unchanged topic list is not resent").isNull();
    assertThat(delta.events()).isEmpty();
    assertThat(delta.header().serverTimeMs()).isEqualTo(1_100);
  }

  @Test
  void aFencedBrokerAndADeletedTopicAreAChangedRowAndRemovedKeys() {
    ClusterSnapshot before = healthy(2, 7, 1_000);
    ClusterSnapshot after =
        snapshot(
            101,
            1_100,
            List.of(broker(1, "alive"), broker(2, "fenced"), broker(3, "alive")),
            List.of(),
            before.events());

    DashboardMessages.Delta delta = DashboardMessages.between(before, after).orElseThrow();

    assertThat(delta.brokers()).extracting(ClusterSnapshot.BrokerRow::brokerId).containsExactly(2);
    assertThat(delta.removedPartitions()).containsExactly("orders-0", "orders-1");
    assertThat(delta.topics()).isNotNull();
    assertThat(delta.header().metadataOffset()).isEqualTo(101);
  }

  @Test
  void onlyEventsPastTheLastOneSentAreSentEvenWhenTheWindowSlid() {
    ClusterSnapshot before =
        snapshot(1, 0, List.of(), List.of(), List.of(event(1, "a"), event(2, "b")));
    ClusterSnapshot after =
        snapshot(1, 0, List.of(), List.of(), List.of(event(2, "b"), event(3, "c"), event(4, "d")));

    assertThat(DashboardMessages.between(before, after).orElseThrow().events())
        .extracting(ClusterSnapshot.EventRow::text)
        .containsExactly("c", "d");
  }

  @Test
  void theDeltaJsonHasEveryKeyTheProtocolNamesEvenWhenEmpty() {
    ClusterSnapshot before = healthy(1, 7, 0);
    ClusterSnapshot after = healthy(1, 8, 0);
    JsonNode delta =
        json.readTree(
            json.writeValueAsString(
                DashboardMessages.between(before, after).orElseThrow().withSeq(4)));

    assertThat(List.copyOf(delta.propertyNames()))
        .containsExactlyInAnyOrder(
            "type",
            "seq",
            "header",
            "brokers",
            "removed_brokers",
            "partitions",
            "removed_partitions",
            "topics",
            "events",
            "groups",
            "removed_groups",
            "group_events");
    assertThat(delta.get("type").asString()).isEqualTo("delta");
    assertThat(delta.get("seq").asLong()).isEqualTo(4);
    assertThat(delta.get("topics").isNull()).isTrue();
    assertThat(List.copyOf(delta.get("header").propertyNames()))
        .containsExactlyInAnyOrder(
            "cluster_id",
            "broker_id",
            "controller_id",
            "controller_epoch",
            "metadata_offset",
            "server_time_ms",
            "fault_actions",
            "demo",
            "network_faults");
  }
}
