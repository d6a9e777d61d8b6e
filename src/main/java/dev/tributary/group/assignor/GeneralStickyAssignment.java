package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.stream.IntStream;

/**
 * The sticky assignor's general path, for members whose subscriptions differ (Kafka's
 * "unconstrained" assignment).
 *
 * <ol>
 *   <li>Every member keeps its valid previously owned partitions.
 *   <li>The unowned partitions, those with the fewest eligible members first, each go to the
 *       eligible member with the fewest partitions (ties: lowest member id).
 *   <li>Balancing: while some member S can hand a partition along a chain S -> A -> ... -> T of
 *       reassignments (each member passing on one partition of a topic the next one subscribes to)
 *       to a member T with at least two partitions fewer than S, do the shortest such chain.
 * </ol>
 *
 * <p>Balance: step 3 stops exactly when no such chain exists, which is the optimality condition for
 * minimising the sum of squared partition counts (a convex cost; any improvement of it contains
 * such a chain). So the result is as balanced as the subscriptions allow, not merely locally
 * balanced as Kafka's single-move check is. With equal subscriptions it gives counts within one.
 *
 * <p>Stickiness is best-effort here (Kafka's general path is a heuristic too): chains are shortest,
 * and each step passes on, in order of preference, a partition the receiver owned before, one the
 * giver did not own before (free to move), or else the lowest-numbered one.
 *
 * <p>Cost: each chain lowers the sum of squares by at least 2 and is found by a breadth-first
 * search over members and topics, O(members x topics).
 */
final class GeneralStickyAssignment {
  private final List<String> members;
  private final String[] topicNames;
  private final int[][] topicsOfMember;
  private final int[][] subscribersOfTopic;

  /** Global index of partition 0 of each topic; the last entry is the partition count. */
  private final int[] firstPartition;

  private final int[] topicOfPartition;

  /** Member index that validly owned each partition before, or -1. */
  private final int[] previousOwner;

  /** Member index each partition is assigned to, or -1 while unassigned. */
  private final int[] owner;

  /** Invariant: count[m] == number of p with owner[p] == m. */
  private final int[] count;

  /** Invariant: ownedOfTopic[m][t] == number of partitions of topic t with owner m. */
  private final int[][] ownedOfTopic;

  // Breadth-first search scratch, reset by each search.
  private final int[] reachedViaTopic;
  private final int[] reachedFromMember;
  private final boolean[] memberSeen;
  private final boolean[] topicSeen;

  private GeneralStickyAssignment(
      Map<String, Integer> partitionsPerTopic,
      SortedMap<String, SortedSet<String>> topicsByMember,
      Map<String, List<TopicPartition>> owned) {
    members = new ArrayList<>(topicsByMember.keySet());
    Map<String, Integer> memberIndex = new HashMap<>();
    for (int m = 0; m < members.size(); m++) {
      memberIndex.put(members.get(m), m);
    }
    SortedMap<String, List<String>> membersByTopic =
        AssignmentInputs.membersByTopic(topicsByMember);
    topicNames = membersByTopic.keySet().toArray(new String[0]);
    Map<String, Integer> topicIndex = new HashMap<>();
    for (int t = 0; t < topicNames.length; t++) {
      topicIndex.put(topicNames[t], t);
    }
    subscribersOfTopic = new int[topicNames.length][];
    firstPartition = new int[topicNames.length + 1];
    for (int t = 0; t < topicNames.length; t++) {
      subscribersOfTopic[t] =
          membersByTopic.get(topicNames[t]).stream().mapToInt(memberIndex::get).toArray();
      firstPartition[t + 1] = firstPartition[t] + partitionsPerTopic.get(topicNames[t]);
    }
    topicsOfMember = new int[members.size()][];
    for (int m = 0; m < members.size(); m++) {
      topicsOfMember[m] =
          topicsByMember.get(members.get(m)).stream().mapToInt(topicIndex::get).toArray();
    }
    int partitionCount = firstPartition[topicNames.length];
    topicOfPartition = new int[partitionCount];
    for (int t = 0; t < topicNames.length; t++) {
      Arrays.fill(topicOfPartition, firstPartition[t], firstPartition[t + 1], t);
    }
    previousOwner = new int[partitionCount];
    Arrays.fill(previousOwner, -1);
    owned.forEach(
        (member, partitions) -> {
          for (TopicPartition tp : partitions) {
            previousOwner[firstPartition[topicIndex.get(tp.topic())] + tp.partition()] =
                memberIndex.get(member);
          }
        });
    owner = new int[partitionCount];
    Arrays.fill(owner, -1);
    count = new int[members.size()];
    ownedOfTopic = new int[members.size()][topicNames.length];
    reachedViaTopic = new int[members.size()];
    reachedFromMember = new int[topicNames.length];
    memberSeen = new boolean[members.size()];
    topicSeen = new boolean[topicNames.length];
  }

  /**
   * @param topicsByMember memberId -> its existing subscribed topics, none empty
   * @param owned memberId -> its valid previously owned partitions, each claimed by one member
   */
  static SortedMap<String, List<TopicPartition>> assign(
      Map<String, Integer> partitionsPerTopic,
      SortedMap<String, SortedSet<String>> topicsByMember,
      Map<String, List<TopicPartition>> owned) {
    GeneralStickyAssignment assignment =
        new GeneralStickyAssignment(partitionsPerTopic, topicsByMember, owned);
    assignment.keepPreviousOwners();
    assignment.assignUnowned();
    assignment.balance();
    return assignment.result();
  }

  private void keepPreviousOwners() {
    for (int p = 0; p < owner.length; p++) {
      if (previousOwner[p] >= 0) {
        give(p, previousOwner[p]);
      }
    }
  }

  private void assignUnowned() {
    int[] unowned =
        IntStream.range(0, owner.length)
            .filter(p -> owner[p] < 0)
            .boxed()
            .sorted(
                Comparator.comparingInt(
                        (Integer p) -> subscribersOfTopic[topicOfPartition[p]].length)
                    .thenComparingInt(p -> p))
            .mapToInt(Integer::intValue)
            .toArray();
    for (int p : unowned) {
      int best = -1;
      for (int m : subscribersOfTopic[topicOfPartition[p]]) {
        if (best < 0 || count[m] < count[best]) {
          best = m;
        }
      }
      give(p, best);
    }
  }

  private void balance() {
    boolean changed;
    do {
      changed = false;
      Integer[] sources = IntStream.range(0, members.size()).boxed().toArray(Integer[]::new);
      Arrays.sort(sources, Comparator.comparingInt((Integer m) -> -count[m]).thenComparing(m -> m));
      for (int source : sources) {
        while (maybeShiftFrom(source)) {
          changed = true;
        }
      }
    } while (changed);
  }

  /**
   * Finds the shortest chain from {@code source} to a member with at least two partitions fewer
   * (ties: fewest partitions, then lowest id) and shifts one partition along each link of it.
   *
   * @return whether a chain was found and shifted
   */
  private boolean maybeShiftFrom(int source) {
    int limit = count[source] - 2;
    if (limit < 0) {
      return false;
    }
    Arrays.fill(memberSeen, false);
    Arrays.fill(topicSeen, false);
    memberSeen[source] = true;
    List<Integer> frontier = List.of(source);
    while (!frontier.isEmpty()) {
      List<Integer> next = new ArrayList<>();
      int target = -1;
      for (int giver : frontier) {
        for (int t : topicsOfMember[giver]) {
          if (topicSeen[t] || ownedOfTopic[giver][t] == 0) {
            continue;
          }
          topicSeen[t] = true;
          reachedFromMember[t] = giver;
          for (int receiver : subscribersOfTopic[t]) {
            if (memberSeen[receiver]) {
              continue;
            }
            memberSeen[receiver] = true;
            reachedViaTopic[receiver] = t;
            next.add(receiver);
            if (count[receiver] <= limit
                && (target < 0
                    || count[receiver] < count[target]
                    || (count[receiver] == count[target] && receiver < target))) {
              target = receiver;
            }
          }
        }
      }
      if (target >= 0) {
        shiftAlongChain(source, target);
        return true;
      }
      frontier = next;
    }
    return false;
  }

  private void shiftAlongChain(int source, int target) {
    // Walking back from the target, each giver still holds the partition of the link's topic that
    // the search saw: it only ever receives partitions of other topics (each topic is one link).
    int receiver = target;
    while (receiver != source) {
      int topic = reachedViaTopic[receiver];
      int giver = reachedFromMember[topic];
      move(choosePartitionToPass(giver, receiver, topic), giver, receiver);
      receiver = giver;
    }
  }

  private int choosePartitionToPass(int giver, int receiver, int topic) {
    int best = -1;
    int bestRank = Integer.MAX_VALUE;
    for (int p = firstPartition[topic]; p < firstPartition[topic + 1]; p++) {
      if (owner[p] != giver) {
        continue;
      }
      int rank = previousOwner[p] == receiver ? 0 : previousOwner[p] != giver ? 1 : 2;
      if (rank < bestRank) {
        best = p;
        bestRank = rank;
      }
    }
    if (best < 0) {
      throw new IllegalStateException("chain link without a partition to pass: bug");
    }
    return best;
  }

  private void give(int partition, int member) {
    owner[partition] = member;
    count[member]++;
    ownedOfTopic[member][topicOfPartition[partition]]++;
  }

  private void move(int partition, int from, int to) {
    count[from]--;
    ownedOfTopic[from][topicOfPartition[partition]]--;
    give(partition, to);
  }

  private SortedMap<String, List<TopicPartition>> result() {
    SortedMap<String, List<TopicPartition>> assignment = AssignmentInputs.emptyAssignment(members);
    for (int p = 0; p < owner.length; p++) {
      int t = topicOfPartition[p];
      assignment
          .get(members.get(owner[p]))
          .add(new TopicPartition(topicNames[t], p - firstPartition[t]));
    }
    return assignment;
  }
}
