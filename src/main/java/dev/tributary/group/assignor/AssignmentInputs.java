package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** Input normalization and output shaping shared by the assignors. */
final class AssignmentInputs {
  /** The order of partitions everywhere in this package: topic, then partition number. */
  static final Comparator<TopicPartition> PARTITION_ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private AssignmentInputs() {}

  /**
   * memberId -> the topics it subscribes to that exist in {@code partitionsPerTopic}, both sorted,
   * so that no assignor depends on the caller's map or list order.
   */
  static SortedMap<String, SortedSet<String>> effectiveTopics(
      Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions) {
    Objects.requireNonNull(partitionsPerTopic, "partitionsPerTopic");
    Objects.requireNonNull(subscriptions, "subscriptions");
    partitionsPerTopic.forEach(
        (topic, count) -> {
          if (count == null || count < 0) {
            throw new IllegalArgumentException(
                "partition count of " + topic + " must be >= 0: " + count);
          }
        });
    SortedMap<String, SortedSet<String>> topicsByMember = new TreeMap<>();
    subscriptions.forEach(
        (memberId, subscription) -> {
          Objects.requireNonNull(subscription, () -> "subscription of " + memberId);
          SortedSet<String> topics = new TreeSet<>();
          for (String topic : subscription.topics()) {
            if (partitionsPerTopic.containsKey(topic)) {
              topics.add(topic);
            }
          }
          topicsByMember.put(memberId, topics);
        });
    return topicsByMember;
  }

  /** memberId -> topics subscribed to it, for the topics that some member subscribes to. */
  static SortedMap<String, List<String>> membersByTopic(
      SortedMap<String, SortedSet<String>> topicsByMember) {
    SortedMap<String, List<String>> membersByTopic = new TreeMap<>();
    // Members come in id order, so each topic's list is sorted by member id.
    topicsByMember.forEach(
        (member, topics) ->
            topics.forEach(
                topic ->
                    membersByTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(member)));
    return membersByTopic;
  }

  /** An empty, mutable list per member. */
  static SortedMap<String, List<TopicPartition>> emptyAssignment(Iterable<String> members) {
    SortedMap<String, List<TopicPartition>> assignment = new TreeMap<>();
    members.forEach(member -> assignment.put(member, new ArrayList<>()));
    return assignment;
  }

  /** Sorts every list and makes the whole assignment unmodifiable. */
  static Map<String, List<TopicPartition>> freeze(
      SortedMap<String, List<TopicPartition>> assignment) {
    SortedMap<String, List<TopicPartition>> frozen = new TreeMap<>();
    assignment.forEach(
        (member, partitions) -> {
          List<TopicPartition> sorted = new ArrayList<>(partitions);
          sorted.sort(PARTITION_ORDER);
          frozen.put(member, Collections.unmodifiableList(sorted));
        });
    return Collections.unmodifiableSortedMap(frozen);
  }
}
