package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Kafka's "range" assignor: topic by topic, the members subscribed to the topic, sorted by member
 * id, each take a contiguous range of its partitions; the first {@code partitions % members} of
 * them take one extra. Members therefore get the same partition numbers of co-partitioned topics,
 * at the price of imbalance across many topics (the first members get every topic's extra).
 */
public final class RangeAssignor implements PartitionAssignor {
  public static final String NAME = "range";

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
    AssignmentInputs.membersByTopic(topicsByMember)
        .forEach(
            (topic, members) -> {
              int partitions = partitionsPerTopic.get(topic);
              int base = partitions / members.size();
              int withExtra = partitions % members.size();
              int next = 0;
              for (int i = 0; i < members.size(); i++) {
                int end = next + base + (i < withExtra ? 1 : 0);
                List<TopicPartition> own = assignment.get(members.get(i));
                for (int partition = next; partition < end; partition++) {
                  own.add(new TopicPartition(topic, partition));
                }
                next = end;
              }
            });
    return AssignmentInputs.freeze(assignment);
  }
}
