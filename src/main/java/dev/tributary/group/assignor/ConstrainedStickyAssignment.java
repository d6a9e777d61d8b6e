package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The sticky assignor's fast path when every member subscribes to the same topics (Kafka's
 * "constrained" assignment, KIP-429 era). With P partitions and M members, {@code P % M} members
 * get {@code ceil(P/M)} partitions and the rest {@code floor(P/M)}: perfectly balanced.
 *
 * <p>Movement is minimal: a member with quota q that owned o valid partitions keeps min(o, q) of
 * them, and the larger quotas go to the members that own the most, so the number of kept ownerships
 * is the largest any balanced assignment allows. Runs in O(P log P).
 */
final class ConstrainedStickyAssignment {
  private ConstrainedStickyAssignment() {}

  /**
   * @param partitions every partition of the common subscription, sorted
   * @param members the members, sorted by id; not empty
   * @param owned memberId -> its valid previously owned partitions, sorted, each in {@code
   *     partitions} and claimed by one member only
   */
  static SortedMap<String, List<TopicPartition>> assign(
      List<TopicPartition> partitions,
      List<String> members,
      Map<String, List<TopicPartition>> owned) {
    int minQuota = partitions.size() / members.size();
    int membersWithExtra = partitions.size() % members.size();

    // The extra slots go to the members that own the most: each of those that owns more than
    // minQuota keeps one more partition than it could with minQuota.
    List<String> byOwnedDescending = new ArrayList<>(members);
    byOwnedDescending.sort(
        Comparator.comparingInt((String m) -> -owned.getOrDefault(m, List.of()).size())
            .thenComparing(Comparator.naturalOrder()));
    Map<String, Integer> quota = new HashMap<>();
    for (int i = 0; i < byOwnedDescending.size(); i++) {
      quota.put(byOwnedDescending.get(i), minQuota + (i < membersWithExtra ? 1 : 0));
    }

    SortedMap<String, List<TopicPartition>> assignment = AssignmentInputs.emptyAssignment(members);
    Set<TopicPartition> kept = new HashSet<>();
    for (String member : members) {
      List<TopicPartition> previous = owned.getOrDefault(member, List.of());
      List<TopicPartition> keep = previous.subList(0, Math.min(previous.size(), quota.get(member)));
      assignment.get(member).addAll(keep);
      kept.addAll(keep);
    }

    // Deal the rest one at a time over the members still short of their quota, in id order, so
    // that a member taking several gets them spread over topics rather than one block.
    Deque<String> unfilled = new ArrayDeque<>();
    for (String member : members) {
      if (assignment.get(member).size() < quota.get(member)) {
        unfilled.add(member);
      }
    }
    for (TopicPartition tp : partitions) {
      if (kept.contains(tp)) {
        continue;
      }
      String member = unfilled.poll();
      if (member == null) {
        throw new IllegalStateException("quotas sum below the partition count: bug");
      }
      List<TopicPartition> own = assignment.get(member);
      own.add(tp);
      if (own.size() < quota.get(member)) {
        unfilled.add(member);
      }
    }
    if (!unfilled.isEmpty()) {
      throw new IllegalStateException("quotas sum above the partition count: bug");
    }
    return assignment;
  }
}
