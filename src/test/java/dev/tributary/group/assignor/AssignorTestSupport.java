package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/** Builders, invariant checks and the seed loop shared by the assignor tests. */
final class AssignorTestSupport {
  static final List<PartitionAssignor> ALL =
      List.of(new RangeAssignor(), new RoundRobinAssignor(), new StickyAssignor());

  private AssignorTestSupport() {}

  static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  static Subscription subscribing(String... topics) {
    return new Subscription(List.of(topics));
  }

  static Subscription owning(int generationId, List<TopicPartition> owned, String... topics) {
    return new Subscription(List.of(topics), owned, generationId);
  }

  /**
   * Runs {@code body} for seeds 0..count-1, or only for {@code -Dtributary.seed=N}; a failure names
   * its seed.
   */
  static void forEachSeed(int count, LongConsumer body) {
    String replay = System.getProperty("tributary.seed");
    long[] seeds =
        replay != null && !replay.isBlank()
            ? new long[] {Long.parseLong(replay.trim())}
            : java.util.stream.LongStream.range(0, count).toArray();
    for (long seed : seeds) {
      try {
        body.accept(seed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "failed for seed " + seed + " (replay with -Dtributary.seed=" + seed + "): " + e, e);
      }
    }
  }

  /** Every partition of a subscribed existing topic exactly once, to a subscriber; nothing else. */
  static void assertValid(
      Map<String, Integer> partitionsPerTopic,
      Map<String, Subscription> subscriptions,
      Map<String, List<TopicPartition>> assignment) {
    if (!assignment.keySet().equals(subscriptions.keySet())) {
      throw new AssertionError(
          "members " + assignment.keySet() + " != subscribed " + subscriptions.keySet());
    }
    Map<TopicPartition, String> ownerOf = new HashMap<>();
    assignment.forEach(
        (member, partitions) -> {
          for (TopicPartition tp : partitions) {
            String other = ownerOf.put(tp, member);
            if (other != null) {
              throw new AssertionError(tp + " assigned to both " + other + " and " + member);
            }
            if (!subscriptions.get(member).topics().contains(tp.topic())) {
              throw new AssertionError(tp + " assigned to " + member + " which does not subscribe");
            }
            Integer partitionCount = partitionsPerTopic.get(tp.topic());
            if (partitionCount == null || tp.partition() >= partitionCount) {
              throw new AssertionError(tp + " does not exist but is assigned to " + member);
            }
          }
        });
    Set<String> subscribed = new HashSet<>();
    subscriptions.values().forEach(s -> subscribed.addAll(s.topics()));
    partitionsPerTopic.forEach(
        (topic, partitionCount) -> {
          for (int p = 0; subscribed.contains(topic) && p < partitionCount; p++) {
            if (!ownerOf.containsKey(tp(topic, p))) {
              throw new AssertionError(tp(topic, p) + " is subscribed but unassigned");
            }
          }
        });
  }

  /**
   * Fails if some member u could hand partitions along a chain of reassignments to a member v with
   * count(v) <= count(u) - 2: then the sum of squared counts could drop, so the assignment is not
   * as balanced as the subscriptions allow. (No such chain means that sum is minimal.)
   */
  static void assertNoImprovingChain(
      Map<String, Subscription> subscriptions, Map<String, List<TopicPartition>> assignment) {
    Map<String, Set<String>> topicsOf = new HashMap<>();
    subscriptions.forEach((member, s) -> topicsOf.put(member, new HashSet<>(s.topics())));
    for (String start : assignment.keySet()) {
      int startCount = assignment.get(start).size();
      Set<String> reached = new HashSet<>(List.of(start));
      Deque<String> queue = new ArrayDeque<>(List.of(start));
      while (!queue.isEmpty()) {
        String giver = queue.poll();
        Set<String> heldTopics = new HashSet<>();
        assignment.get(giver).forEach(tp -> heldTopics.add(tp.topic()));
        for (String receiver : assignment.keySet()) {
          if (reached.contains(receiver)
              || heldTopics.stream().noneMatch(topicsOf.get(receiver)::contains)) {
            continue;
          }
          reached.add(receiver);
          if (assignment.get(receiver).size() <= startCount - 2) {
            throw new AssertionError(
                "not balanced: "
                    + start
                    + " ("
                    + startCount
                    + ") could pass a partition on to "
                    + receiver
                    + " ("
                    + assignment.get(receiver).size()
                    + "): "
                    + counts(assignment));
          }
          queue.add(receiver);
        }
      }
    }
  }

  static Map<String, Integer> counts(Map<String, List<TopicPartition>> assignment) {
    Map<String, Integer> counts = new TreeMap<>();
    assignment.forEach((member, partitions) -> counts.put(member, partitions.size()));
    return counts;
  }

  static long sumOfSquaredCounts(Map<String, List<TopicPartition>> assignment) {
    return assignment.values().stream().mapToLong(l -> (long) l.size() * l.size()).sum();
  }

  static Map<TopicPartition, String> ownerOf(Map<String, List<TopicPartition>> assignment) {
    Map<TopicPartition, String> owners = new HashMap<>();
    assignment.forEach((member, partitions) -> partitions.forEach(tp -> owners.put(tp, member)));
    return owners;
  }

  /** A random non-empty subset of topics, in random order. */
  static List<String> randomTopics(java.util.Random random, List<String> topics) {
    List<String> chosen = new ArrayList<>();
    for (String topic : topics) {
      if (random.nextInt(2) == 0) {
        chosen.add(topic);
      }
    }
    if (chosen.isEmpty()) {
      chosen.add(topics.get(random.nextInt(topics.size())));
    }
    java.util.Collections.shuffle(chosen, random);
    return chosen;
  }

  static String[] array(List<String> topics) {
    return topics.toArray(String[]::new);
  }

  static List<TopicPartition> list(TopicPartition... partitions) {
    return Arrays.asList(partitions);
  }
}
