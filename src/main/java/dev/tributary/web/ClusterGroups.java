package dev.tributary.web;

import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cluster's consumer groups and group events, merged from the brokers' {@link LocalSnapshot}s.
 * Pure: no I/O, no clock.
 *
 * <p>Each broker's coordinator holds only the groups whose {@code __consumer_offsets} partition it
 * leads, so normally every group comes from one answer. While leadership of such a partition moves,
 * the old and the new leader may both hold it for a moment: the copy of the broker that leads the
 * partition in this broker's image wins, else the lowest broker id's (deterministic, so the row
 * does not flap between copies from tick to tick).
 */
final class ClusterGroups {
  private ClusterGroups() {}

  /** How many group events the view carries, the newest (each coordinator keeps 200 of its own). */
  static final int MAX_GROUP_EVENTS = 200;

  /**
   * One row per group, sorted by id.
   *
   * @param answers the local snapshots that arrived, by broker id
   * @param partitions the view's partition rows, for the high watermarks that lag is measured from
   */
  static List<ClusterSnapshot.GroupRow> merge(
      MetadataImage image,
      Map<Integer, LocalSnapshot> answers,
      List<ClusterSnapshot.PartitionRow> partitions) {
    Map<String, ClusterSnapshot.OffsetsRow> offsetsByKey = new HashMap<>();
    for (ClusterSnapshot.PartitionRow p : partitions) {
      if (p.offsets() != null) {
        offsetsByKey.put(p.key(), p.offsets());
      }
    }
    Map<Integer, Integer> offsetsTopicLeaders = offsetsTopicLeaders(image);
    Map<String, Integer> chosenBroker = new TreeMap<>();
    Map<String, LocalSnapshot.LocalGroup> chosen = new HashMap<>();
    for (Integer brokerId : new TreeSet<>(answers.keySet())) {
      for (LocalSnapshot.LocalGroup g : answers.get(brokerId).groups()) {
        if (g.groupId() == null) {
          continue; // another process's JSON: skip a row we cannot key
        }
        Integer current = chosenBroker.get(g.groupId());
        boolean leads =
            Integer.valueOf(brokerId).equals(offsetsTopicLeaders.get(g.coordinatorPartition()));
        if (current == null || leads) {
          chosenBroker.put(g.groupId(), brokerId);
          chosen.put(g.groupId(), g);
        }
      }
    }
    List<ClusterSnapshot.GroupRow> rows = new ArrayList<>();
    chosenBroker.forEach(
        (groupId, brokerId) -> rows.add(row(chosen.get(groupId), brokerId, offsetsByKey)));
    return rows;
  }

  /**
   * The group events of every answer, oldest first, the last {@link #MAX_GROUP_EVENTS}. Ordered by
   * time, then by broker id, each coordinator's own order kept; an event repeated in two answers is
   * kept once.
   */
  static List<ClusterSnapshot.GroupEventRow> events(Map<Integer, LocalSnapshot> answers) {
    List<ClusterSnapshot.GroupEventRow> all = new ArrayList<>();
    for (Integer brokerId : new TreeSet<>(answers.keySet())) {
      for (LocalSnapshot.LocalGroupEvent e : answers.get(brokerId).groupEvents()) {
        all.add(
            new ClusterSnapshot.GroupEventRow(
                e.timeMs(),
                e.type(),
                e.groupId() == null ? "" : e.groupId(),
                e.generationId(),
                brokerId,
                e.text(),
                e.members() == null ? Map.of() : new TreeMap<>(e.members())));
      }
    }
    all.sort(Comparator.comparingLong(ClusterSnapshot.GroupEventRow::timestampMs)); // stable
    List<ClusterSnapshot.GroupEventRow> unique = List.copyOf(new LinkedHashSet<>(all));
    return unique.size() <= MAX_GROUP_EVENTS
        ? unique
        : unique.subList(unique.size() - MAX_GROUP_EVENTS, unique.size());
  }

  /** Partition of {@code __consumer_offsets} → its leader in the image (absent: no leader). */
  private static Map<Integer, Integer> offsetsTopicLeaders(MetadataImage image) {
    Map<Integer, Integer> leaders = new HashMap<>();
    TopicImage topic = image.topicsByName().get(GroupCoordinatorConfig.OFFSETS_TOPIC);
    if (topic != null) {
      for (PartitionImage p : topic.partitions().values()) {
        if (p.leader() >= 0) {
          leaders.put(p.partition(), p.leader());
        }
      }
    }
    return leaders;
  }

  private static final Comparator<LocalSnapshot.LocalTopicPartition> BY_TOPIC_PARTITION =
      Comparator.comparing(LocalSnapshot.LocalTopicPartition::topic)
          .thenComparingInt(LocalSnapshot.LocalTopicPartition::partition);

  private static ClusterSnapshot.GroupRow row(
      LocalSnapshot.LocalGroup g,
      int coordinator,
      Map<String, ClusterSnapshot.OffsetsRow> offsetsByKey) {
    Set<LocalSnapshot.LocalTopicPartition> read = new TreeSet<>(BY_TOPIC_PARTITION);
    Map<LocalSnapshot.LocalTopicPartition, String> memberOf = new HashMap<>();
    List<ClusterSnapshot.GroupMemberRow> members = new ArrayList<>();
    for (LocalSnapshot.LocalMember m : g.members()) {
      List<String> assigned = new ArrayList<>();
      for (LocalSnapshot.LocalTopicPartition tp : m.assignment()) {
        assigned.add(key(tp));
        read.add(tp);
        memberOf.put(tp, m.memberId());
      }
      members.add(
          new ClusterSnapshot.GroupMemberRow(m.memberId(), m.clientId(), m.clientHost(), assigned));
    }
    Map<LocalSnapshot.LocalTopicPartition, Long> committed = new HashMap<>();
    for (LocalSnapshot.LocalOffset o : g.offsets()) {
      LocalSnapshot.LocalTopicPartition tp =
          new LocalSnapshot.LocalTopicPartition(o.topic(), o.partition());
      read.add(tp);
      committed.put(tp, o.offset());
    }
    List<ClusterSnapshot.GroupPartitionRow> partitions = new ArrayList<>();
    for (LocalSnapshot.LocalTopicPartition tp : read) {
      ClusterSnapshot.OffsetsRow offsets = offsetsByKey.get(key(tp));
      Long offset = committed.get(tp);
      partitions.add(
          new ClusterSnapshot.GroupPartitionRow(
              key(tp),
              tp.topic(),
              tp.partition(),
              memberOf.get(tp),
              offset,
              offsets == null ? null : offsets.highWatermark(),
              lag(offset, offsets)));
    }
    return new ClusterSnapshot.GroupRow(
        g.groupId(),
        g.state(),
        g.stateSinceMs(),
        g.generationId(),
        g.protocolType(),
        g.protocol(),
        g.leaderId(),
        coordinator,
        g.coordinatorPartition(),
        members,
        partitions);
  }

  private static String key(LocalSnapshot.LocalTopicPartition tp) {
    return tp.topic() + "-" + tp.partition();
  }

  /**
   * High watermark minus the committed offset, or minus the log start offset when nothing is
   * committed (what a consumer starting from the earliest record would have to read); never below 0
   * (a committed offset past a truncated log). Null while the high watermark is unknown.
   */
  static Long lag(Long committedOffset, ClusterSnapshot.OffsetsRow offsets) {
    if (offsets == null) {
      return null;
    }
    long from = committedOffset != null ? committedOffset : offsets.logStartOffset();
    return Math.max(0, offsets.highWatermark() - from);
  }
}
