package dev.tributary.group.assignor;

import static dev.tributary.group.assignor.AssignorTestSupport.assertNoImprovingChain;
import static dev.tributary.group.assignor.AssignorTestSupport.assertValid;
import static dev.tributary.group.assignor.AssignorTestSupport.counts;
import static dev.tributary.group.assignor.AssignorTestSupport.owning;
import static dev.tributary.group.assignor.AssignorTestSupport.subscribing;
import static dev.tributary.group.assignor.AssignorTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class StickyAssignorTest {
  private final PartitionAssignor sticky = new StickyAssignor();
  private static final Map<String, Integer> FOUR_TOPICS_OF_TWO =
      Map.of("t0", 2, "t1", 2, "t2", 2, "t3", 2);

  @Test
  void aFreshGroupWithEqualSubscriptionsIsDealtRoundRobin() {
    // Kafka's StickyAssignor javadoc, example 1.
    var assignment =
        sticky.assign(
            FOUR_TOPICS_OF_TWO,
            Map.of(
                "C0", subscribing("t0", "t1", "t2", "t3"),
                "C1", subscribing("t0", "t1", "t2", "t3"),
                "C2", subscribing("t0", "t1", "t2", "t3")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0), tp("t1", 1), tp("t3", 0))),
            Map.entry("C1", List.of(tp("t0", 1), tp("t2", 0), tp("t3", 1))),
            Map.entry("C2", List.of(tp("t1", 0), tp("t2", 1))));
  }

  @Test
  void stickyMovesOnlyTheRemovedMembersPartitions() {
    // Example 1 continued: C1 leaves; C0 and C2 keep everything and split C1's three partitions.
    List<TopicPartition> c0 = List.of(tp("t0", 0), tp("t1", 1), tp("t3", 0));
    List<TopicPartition> c2 = List.of(tp("t1", 0), tp("t2", 1));
    String[] all = {"t0", "t1", "t2", "t3"};

    var assignment =
        sticky.assign(
            FOUR_TOPICS_OF_TWO, Map.of("C0", owning(1, c0, all), "C2", owning(1, c2, all)));

    assertThat(assignment.get("C0")).containsAll(c0).hasSize(4);
    assertThat(assignment.get("C2")).containsAll(c2).hasSize(4);
  }

  @Test
  void aNewMemberTakesOnlyTheSurplusOfTheBusiestMembers() {
    List<TopicPartition> c0 = List.of(tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1));
    List<TopicPartition> c1 = List.of(tp("t2", 0), tp("t2", 1), tp("t3", 0), tp("t3", 1));
    String[] all = {"t0", "t1", "t2", "t3"};

    var assignment =
        sticky.assign(
            FOUR_TOPICS_OF_TWO,
            Map.of("C0", owning(3, c0, all), "C1", owning(3, c1, all), "C2", subscribing(all)));

    assertThat(counts(assignment)).containsValues(3, 3, 2);
    assertThat(c0).containsAll(assignment.get("C0"));
    assertThat(c1).containsAll(assignment.get("C1"));
  }

  @Test
  void unequalSubscriptionsAreBalancedAsFarAsTheyAllow() {
    // Kafka's StickyAssignor javadoc, example 2, where round robin gives C2 four partitions.
    Map<String, Integer> topics = Map.of("t0", 1, "t1", 2, "t2", 3);

    var assignment =
        sticky.assign(
            topics,
            Map.of(
                "C0", subscribing("t0"),
                "C1", subscribing("t0", "t1"),
                "C2", subscribing("t0", "t1", "t2")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C0", List.of(tp("t0", 0))),
            Map.entry("C1", List.of(tp("t1", 0), tp("t1", 1))),
            Map.entry("C2", List.of(tp("t2", 0), tp("t2", 1), tp("t2", 2))));
  }

  @Test
  void unequalSubscriptionsKeepTheSurvivorsPartitionsWhenAMemberLeaves() {
    // Example 2 continued: C0 leaves; round robin would reshuffle, sticky only moves t0-0.
    Map<String, Integer> topics = Map.of("t0", 1, "t1", 2, "t2", 3);

    var assignment =
        sticky.assign(
            topics,
            Map.of(
                "C1", owning(1, List.of(tp("t1", 0), tp("t1", 1)), "t0", "t1"),
                "C2", owning(1, List.of(tp("t2", 0), tp("t2", 1), tp("t2", 2)), "t0", "t1", "t2")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("C1", List.of(tp("t0", 0), tp("t1", 0), tp("t1", 1))),
            Map.entry("C2", List.of(tp("t2", 0), tp("t2", 1), tp("t2", 2))));
  }

  @Test
  void aChainOfReassignmentsBalancesWhatNoSingleMoveCan() {
    // a can only give t0 partitions to b, and b only t1 partitions to c: a (4) -> b -> c (2).
    Map<String, Integer> topics = Map.of("t0", 4, "t1", 5);
    var owned =
        Map.of(
            "a",
            owning(1, List.of(tp("t0", 0), tp("t0", 1), tp("t0", 2), tp("t0", 3)), "t0"),
            "b",
            owning(1, List.of(tp("t1", 0), tp("t1", 1), tp("t1", 2)), "t0", "t1"),
            "c",
            owning(1, List.of(tp("t1", 3), tp("t1", 4)), "t1"));

    var assignment = sticky.assign(topics, owned);

    assertThat(counts(assignment))
        .containsOnly(Map.entry("a", 3), Map.entry("b", 3), Map.entry("c", 3));
    assertThat(assignment.get("c")).contains(tp("t1", 3), tp("t1", 4));
  }

  @Test
  void theHigherGenerationWinsAPartitionClaimedTwice() {
    // KIP-341: "b" missed a rebalance and still reports t-0 from generation 1.
    var assignment =
        sticky.assign(
            Map.of("t", 2),
            Map.of(
                "a", owning(2, List.of(tp("t", 0)), "t"),
                "b", owning(1, List.of(tp("t", 0), tp("t", 1)), "t")));

    assertThat(assignment)
        .containsOnly(Map.entry("a", List.of(tp("t", 0))), Map.entry("b", List.of(tp("t", 1))));
  }

  @Test
  void aPartitionClaimedTwiceInOneGenerationIsStillAssignedOnce() {
    var subscriptions =
        Map.of(
            "a", owning(4, List.of(tp("t", 0), tp("t", 1)), "t"),
            "b", owning(4, List.of(tp("t", 1), tp("t", 2)), "t"),
            "c", subscribing("t"));

    var assignment = sticky.assign(Map.of("t", 3), subscriptions);

    assertValid(Map.of("t", 3), subscriptions, assignment);
    assertThat(assignment.get("a")).containsExactly(tp("t", 0));
    assertThat(assignment.get("b")).containsExactly(tp("t", 2));
    assertThat(assignment.get("c")).containsExactly(tp("t", 1));
  }

  @Test
  void claimsToUnsubscribedTopicsAndVanishedPartitionsAreDropped() {
    var subscriptions =
        Map.of(
            "a", owning(3, List.of(tp("old", 0), tp("t", 0), tp("t", 5)), "t"),
            "b", owning(3, List.of(tp("t", 1), tp("gone", 0)), "t", "gone"));

    var assignment = sticky.assign(Map.of("t", 2, "old", 1), subscriptions);

    assertThat(assignment)
        .containsOnly(Map.entry("a", List.of(tp("t", 0))), Map.entry("b", List.of(tp("t", 1))));
  }

  @Test
  void membersWithoutAnExistingTopicGetNothingAndDoNotBreakTheEqualSubscriptionPath() {
    var assignment =
        sticky.assign(
            Map.of("t", 3),
            Map.of("a", subscribing("t"), "b", subscribing("missing"), "c", subscribing("t")));

    assertThat(assignment)
        .containsOnly(
            Map.entry("a", List.of(tp("t", 0), tp("t", 2))),
            Map.entry("b", List.of()),
            Map.entry("c", List.of(tp("t", 1))));
  }

  @Test
  void stickyAssignsAHundredMembersAThousandPartitionsWellUnderASecond() {
    Map<String, Integer> topics = new TreeMap<>();
    List<String> names = new ArrayList<>();
    for (int t = 0; t < 10; t++) {
      topics.put("topic-" + t, 100);
      names.add("topic-" + t);
    }
    Random random = new Random(7);
    Map<String, Subscription> equal = new TreeMap<>();
    Map<String, Subscription> unequal = new TreeMap<>();
    for (int m = 0; m < 100; m++) {
      equal.put("member-" + m, new Subscription(names));
      unequal.put("member-" + m, new Subscription(AssignorTestSupport.randomTopics(random, names)));
    }

    var fresh = timed(() -> sticky.assign(topics, equal));
    var afterJoin =
        timed(() -> sticky.assign(topics, rejoin(fresh, equal, "member-0", "newcomer")));
    var unequalFresh = timed(() -> sticky.assign(topics, unequal));
    var unequalAfterJoin =
        timed(() -> sticky.assign(topics, rejoin(unequalFresh, unequal, "member-0", "newcomer")));
    // Worst case for the general path: one member owns everything, 99 others are new.
    Map<String, Subscription> oneOwnsAll = new TreeMap<>(unequal);
    List<TopicPartition> everything = new ArrayList<>();
    topics.forEach(
        (topic, n) -> {
          for (int p = 0; p < n; p++) {
            everything.add(tp(topic, p));
          }
        });
    oneOwnsAll.put("member-0", new Subscription(names, everything, 5));
    var skewed = timed(() -> sticky.assign(topics, oneOwnsAll));

    assertThat(counts(afterJoin).values()).allMatch(c -> c == 9 || c == 10);
    assertNoImprovingChain(unequal, unequalFresh);
    assertValid(topics, oneOwnsAll, skewed);
    assertNoImprovingChain(oneOwnsAll, skewed);
    assertThat(unequalAfterJoin).hasSize(100);
  }

  /**
   * Runs one large assignment. How long it takes is a benchmark figure (docs/benchmarks.md: 2-40 ms
   * for 100 members x 1,000 partitions), not an assertion here.
   */
  private static Map<String, List<TopicPartition>> timed(
      Supplier<Map<String, List<TopicPartition>>> assignment) {
    return assignment.get();
  }

  /** The next generation after {@code previous}: everyone reports what it owns, one is replaced. */
  private static Map<String, Subscription> rejoin(
      Map<String, List<TopicPartition>> previous,
      Map<String, Subscription> subscriptions,
      String leaving,
      String joining) {
    Map<String, Subscription> next = new TreeMap<>();
    subscriptions.forEach(
        (member, s) -> {
          if (!member.equals(leaving)) {
            next.put(member, new Subscription(s.topics(), previous.get(member), 1));
          }
        });
    next.put(joining, new Subscription(subscriptions.get(leaving).topics()));
    return next;
  }
}
