package dev.tributary.group.assignor;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Which member the sticky assignor treats as a partition's current owner, from the members' claims
 * ({@link Subscription#ownedPartitions()}).
 *
 * <p>Rules:
 *
 * <ol>
 *   <li>A claim counts only if the member still subscribes to the partition's topic and the
 *       partition still exists; other claims are dropped.
 *   <li>Of several claims to one partition, the one with the highest generation wins (KIP-341: a
 *       member that missed a rebalance still reports what it owned in an older generation).
 *   <li>If two members claim a partition in the same, highest generation, neither claim can be
 *       trusted, so the partition is treated as unowned (as Kafka does).
 * </ol>
 *
 * Unlike Kafka's constrained path, a member of an older generation keeps the claims nobody newer
 * contradicts: they are still the best guess of where the partition's state is warm.
 */
final class PreviousOwnership {
  private PreviousOwnership() {}

  /**
   * memberId -> the partitions it keeps a valid claim to, sorted; only members with at least one
   * such partition appear.
   */
  static SortedMap<String, List<TopicPartition>> resolve(
      Map<String, Integer> partitionsPerTopic,
      SortedMap<String, SortedSet<String>> topicsByMember,
      Map<String, Subscription> subscriptions) {
    Map<TopicPartition, String> winner = new HashMap<>();
    Map<TopicPartition, Integer> winningGeneration = new HashMap<>();
    Set<TopicPartition> contested = new HashSet<>();
    topicsByMember.forEach(
        (member, topics) -> {
          Subscription subscription = subscriptions.get(member);
          int generation = subscription.generationId();
          for (TopicPartition tp : new LinkedHashSet<>(subscription.ownedPartitions())) {
            if (!topics.contains(tp.topic())
                || tp.partition() >= partitionsPerTopic.get(tp.topic())) {
              continue;
            }
            Integer best = winningGeneration.get(tp);
            if (best == null || generation > best) {
              winner.put(tp, member);
              winningGeneration.put(tp, generation);
              contested.remove(tp);
            } else if (generation == best) {
              contested.add(tp);
            }
          }
        });
    SortedMap<String, List<TopicPartition>> owned = new TreeMap<>();
    winner.forEach(
        (tp, member) -> {
          if (!contested.contains(tp)) {
            owned.computeIfAbsent(member, m -> new ArrayList<>()).add(tp);
          }
        });
    owned.values().forEach(partitions -> partitions.sort(AssignmentInputs.PARTITION_ORDER));
    return owned;
  }
}
