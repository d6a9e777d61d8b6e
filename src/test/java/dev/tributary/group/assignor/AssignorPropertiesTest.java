package dev.tributary.group.assignor;

import static dev.tributary.group.assignor.AssignorTestSupport.ALL;
import static dev.tributary.group.assignor.AssignorTestSupport.assertNoImprovingChain;
import static dev.tributary.group.assignor.AssignorTestSupport.assertValid;
import static dev.tributary.group.assignor.AssignorTestSupport.counts;
import static dev.tributary.group.assignor.AssignorTestSupport.forEachSeed;
import static dev.tributary.group.assignor.AssignorTestSupport.ownerOf;
import static dev.tributary.group.assignor.AssignorTestSupport.randomTopics;
import static dev.tributary.group.assignor.AssignorTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Seeded properties of all assignors. A failure names its seed; replay one with {@code
 * -Dtributary.seed=N}.
 */
class AssignorPropertiesTest {
  private static final int SEEDS = 400;
  private final PartitionAssignor sticky = new StickyAssignor();

  @Test
  void everyAssignorAssignsEveryPartitionOnceToASubscribedMemberWhateverTheClaims() {
    forEachSeed(
        SEEDS,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          Map<String, Subscription> subscriptions = randomGroup(random, topics);
          for (PartitionAssignor assignor : ALL) {
            var assignment = assignor.assign(topics, subscriptions);
            assertValid(topics, subscriptions, assignment);
            assertThat(assignor.assign(topics, reordered(subscriptions, random)))
                .as("%s is deterministic", assignor.name())
                .isEqualTo(assignment);
          }
        });
  }

  @Test
  void stickyMovesOnlyWhatBalanceRequiresAfterMembershipChanges() {
    forEachSeed(
        SEEDS,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          List<String> names = new ArrayList<>(topics.keySet());
          List<String> subscribed = randomTopics(random, names);
          int nextId = 0;
          List<String> members = new ArrayList<>();
          for (int m = 1 + random.nextInt(8); m > 0; m--) {
            members.add("m" + nextId++);
          }
          Map<String, List<TopicPartition>> previous = Map.of();
          for (int generation = 1; generation <= 5; generation++) {
            if (generation > 1) {
              members.removeIf(m -> random.nextInt(4) == 0);
              for (int added = random.nextInt(3); added > 0 || members.isEmpty(); added--) {
                members.add("m" + nextId++);
              }
              if (random.nextInt(4) == 0) {
                subscribed = randomTopics(random, names);
              }
              if (random.nextInt(5) == 0) {
                String topic = names.get(random.nextInt(names.size()));
                topics.put(topic, Math.max(0, topics.get(topic) + random.nextInt(9) - 3));
              }
            }
            Map<String, Subscription> subscriptions = new TreeMap<>();
            for (String member : members) {
              List<TopicPartition> owned = previous.getOrDefault(member, List.of());
              subscriptions.put(
                  member,
                  new Subscription(subscribed, owned, owned.isEmpty() ? -1 : generation - 1));
            }
            var next = sticky.assign(topics, subscriptions);

            assertValid(topics, subscriptions, next);
            assertThat(
                    Collections.max(counts(next).values()) - Collections.min(counts(next).values()))
                .as("counts %s", counts(next))
                .isLessThanOrEqualTo(1);
            assertMinimalMovement(topics, subscribed, previous, next);
            previous = next;
          }
        });
  }

  @Test
  void stickyIsAsBalancedAsUnequalSubscriptionsAllow() {
    forEachSeed(
        SEEDS,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          Map<String, Subscription> first = randomGroup(random, topics);
          var firstAssignment = sticky.assign(topics, first);
          assertValid(topics, first, firstAssignment);
          assertNoImprovingChain(first, firstAssignment);

          // Next generation: some leave, some join, some change topics, all report what they own.
          Map<String, Subscription> second = new TreeMap<>();
          List<String> names = new ArrayList<>(topics.keySet());
          firstAssignment.forEach(
              (member, owned) -> {
                if (random.nextInt(5) > 0) {
                  List<String> topicsNow =
                      random.nextInt(3) == 0
                          ? randomTopics(random, names)
                          : first.get(member).topics();
                  second.put(member, new Subscription(topicsNow, owned, 1));
                }
              });
          for (int added = random.nextInt(4); added > 0 || second.isEmpty(); added--) {
            second.put("new" + added, new Subscription(randomTopics(random, names)));
          }
          var secondAssignment = sticky.assign(topics, second);
          assertValid(topics, second, secondAssignment);
          assertNoImprovingChain(second, secondAssignment);
        });
  }

  @Test
  void stickyLeavesABalancedAssignmentAsItIs() {
    forEachSeed(
        SEEDS,
        seed -> {
          Random random = new Random(seed);
          Map<String, Integer> topics = randomTopicsWithPartitions(random);
          Map<String, Subscription> fresh = new TreeMap<>();
          randomGroup(random, topics)
              .forEach((member, s) -> fresh.put(member, new Subscription(s.topics())));
          var assignment = sticky.assign(topics, fresh);

          Map<String, Subscription> again = new TreeMap<>();
          fresh.forEach(
              (member, s) ->
                  again.put(member, new Subscription(s.topics(), assignment.get(member), 3)));
          assertThat(sticky.assign(topics, again)).isEqualTo(assignment);
        });
  }

  /**
   * Equal subscriptions: survivors keep min(what they validly owned, what they now get), and the
   * number of moved partitions equals the lower bound: all previously assigned, still valid
   * partitions minus the most that any balanced assignment lets their owners keep.
   */
  private static void assertMinimalMovement(
      Map<String, Integer> topics,
      List<String> subscribed,
      Map<String, List<TopicPartition>> previous,
      Map<String, List<TopicPartition>> next) {
    Set<TopicPartition> valid = new HashSet<>();
    for (String topic : new HashSet<>(subscribed)) {
      for (int p = 0; p < topics.get(topic); p++) {
        valid.add(tp(topic, p));
      }
    }
    int members = next.size();
    int minQuota = valid.size() / members;
    int withExtra = valid.size() % members;
    List<Integer> ownedCounts = new ArrayList<>();
    int previouslyAssignedValid = 0;
    for (var entry : previous.entrySet()) {
      int ownedValid = (int) entry.getValue().stream().filter(valid::contains).count();
      previouslyAssignedValid += ownedValid;
      if (next.containsKey(entry.getKey())) {
        ownedCounts.add(ownedValid);
        List<TopicPartition> nowOwned = next.get(entry.getKey());
        long kept = nowOwned.stream().filter(entry.getValue()::contains).count();
        assertThat(kept)
            .as("%s owned %d valid, now has %d", entry.getKey(), ownedValid, nowOwned.size())
            .isEqualTo(Math.min(ownedValid, nowOwned.size()));
      }
    }
    ownedCounts.sort(Collections.reverseOrder());
    int maxKept = 0;
    for (int i = 0; i < ownedCounts.size(); i++) {
      maxKept += Math.min(ownedCounts.get(i), minQuota + (i < withExtra ? 1 : 0));
    }
    Map<TopicPartition, String> before = ownerOf(previous);
    Map<TopicPartition, String> after = ownerOf(next);
    long moved =
        before.entrySet().stream()
            .filter(e -> valid.contains(e.getKey()) && !e.getValue().equals(after.get(e.getKey())))
            .count();
    assertThat(moved).as("partitions moved").isEqualTo(previouslyAssignedValid - maxKept);
  }

  private static Map<String, Integer> randomTopicsWithPartitions(Random random) {
    Map<String, Integer> topics = new TreeMap<>();
    for (int t = 1 + random.nextInt(5); t > 0; t--) {
      topics.put("t" + t, random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(15));
    }
    return topics;
  }

  /**
   * Members with random subscriptions (some naming a topic without metadata, a few none) and random
   * claims: real partitions, vanished ones, unsubscribed ones, contested ones, in random
   * generations.
   */
  private static Map<String, Subscription> randomGroup(Random random, Map<String, Integer> topics) {
    List<String> names = new ArrayList<>(topics.keySet());
    Map<String, Subscription> group = new TreeMap<>();
    for (int m = 1 + random.nextInt(9); m > 0; m--) {
      List<String> subscribed =
          random.nextInt(12) == 0
              ? new ArrayList<>()
              : new ArrayList<>(randomTopics(random, names));
      if (random.nextInt(6) == 0) {
        subscribed.add("no-metadata");
      }
      List<TopicPartition> claims = new ArrayList<>();
      for (int c = random.nextInt(6); c > 0; c--) {
        String topic =
            random.nextInt(8) == 0 ? "no-metadata" : names.get(random.nextInt(names.size()));
        claims.add(tp(topic, random.nextInt(18)));
      }
      group.put("member-" + m, new Subscription(subscribed, claims, random.nextInt(4) - 1));
    }
    return group;
  }

  private static Map<String, Subscription> reordered(
      Map<String, Subscription> subscriptions, Random random) {
    List<String> members = new ArrayList<>(subscriptions.keySet());
    Collections.shuffle(members, random);
    Map<String, Subscription> reordered = new LinkedHashMap<>();
    for (String member : members) {
      Subscription s = subscriptions.get(member);
      List<String> topics = new ArrayList<>(s.topics());
      List<TopicPartition> owned = new ArrayList<>(s.ownedPartitions());
      Collections.shuffle(topics, random);
      Collections.shuffle(owned, random);
      reordered.put(member, new Subscription(topics, owned, s.generationId()));
    }
    return reordered;
  }
}
