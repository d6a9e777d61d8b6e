package dev.tributary.web;

import static dev.tributary.web.DashboardFixtures.group;
import static dev.tributary.web.DashboardFixtures.healthy;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistorySeriesTest {
  private final HistorySeries series = new HistorySeries(1_000);

  /** A view with these topics (name, in, out) and groups. */
  private static ClusterSnapshot view(
      List<ClusterSnapshot.TopicRow> topics, List<ClusterSnapshot.GroupRow> groups) {
    ClusterSnapshot base = healthy(1, 10, 0);
    return new ClusterSnapshot(
        base.scope(),
        base.header(),
        base.brokers(),
        base.partitions(),
        topics,
        List.of(),
        groups,
        List.of());
  }

  private static ClusterSnapshot.TopicRow topic(String name, double in, double out) {
    return new ClusterSnapshot.TopicRow(name, 3, 3, 2, in, out);
  }

  @Test
  void ratesAndLagAreSampledOnceASecondByColumn() {
    series.record(
        1_000, view(List.of(topic("orders", 10, 2)), List.of(group("g", "Stable", 1, 7))));
    series.record(1_400, view(List.of(topic("orders", 99, 99)), List.of()));
    series.record(2_000, view(List.of(topic("orders", 20, 4), topic("audit", 5, 0)), List.of()));

    HistorySeries.Columns columns = series.since(0);

    assertThat(columns.times()).containsExactly(1_000L, 2_000L);
    assertThat(columns.in().get("orders")).containsExactly(10.0, 20.0);
    assertThat(columns.out().get("orders")).containsExactly(2.0, 4.0);
    assertThat(columns.in().get("audit")).as("did not exist yet: null").containsExactly(null, 5.0);
    assertThat(columns.lag().get("g")).containsExactly(3L, null);
  }

  @Test
  void internalTopicsAreLeftOutAndAnUnknownLagIsNull() {
    ClusterSnapshot.GroupRow g = group("g", "Stable", 1, 7);
    ClusterSnapshot.GroupRow unknown =
        new ClusterSnapshot.GroupRow(
            "g",
            g.state(),
            g.stateSinceMs(),
            g.generationId(),
            g.protocolType(),
            g.protocol(),
            g.leaderId(),
            g.coordinator(),
            g.coordinatorPartition(),
            g.members(),
            List.of(
                new ClusterSnapshot.GroupPartitionRow(
                    "orders-0", "orders", 0, null, 3L, null, null)));
    series.record(1_000, view(List.of(topic("__consumer_offsets", 50, 0)), List.of(unknown)));

    HistorySeries.Columns columns = series.since(0);
    assertThat(columns.in()).isEmpty();
    assertThat(columns.lag().get("g")).isEqualTo(Arrays.asList((Long) null));
  }

  @Test
  void samplesGoWithTheHistoryAndFromSelectsTheRecentOnes() {
    for (int i = 0; i < 5; i++) {
      series.record(1_000L * i, view(List.of(topic("orders", i, 0)), List.of()));
    }
    series.evictBefore(2_000);

    assertThat(series.size()).isEqualTo(3);
    assertThat(series.since(3_000).times()).containsExactly(3_000L, 4_000L);
    assertThat(series.since(3_000).in().get("orders")).containsExactly(3.0, 4.0);
  }
}
