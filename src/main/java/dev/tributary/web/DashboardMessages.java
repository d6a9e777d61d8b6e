package dev.tributary.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The live view's messages (docs/dashboard-protocol.md): a {@link Snapshot} first, then {@link
 * Delta}s holding only what changed, and a {@link Heartbeat} when nothing did for a second. Every
 * message on one connection carries the next {@code seq}; a client that sees a gap reconnects for a
 * fresh snapshot.
 */
final class DashboardMessages {
  private DashboardMessages() {}

  record Snapshot(
      @JsonProperty("type") String type,
      @JsonProperty("seq") long seq,
      @JsonProperty("state") ClusterSnapshot state) {
    Snapshot(long seq, ClusterSnapshot state) {
      this("snapshot", seq, state);
    }
  }

  record Heartbeat(
      @JsonProperty("type") String type,
      @JsonProperty("seq") long seq,
      @JsonProperty("server_time_ms") long serverTimeMs) {
    Heartbeat(long seq, long serverTimeMs) {
      this("heartbeat", seq, serverTimeMs);
    }
  }

  /**
   * What changed between two snapshots: full rows of changed or new brokers, partitions and groups
   * (keyed by broker id, {@code topic-partition} and group id), the keys of removed ones, the whole
   * topic list if any topic changed (else null), and the events and group events not in the older
   * snapshot.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Delta(
      @JsonProperty("type") String type,
      @JsonProperty("seq") long seq,
      @JsonProperty("header") ClusterSnapshot.Header header,
      @JsonProperty("brokers") List<ClusterSnapshot.BrokerRow> brokers,
      @JsonProperty("removed_brokers") List<Integer> removedBrokers,
      @JsonProperty("partitions") List<ClusterSnapshot.PartitionRow> partitions,
      @JsonProperty("removed_partitions") List<String> removedPartitions,
      @JsonProperty("topics") List<ClusterSnapshot.TopicRow> topics,
      @JsonProperty("events") List<ClusterSnapshot.EventRow> events,
      @JsonProperty("groups") List<ClusterSnapshot.GroupRow> groups,
      @JsonProperty("removed_groups") List<String> removedGroups,
      @JsonProperty("group_events") List<ClusterSnapshot.GroupEventRow> groupEvents) {

    Delta withSeq(long nextSeq) {
      return new Delta(
          type,
          nextSeq,
          header,
          brokers,
          removedBrokers,
          partitions,
          removedPartitions,
          topics,
          events,
          groups,
          removedGroups,
          groupEvents);
    }
  }

  /** The delta from {@code before} to {@code after}, or empty when nothing but the clock moved. */
  static Optional<Delta> between(ClusterSnapshot before, ClusterSnapshot after) {
    ClusterSnapshot.Header headerBefore = before.header();
    ClusterSnapshot.Header headerAfter = after.header();

    Map<Integer, ClusterSnapshot.BrokerRow> oldBrokers = new HashMap<>();
    before.brokers().forEach(b -> oldBrokers.put(b.brokerId(), b));
    List<ClusterSnapshot.BrokerRow> brokers = new ArrayList<>();
    for (ClusterSnapshot.BrokerRow b : after.brokers()) {
      if (!b.equals(oldBrokers.remove(b.brokerId()))) {
        brokers.add(b);
      }
    }
    List<Integer> removedBrokers = oldBrokers.keySet().stream().sorted().toList();

    Map<String, ClusterSnapshot.PartitionRow> oldPartitions = new HashMap<>();
    before.partitions().forEach(p -> oldPartitions.put(p.key(), p));
    List<ClusterSnapshot.PartitionRow> partitions = new ArrayList<>();
    for (ClusterSnapshot.PartitionRow p : after.partitions()) {
      if (!p.equals(oldPartitions.remove(p.key()))) {
        partitions.add(p);
      }
    }
    List<String> removedPartitions = oldPartitions.keySet().stream().sorted().toList();

    List<ClusterSnapshot.TopicRow> topics =
        before.topics().equals(after.topics()) ? null : after.topics();
    List<ClusterSnapshot.EventRow> events = newEvents(before.events(), after.events());

    Map<String, ClusterSnapshot.GroupRow> oldGroups = new HashMap<>();
    before.groups().forEach(g -> oldGroups.put(g.groupId(), g));
    List<ClusterSnapshot.GroupRow> groups = new ArrayList<>();
    for (ClusterSnapshot.GroupRow g : after.groups()) {
      if (!g.equals(oldGroups.remove(g.groupId()))) {
        groups.add(g);
      }
    }
    List<String> removedGroups = oldGroups.keySet().stream().sorted().toList();
    List<ClusterSnapshot.GroupEventRow> groupEvents =
        newGroupEvents(before.groupEvents(), after.groupEvents());

    if (headerBefore.sameAs(headerAfter)
        && brokers.isEmpty()
        && removedBrokers.isEmpty()
        && partitions.isEmpty()
        && removedPartitions.isEmpty()
        && topics == null
        && events.isEmpty()
        && groups.isEmpty()
        && removedGroups.isEmpty()
        && groupEvents.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Delta(
            "delta",
            -1,
            headerAfter,
            brokers,
            removedBrokers,
            partitions,
            removedPartitions,
            topics,
            events,
            groups,
            removedGroups,
            groupEvents));
  }

  /**
   * The events of {@code after} that {@code before} lacks. Both are windows of one ordered history,
   * so these are the ones past {@code before}'s last entry (all of them if they no longer overlap).
   */
  static List<ClusterSnapshot.EventRow> newEvents(
      List<ClusterSnapshot.EventRow> before, List<ClusterSnapshot.EventRow> after) {
    if (before.isEmpty()) {
      return after;
    }
    ClusterSnapshot.EventRow last = before.get(before.size() - 1);
    for (int i = after.size() - 1; i >= 0; i--) {
      if (after.get(i).equals(last)) {
        return List.copyOf(after.subList(i + 1, after.size()));
      }
    }
    Set<ClusterSnapshot.EventRow> seen = before.stream().collect(Collectors.toSet());
    return after.stream().filter(e -> !seen.contains(e)).toList();
  }

  /**
   * The group events of {@code after} that {@code before} lacks, in {@code after}'s order. Unlike
   * the metadata timeline these are merged from several coordinators' answers, so a late answer can
   * add events older than ones already sent: compared as sets, not by position. (An answer that
   * went missing and came back resends its events; the page drops what it already has.)
   */
  private static List<ClusterSnapshot.GroupEventRow> newGroupEvents(
      List<ClusterSnapshot.GroupEventRow> before, List<ClusterSnapshot.GroupEventRow> after) {
    if (before.equals(after)) {
      return List.of();
    }
    Set<ClusterSnapshot.GroupEventRow> seen = Set.copyOf(before);
    return after.stream().filter(e -> !seen.contains(e)).toList();
  }
}
