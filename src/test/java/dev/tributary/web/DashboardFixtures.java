package dev.tributary.web;

import java.util.List;
import java.util.Map;

/** Small hand-made cluster views for the live view's tests. */
final class DashboardFixtures {
  private DashboardFixtures() {}

  static ClusterSnapshot.BrokerRow broker(int id, String state) {
    return new ClusterSnapshot.BrokerRow(
        id,
        "127.0.0.1",
        8080 + id,
        null,
        state,
        10 + id,
        "inc-" + id,
        id == 1,
        true,
        0,
        List.of(
            new ClusterSnapshot.ListenerRow("HTTP", "127.0.0.1", 8080 + id, "PLAINTEXT"),
            new ClusterSnapshot.ListenerRow("KAFKA", "127.0.0.1", 9091 + id, "PLAINTEXT")),
        0,
        List.of(),
        30_000L,
        0,
        0);
  }

  static ClusterSnapshot.PartitionRow partition(
      String topic, int p, int leader, List<Integer> isr, long hw) {
    List<Integer> replicas = List.of(1, 2, 3);
    return new ClusterSnapshot.PartitionRow(
        topic + "-" + p,
        topic,
        p,
        "online",
        leader,
        0,
        replicas,
        isr,
        replicas.stream().filter(r -> !isr.contains(r)).toList(),
        new ClusterSnapshot.OffsetsRow(0, hw, hw, 10 * hw, 1, "hw=" + hw, List.of()));
  }

  static ClusterSnapshot.EventRow event(long offset, String text) {
    return new ClusterSnapshot.EventRow(
        offset, offset * 10, "leader_changed", "orders", 0, 2, text, "why", 0, -1);
  }

  static ClusterSnapshot snapshot(
      long metadataOffset,
      long nowMs,
      List<ClusterSnapshot.BrokerRow> brokers,
      List<ClusterSnapshot.PartitionRow> partitions,
      List<ClusterSnapshot.EventRow> events) {
    return new ClusterSnapshot(
        "cluster",
        new ClusterSnapshot.Header("c-1", 1, 1, 3, metadataOffset, nowMs, false),
        brokers,
        partitions,
        List.of(new ClusterSnapshot.TopicRow("orders", partitions.size(), 3, 2, 0, 0)),
        events,
        List.of(),
        List.of());
  }

  /** Three brokers, orders-0..n-1 led by 1 with full ISR at high watermark {@code hw}. */
  static ClusterSnapshot healthy(int partitions, long hw, long nowMs) {
    List<ClusterSnapshot.PartitionRow> rows = new java.util.ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      rows.add(partition("orders", p, 1, List.of(1, 2, 3), hw));
    }
    return snapshot(
        100,
        nowMs,
        List.of(broker(1, "alive"), broker(2, "alive"), broker(3, "alive")),
        rows,
        List.of(event(5, "first")));
  }

  /** Group {@code id} with one member (REST instance c1 on broker 1) reading orders-0. */
  static ClusterSnapshot.GroupRow group(String id, String state, int generation, long committed) {
    return new ClusterSnapshot.GroupRow(
        id,
        state,
        5_000,
        generation,
        "consumer",
        "range",
        "c1-m",
        1,
        0,
        List.of(new ClusterSnapshot.GroupMemberRow("c1-m", "c1", "broker-1", List.of("orders-0"))),
        List.of(
            new ClusterSnapshot.GroupPartitionRow(
                "orders-0", "orders", 0, "c1-m", committed, 10L, 10 - committed)));
  }

  static ClusterSnapshot.GroupEventRow groupEvent(long timestampMs, String text) {
    return new ClusterSnapshot.GroupEventRow(
        timestampMs, "rebalance_started", "g", 1, 1, text, Map.of());
  }

  /** {@code snapshot} with these groups and group events instead of its own. */
  static ClusterSnapshot withGroups(
      ClusterSnapshot snapshot,
      List<ClusterSnapshot.GroupRow> groups,
      List<ClusterSnapshot.GroupEventRow> groupEvents) {
    return new ClusterSnapshot(
        snapshot.scope(),
        snapshot.header(),
        snapshot.brokers(),
        snapshot.partitions(),
        snapshot.topics(),
        snapshot.events(),
        groups,
        groupEvents);
  }
}
