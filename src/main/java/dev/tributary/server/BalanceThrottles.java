package dev.tributary.server;

import dev.tributary.metadata.BalancePlan;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.replication.ReplicationThrottles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The replication throttles of a throttled balance, as {@code kafka-reassign-partitions --throttle}
 * sets them (KIP-73, docs/adr/0029-replication-throttles.md): both rates on every broker (the
 * cluster-wide default), and for each topic with moves, its moving partitions' current replicas on
 * the leader side and their new replicas on the follower side. Set before the first move starts;
 * removed when the balance ends, however it ends. A topic's own throttled-replica lists are
 * replaced for the run.
 */
final class BalanceThrottles {
  private BalanceThrottles() {}

  /** Each topic with moves → its two throttled-replica lists. */
  static Map<String, List<ConfigChange>> topicLists(BalancePlan plan) {
    Map<String, List<String>> leader = new TreeMap<>();
    Map<String, List<String>> follower = new TreeMap<>();
    for (BalancePlan.Move move : plan.moves()) {
      String topic = move.partition().topic();
      int p = move.partition().partition();
      for (int b : move.currentReplicas()) {
        leader.computeIfAbsent(topic, t -> new ArrayList<>()).add(p + ":" + b);
      }
      for (int b : move.targetReplicas()) {
        if (!move.currentReplicas().contains(b)) {
          follower.computeIfAbsent(topic, t -> new ArrayList<>()).add(p + ":" + b);
        }
      }
    }
    Map<String, List<ConfigChange>> changes = new TreeMap<>();
    leader.forEach(
        (topic, entries) -> {
          List<ConfigChange> topicChanges = new ArrayList<>();
          topicChanges.add(
              ConfigChange.set(
                  ReplicationThrottles.LEADER_THROTTLED_REPLICAS, String.join(",", entries)));
          List<String> adding = follower.getOrDefault(topic, List.of());
          if (!adding.isEmpty()) {
            topicChanges.add(
                ConfigChange.set(
                    ReplicationThrottles.FOLLOWER_THROTTLED_REPLICAS, String.join(",", adding)));
          }
          changes.put(topic, topicChanges);
        });
    return changes;
  }

  static CompletableFuture<Void> apply(
      AdminService admin, RequestContext context, BalancePlan plan, long bytesPerSecond) {
    String rate = Long.toString(bytesPerSecond);
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    calls.add(
        admin.alterBrokerConfigs(
            context,
            "",
            List.of(
                ConfigChange.set(BrokerConfigControl.LEADER_THROTTLED_RATE, rate),
                ConfigChange.set(BrokerConfigControl.FOLLOWER_THROTTLED_RATE, rate))));
    topicLists(plan)
        .forEach((topic, changes) -> calls.add(admin.alterConfigs(context, topic, changes, false)));
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }

  static CompletableFuture<Void> remove(
      AdminService admin, RequestContext context, Set<String> topics) {
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    calls.add(
        admin.alterBrokerConfigs(
            context,
            "",
            List.of(
                ConfigChange.delete(BrokerConfigControl.LEADER_THROTTLED_RATE),
                ConfigChange.delete(BrokerConfigControl.FOLLOWER_THROTTLED_RATE))));
    for (String topic : topics) {
      calls.add(
          admin.alterConfigs(
              context,
              topic,
              List.of(
                  ConfigChange.delete(ReplicationThrottles.LEADER_THROTTLED_REPLICAS),
                  ConfigChange.delete(ReplicationThrottles.FOLLOWER_THROTTLED_REPLICAS)),
              false));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }
}
