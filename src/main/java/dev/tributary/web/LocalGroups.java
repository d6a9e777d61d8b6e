package dev.tributary.web;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupEvent;
import dev.tributary.group.OffsetAndMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * This broker's coordinator's groups and group events as {@link LocalSnapshot} rows. Pure: tested
 * with hand-made {@link GroupCoordinator.LoadedGroup}s.
 *
 * <p>What is left out, and why: commit timestamps, heartbeat times and offset metadata move without
 * the group changing (a REST consumer re-commits the same offsets), and every moving byte would
 * make the peers' answers new and the live view send deltas for an idle group.
 */
final class LocalGroups {
  private LocalGroups() {}

  private static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  /** The loaded groups, sorted by id (as {@link GroupCoordinator#loadedGroups} sorts them). */
  static List<LocalSnapshot.LocalGroup> groups(List<GroupCoordinator.LoadedGroup> loaded) {
    return loaded.stream()
        .map(LocalGroups::group)
        .sorted(Comparator.comparing(LocalSnapshot.LocalGroup::groupId))
        .toList();
  }

  static LocalSnapshot.LocalGroup group(GroupCoordinator.LoadedGroup loaded) {
    CoordinatorApi.GroupDescription g = loaded.group();
    List<LocalSnapshot.LocalMember> members =
        g.members().stream()
            .map(
                m ->
                    new LocalSnapshot.LocalMember(
                        m.memberId(), m.clientId(), m.clientHost(), assignment(m.assignment())))
            .sorted(Comparator.comparing(LocalSnapshot.LocalMember::memberId))
            .toList();
    List<LocalSnapshot.LocalOffset> offsets = new ArrayList<>();
    loaded.offsets().entrySet().stream()
        .sorted(Map.Entry.comparingByKey(BY_TOPIC_PARTITION))
        .forEach(e -> offsets.add(offset(e.getKey(), e.getValue())));
    return new LocalSnapshot.LocalGroup(
        g.groupId(),
        g.state().kafkaName,
        g.protocolType(),
        g.protocolName(),
        g.generationId(),
        g.leaderId(),
        g.coordinatorPartition(),
        loaded.stateTimestampMs(),
        members,
        offsets);
  }

  /**
   * A member's partitions, sorted; none if the bytes are not a consumer-protocol assignment (a
   * group of another protocol type, or a client that sent garbage: the page still shows the group).
   */
  static List<LocalSnapshot.LocalTopicPartition> assignment(byte[] bytes) {
    List<TopicPartition> partitions;
    try {
      partitions = ConsumerProtocol.decodeAssignment(bytes);
    } catch (RuntimeException e) {
      return List.of();
    }
    return partitions.stream()
        .sorted(BY_TOPIC_PARTITION)
        .map(tp -> new LocalSnapshot.LocalTopicPartition(tp.topic(), tp.partition()))
        .toList();
  }

  private static LocalSnapshot.LocalOffset offset(TopicPartition tp, OffsetAndMetadata committed) {
    return new LocalSnapshot.LocalOffset(tp.topic(), tp.partition(), committed.offset());
  }

  /** The coordinator's events, oldest first. */
  static List<LocalSnapshot.LocalGroupEvent> events(List<GroupEvent> events) {
    return events.stream()
        .map(
            e ->
                new LocalSnapshot.LocalGroupEvent(
                    e.timeMs(),
                    e.groupId() == null ? "" : e.groupId(),
                    e.generationId(),
                    e.type().name().toLowerCase(Locale.ROOT),
                    e.description(),
                    new TreeMap<>(e.members())))
        .toList();
  }
}
