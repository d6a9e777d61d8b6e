package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorHarness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Members of one group over one real coordinator, stepped together on the manual clock. After every
 * step it checks the safety invariant: no partition is owned by two members at the same instant.
 */
final class MemberCluster {
  static final long STEP_MS = 100;

  final CoordinatorHarness h = CoordinatorHarness.queuedCompletions(3_000).lead();
  final List<SimulatedMember> members = new ArrayList<>();
  private int next;

  SimulatedMember add() {
    SimulatedMember m = new SimulatedMember("c" + next++, h, SimulatedMember.settings());
    members.add(m);
    return m;
  }

  /** Every member steps, completions run, the clock moves one step; then the invariant. */
  void step() {
    for (SimulatedMember m : List.copyOf(members)) {
      m.step();
      h.drain();
    }
    h.advance(STEP_MS);
    checkNoPartitionOwnedTwice();
  }

  void run(long ms) {
    for (long t = 0; t < ms; t += STEP_MS) {
      step();
    }
  }

  /** Steps until every member in {@code live} is stable and they own all partitions; or fails. */
  void runUntilSettled(List<SimulatedMember> live, long maxMs) {
    for (long t = 0; t < maxMs; t += STEP_MS) {
      step();
      if (settled(live)) {
        return;
      }
    }
    throw new AssertionError("not settled after " + maxMs + " ms:\n" + status());
  }

  boolean settled(List<SimulatedMember> live) {
    Set<TopicPartition> union =
        new TreeSet<>(java.util.Comparator.comparing(TopicPartition::toString));
    for (SimulatedMember m : live) {
      if (!m.membership.isStable()) {
        return false;
      }
      union.addAll(m.owned());
    }
    return union.size() == SimulatedMember.PARTITIONS;
  }

  void checkNoPartitionOwnedTwice() {
    Map<TopicPartition, SimulatedMember> owners = new HashMap<>();
    for (SimulatedMember m : members) {
      for (TopicPartition tp : m.owned()) {
        SimulatedMember other = owners.putIfAbsent(tp, m);
        if (other != null) {
          throw new AssertionError(
              tp + " is owned by " + other.name + " and " + m.name + " at once:\n" + status());
        }
      }
    }
  }

  String status() {
    StringBuilder out = new StringBuilder("t=" + h.clock.milliseconds() + "\n");
    members.forEach(m -> out.append("  ").append(m).append('\n'));
    out.append("  coordinator: ").append(h.coordinator.loadedGroups()).append('\n');
    return out.toString();
  }
}
