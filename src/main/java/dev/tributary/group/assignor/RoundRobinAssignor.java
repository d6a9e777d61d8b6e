package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Kafka's "roundrobin" assignor: every partition of every subscribed topic, sorted by (topic,
 * partition), is dealt in turn to the members sorted by id, skipping members that do not subscribe
 * to the partition's topic. With equal subscriptions the counts differ by at most one; with unequal
 * ones they can be far apart (the sticky assignor balances those).
 */
public final class RoundRobinAssignor implements PartitionAssignor {
  public static final String NAME = "roundrobin";

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
    List<String> members = new ArrayList<>(topicsByMember.keySet());
    int turn = 0;
    // Only topics with a subscriber are dealt, so the skipping loop below always ends.
    for (String topic : AssignmentInputs.membersByTopic(topicsByMember).keySet()) {
      for (int partition = 0; partition < partitionsPerTopic.get(topic); partition++) {
        while (!topicsByMember.get(members.get(turn)).contains(topic)) {
          turn = (turn + 1) % members.size();
        }
        assignment.get(members.get(turn)).add(new TopicPartition(topic, partition));
        turn = (turn + 1) % members.size();
      }
    }
    return AssignmentInputs.freeze(assignment);
  }
}
