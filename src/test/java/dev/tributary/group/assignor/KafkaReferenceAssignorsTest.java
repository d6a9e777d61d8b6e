package dev.tributary.group.assignor;

import static dev.tributary.group.assignor.AssignorTestSupport.forEachSeed;
import static dev.tributary.group.assignor.AssignorTestSupport.randomTopics;
import static dev.tributary.group.assignor.AssignorTestSupport.sumOfSquaredCounts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.junit.jupiter.api.Test;

/**
 * Compares the assignors with Kafka's own (kafka-clients, a test-only dependency): range and
 * roundrobin must agree exactly; sticky must be at least as balanced as Kafka's sticky.
 */
class KafkaReferenceAssignorsTest {
  @Test
  void rangeAndRoundRobinMatchKafkasAssignorsExactly() {
    forEachSeed(
        300,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          Map<String, Subscription> group = randomGroup(random, topics);
          assertThat(new RangeAssignor().assign(topics, group))
              .isEqualTo(
                  kafka(new org.apache.kafka.clients.consumer.RangeAssignor(), topics, group));
          assertThat(new RoundRobinAssignor().assign(topics, group))
              .isEqualTo(
                  kafka(new org.apache.kafka.clients.consumer.RoundRobinAssignor(), topics, group));
        });
  }

  @Test
  void stickyIsAtLeastAsBalancedAsKafkasSticky() {
    forEachSeed(
        300,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          Map<String, Subscription> group = randomGroup(random, topics);
          var ours = new StickyAssignor().assign(topics, group);
          var theirs = kafka(new org.apache.kafka.clients.consumer.StickyAssignor(), topics, group);
          assertThat(sumOfSquaredCounts(ours)).isLessThanOrEqualTo(sumOfSquaredCounts(theirs));
        });
  }

  private static Map<String, List<TopicPartition>> kafka(
      AbstractPartitionAssignor assignor,
      Map<String, Integer> topics,
      Map<String, Subscription> group) {
    Map<String, ConsumerPartitionAssignor.Subscription> subscriptions = new TreeMap<>();
    group.forEach(
        (member, s) ->
            subscriptions.put(member, new ConsumerPartitionAssignor.Subscription(s.topics())));
    Map<String, List<TopicPartition>> result = new TreeMap<>();
    assignor
        .assign(topics, subscriptions)
        .forEach(
            (member, partitions) -> {
              List<TopicPartition> converted = new ArrayList<>();
              partitions.forEach(p -> converted.add(new TopicPartition(p.topic(), p.partition())));
              converted.sort(AssignmentInputs.PARTITION_ORDER);
              result.put(member, converted);
            });
    return result;
  }

  private static Map<String, Integer> randomTopicsWithPartitions(Random random) {
    Map<String, Integer> topics = new TreeMap<>();
    for (int t = 1 + random.nextInt(6); t > 0; t--) {
      topics.put("t" + t, 1 + random.nextInt(12));
    }
    return topics;
  }

  /** Fresh members (Kafka's sticky reads ownership from its own user data, so none is claimed). */
  private static Map<String, Subscription> randomGroup(Random random, Map<String, Integer> topics) {
    List<String> names = new ArrayList<>(topics.keySet());
    Map<String, Subscription> group = new TreeMap<>();
    for (int m = 1 + random.nextInt(10); m > 0; m--) {
      group.put("consumer-" + m, new Subscription(randomTopics(random, names)));
    }
    return group;
  }
}
