package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.JoinResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A group brought to Stable by hand through the coordinator: {@code n} members join together, the
 * leader (the first) assigns partition i of "orders" to member i, everyone syncs at the same
 * instant.
 */
record StableGroup(List<String> memberIds, int generation, long syncedAtMs) {
  static StableGroup of(CoordinatorHarness h, int n) {
    return of(h, n, CoordinatorHarness.SESSION_MS, CoordinatorHarness.REBALANCE_MS);
  }

  static StableGroup of(CoordinatorHarness h, int n, int sessionMs, int rebalanceMs) {
    List<CompletableFuture<JoinResult>> joins = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      joins.add(h.join("", "client-" + i, sessionMs, rebalanceMs, "range"));
    }
    // The initial delay, extended once since the others joined within it.
    h.advance(2L * h.config.initialRebalanceDelayMs());
    List<String> ids = new ArrayList<>();
    int generation = -1;
    for (CompletableFuture<JoinResult> join : joins) {
      JoinResult r = h.now(join);
      assertEquals(GroupError.NONE, r.error());
      ids.add(r.memberId());
      generation = r.generationId();
    }
    Map<String, byte[]> assignments = new HashMap<>();
    for (int i = 0; i < n; i++) {
      assignments.put(ids.get(i), CoordinatorHarness.assignment(new TopicPartition("orders", i)));
    }
    assertEquals(GroupError.NONE, h.now(h.sync(ids.get(0), generation, assignments)).error());
    for (int i = 1; i < n; i++) {
      assertEquals(GroupError.NONE, h.now(h.sync(ids.get(i), generation)).error());
    }
    assertEquals(GroupState.STABLE, h.state());
    return new StableGroup(List.copyOf(ids), generation, h.clock.milliseconds());
  }

  String member(int i) {
    return memberIds.get(i);
  }
}
