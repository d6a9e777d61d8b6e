package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Kafka's "sticky" assignor (KIP-54, eager protocol): the assignment is as balanced as the
 * subscriptions allow and, subject to that, keeps as many of the members' previous ownerships as it
 * can, so that consumers lose little warm state in a rebalance.
 *
 * <p>Previous ownership comes from each member's {@link Subscription#ownedPartitions()} and {@link
 * Subscription#generationId()}, resolved by {@link PreviousOwnership} (higher generation wins,
 * KIP-341; claims to unsubscribed or vanished partitions are dropped).
 *
 * <p>Two paths, as in Kafka's AbstractStickyAssignor:
 *
 * <ul>
 *   <li>all members with a subscription subscribe to the same topics: {@link
 *       ConstrainedStickyAssignment}, counts within one and provably minimal movement;
 *   <li>otherwise: {@link GeneralStickyAssignment}, optimal balance, best-effort stickiness.
 * </ul>
 *
 * Members whose subscription names no existing topic get nothing and take no part in balancing.
 */
public final class StickyAssignor implements PartitionAssignor {
  public static final String NAME = "sticky";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, List<TopicPartition>> assign(
      Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions) {
    SortedMap<String, SortedSet<String>> topicsByMember =
        AssignmentInputs.effectiveTopics(partitionsPerTopic, subscriptions);
    SortedMap<String, List<TopicPartition>> assignment =
        AssignmentInputs.emptyAssignment(topicsByMember.keySet());
    SortedMap<String, SortedSet<String>> active = new TreeMap<>();
    topicsByMember.forEach(
        (member, topics) -> {
          if (!topics.isEmpty()) {
            active.put(member, topics);
          }
        });
    if (active.isEmpty()) {
      return AssignmentInputs.freeze(assignment);
    }
    SortedMap<String, List<TopicPartition>> owned =
        PreviousOwnership.resolve(partitionsPerTopic, topicsByMember, subscriptions);
    SortedSet<String> commonTopics = active.get(active.firstKey());
    if (active.values().stream().allMatch(commonTopics::equals)) {
      assignment.putAll(
          ConstrainedStickyAssignment.assign(
              allPartitions(commonTopics, partitionsPerTopic),
              new ArrayList<>(active.keySet()),
              owned));
    } else {
      assignment.putAll(GeneralStickyAssignment.assign(partitionsPerTopic, active, owned));
    }
    return AssignmentInputs.freeze(assignment);
  }

  private static List<TopicPartition> allPartitions(
      SortedSet<String> topics, Map<String, Integer> partitionsPerTopic) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      for (int partition = 0; partition < partitionsPerTopic.get(topic); partition++) {
        partitions.add(new TopicPartition(topic, partition));
      }
    }
    return partitions;
  }
}
