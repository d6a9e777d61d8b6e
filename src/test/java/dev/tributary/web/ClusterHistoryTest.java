package dev.tributary.web;

import static dev.tributary.web.DashboardFixtures.broker;
import static dev.tributary.web.DashboardFixtures.event;
import static dev.tributary.web.DashboardFixtures.groupEvent;
import static dev.tributary.web.DashboardFixtures.healthy;
import static dev.tributary.web.DashboardFixtures.partition;
import static dev.tributary.web.DashboardFixtures.snapshot;
import static dev.tributary.web.DashboardFixtures.withGroups;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ClusterHistoryTest {
  private final JsonMapper json = JsonMapper.builder().build();
  private final ClusterHistory history =
      new ClusterHistory(json::writeValueAsBytes, 1 << 20, 60_000);

  /** orders-0 led by {@code leader} with ISR {@code isr}, at high watermark {@code hw}. */
  private static ClusterSnapshot view(
      long nowMs, int leader, List<Integer> isr, long hw, List<ClusterSnapshot.EventRow> events) {
    return snapshot(
        100,
        nowMs,
        List.of(broker(1, "alive"), broker(2, "alive"), broker(3, "alive")),
        List.of(partition("orders", 0, leader, isr, hw)),
        events);
  }

  private JsonNode stateAt(long atMs) {
    return json.readTree(history.at(atMs).orElseThrow().stateJson());
  }

  private static int leaderOf(JsonNode state) {
    return state.get("partitions").get(0).get("leader").asInt();
  }

  @Test
  void aMomentGetsTheLastViewRecordedAtOrBeforeIt() {
    history.record(1_000, view(1_000, 1, List.of(1, 2, 3), 10, List.of()));
    history.record(2_000, view(2_000, 2, List.of(2, 3), 10, List.of()));

    assertThat(history.at(999)).isEmpty();
    assertThat(leaderOf(stateAt(1_000))).isEqualTo(1);
    assertThat(leaderOf(stateAt(1_999))).isEqualTo(1);
    assertThat(stateAt(1_999).get("partitions").get(0).get("isr").toString()).isEqualTo("[1,2,3]");
    assertThat(leaderOf(stateAt(2_000))).isEqualTo(2);
    assertThat(stateAt(2_000).get("partitions").get(0).get("isr").toString()).isEqualTo("[2,3]");
    assertThat(leaderOf(stateAt(90_000))).as("after the newest frame: the newest").isEqualTo(2);
    assertThat(history.at(1_500).orElseThrow().recordedAtMs()).isEqualTo(1_000);
  }

  @Test
  void aViewWhereOnlyTheClockMovedAddsNoFrame() {
    history.record(1_000, view(1_000, 1, List.of(1, 2, 3), 10, List.of()));
    history.record(1_250, view(1_250, 1, List.of(1, 2, 3), 10, List.of()));
    history.record(1_500, view(1_500, 1, List.of(1, 2, 3), 11, List.of()));

    assertThat(history.extent().frames()).isEqualTo(2);
    assertThat(history.at(1_400).orElseThrow().recordedAtMs()).isEqualTo(1_000);
    assertThat(
            stateAt(1_400).get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .isEqualTo(10);
    assertThat(
            stateAt(1_500).get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .isEqualTo(11);
  }

  @Test
  void eventsAreKeptOnceAndAMomentGetsOnlyThoseSeenByThen() {
    ClusterSnapshot.EventRow first = event(5, "first");
    ClusterSnapshot.EventRow second = event(6, "second");
    history.record(1_000, view(1_000, 1, List.of(1, 2, 3), 10, List.of(first)));
    // A new event alone is no new frame, but the moment it was seen is kept.
    history.record(2_000, view(2_000, 1, List.of(1, 2, 3), 10, List.of(first, second)));
    history.record(
        3_000,
        withGroups(
            view(3_000, 1, List.of(1, 2, 3), 10, List.of(first, second)),
            List.of(),
            List.of(groupEvent(2_900, "rebalance"))));

    assertThat(history.extent().frames()).isEqualTo(1);
    assertThat(history.at(1_500).orElseThrow().events()).containsExactly(first);
    assertThat(history.at(2_500).orElseThrow().events()).containsExactly(first, second);
    assertThat(history.at(2_500).orElseThrow().groupEvents()).isEmpty();
    assertThat(history.at(3_000).orElseThrow().groupEvents())
        .containsExactly(groupEvent(2_900, "rebalance"));
    assertThat(stateAt(3_000).get("events").size()).as("frames hold no events").isZero();
    assertThat(history.extent().events()).isEqualTo(3);
  }

  @Test
  void framesOlderThanTheAgeBoundGoButTheNewestStays() {
    ClusterHistory short_ = new ClusterHistory(json::writeValueAsBytes, 1 << 20, 10_000);
    short_.record(1_000, view(1_000, 1, List.of(1, 2, 3), 10, List.of()));
    short_.record(5_000, view(5_000, 2, List.of(2, 3), 10, List.of()));
    short_.record(12_000, view(12_000, 2, List.of(2, 3), 12, List.of()));

    assertThat(short_.extent().earliestMs()).isEqualTo(5_000);
    assertThat(short_.at(4_000)).isEmpty();
    short_.record(100_000, view(100_000, 2, List.of(2, 3), 12, List.of()));
    assertThat(short_.extent().frames()).as("unchanged view: no frame, the newest stays").isOne();
    assertThat(short_.at(100_000).orElseThrow().recordedAtMs()).isEqualTo(12_000);
  }

  @Test
  void theOldestFramesGoWhileTheFramesTakeMoreThanTheByteBound() {
    history.record(1_000, healthy(50, 10, 1_000));
    long oneFrame = history.extent().storedBytes();
    ClusterHistory small = new ClusterHistory(json::writeValueAsBytes, oneFrame * 3, 60_000);
    for (int i = 0; i < 10; i++) {
      small.record(1_000 + i, healthy(50, 10 + i, 1_000 + i));
    }
    ClusterHistory.Extent extent = small.extent();
    assertThat(extent.storedBytes()).isLessThanOrEqualTo(oneFrame * 3);
    assertThat(extent.frames()).isBetween(1, 3);
    assertThat(extent.latestMs()).isEqualTo(1_009);
    assertThat(extent.jsonBytes()).isGreaterThan(extent.storedBytes());
    JsonNode newest = json.readTree(small.at(1_009).orElseThrow().stateJson());
    assertThat(newest.get("partitions").size()).isEqualTo(50);
  }

  @Test
  void theOldestFrameKeepsTheEventsItsViewNeeds() {
    ClusterHistory short_ = new ClusterHistory(json::writeValueAsBytes, 1 << 20, 10_000);
    List<ClusterSnapshot.EventRow> events = new ArrayList<>();
    for (int i = 0; i < ClusterHistory.EVENTS_PER_VIEW + 50; i++) {
      events.add(event(i, "e" + i));
    }
    short_.record(1_000, view(1_000, 1, List.of(1, 2, 3), 10, events));
    short_.record(20_000, view(20_000, 2, List.of(2, 3), 10, events));
    short_.record(25_000, view(25_000, 3, List.of(3), 10, events));

    assertThat(short_.extent().earliestMs()).isEqualTo(20_000);
    assertThat(short_.at(20_000).orElseThrow().events())
        .hasSize(ClusterHistory.EVENTS_PER_VIEW)
        .endsWith(events.get(events.size() - 1));
  }

  @Test
  void aClockThatStepsBackStillRecordsInOrder() {
    history.record(5_000, view(5_000, 1, List.of(1, 2, 3), 10, List.of()));
    history.record(4_000, view(4_000, 2, List.of(2, 3), 10, List.of()));

    assertThat(history.extent().frames()).isEqualTo(2);
    assertThat(leaderOf(stateAt(5_000))).isEqualTo(2);
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> new ClusterHistory(json::writeValueAsBytes, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
