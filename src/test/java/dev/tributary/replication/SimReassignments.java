package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.errors.Errors;
import dev.tributary.log.PartitionLog;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.metadata.ReassignmentControl;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reassignment part of {@link ReplicationSimulationTest}'s cluster (KIP-455, see {@link
 * ReassignmentControl}): random starts, retargets and cancellations of the partition's
 * reassignment, interleaved with the other events, and the invariants a reassignment must keep —
 * checked after every event ({@link #checkInvariants}) and on every committed record that takes a
 * replica away ({@link #onCommitted}).
 */
final class SimReassignments {
  private final ReplicationSim.Sim sim;

  /** The topic's replication factor, and the size of every random target. */
  private final int replicationFactor;

  /** Set while a cancellation commits, so that its record is not counted as a completion. */
  private boolean cancelling;

  /** While a new target commits: what a reassignment that completes on the spot must leave. */
  private List<Integer> requested;

  final Counts counts = new Counts();

  SimReassignments(ReplicationSim.Sim sim, int replicationFactor) {
    this.sim = sim;
    this.replicationFactor = replicationFactor;
  }

  /** One random reassignment event; returns its description. */
  String step() {
    PartitionImage p = sim.partition();
    if (p.isReassigning() && sim.random.nextBoolean()) {
      return cancel();
    }
    return reassign(randomTarget());
  }

  /** Distinct registered brokers, live or dead, as many as the replication factor. */
  private List<Integer> randomTarget() {
    List<Integer> registered = new ArrayList<>(sim.image.brokers().keySet());
    Collections.shuffle(registered, sim.random);
    return List.copyOf(registered.subList(0, replicationFactor));
  }

  private String reassign(List<Integer> target) {
    PartitionImage before = sim.partition();
    ReassignmentControl.Result result =
        ReassignmentControl.alter(sim.image, Map.of(sim.tp, Optional.of(target)));
    PartitionOutcome outcome = result.outcomes().get(sim.tp);
    String what = (before.isReassigning() ? "retarget " : "reassign ") + before + " to " + target;
    if (outcome.error() != Errors.NONE) {
      counts.refused++;
      return what + " refused: " + outcome.error() + " " + outcome.message();
    }
    requested = target;
    try {
      sim.commit(result.records());
    } finally {
      requested = null;
    }
    PartitionImage after = sim.partition();
    if (!after.isReassigning()) {
      assertThat(after.replicas()).as("%s, done at once", what).isEqualTo(target);
    }
    if (before.isReassigning()) {
      counts.retargeted++; // a completion on the spot was counted by onCommitted
    } else if (!after.equals(before)) {
      counts.started++;
      if (!after.isReassigning()) {
        counts.completed++; // nothing to copy: a shrink or a reorder of in-sync replicas
      }
    }
    return what + ": " + after;
  }

  private String cancel() {
    PartitionImage before = sim.partition();
    ReassignmentControl.Result result =
        ReassignmentControl.alter(sim.image, Map.of(sim.tp, Optional.empty()));
    PartitionOutcome outcome = result.outcomes().get(sim.tp);
    if (outcome.error() != Errors.NONE) {
      counts.refused++;
      return "cancel " + before + " refused: " + outcome.error() + " " + outcome.message();
    }
    cancelling = true;
    try {
      sim.commit(result.records());
    } finally {
      cancelling = false;
    }
    return "cancel " + before + ": " + sim.partition();
  }

  /**
   * Called for every committed record that changes the partition. Counts the reassignments that
   * end, and when replicas go away checks that they were not the only copy of committed data: every
   * live replica left in the ISR holds every acknowledged record and everything below the leader's
   * high watermark.
   */
  void onCommitted(PartitionImage before, PartitionImage after) {
    if (before.isReassigning() && !after.isReassigning()) {
      if (cancelling) {
        counts.cancelled++;
      } else {
        counts.completed++;
        assertThat(after.replicas())
            .as("a completed reassignment leaves the target")
            .isEqualTo(requested != null ? requested : before.targetReplicas());
      }
    }
    List<Integer> gone =
        before.replicas().stream().filter(id -> !after.replicas().contains(id)).toList();
    if (gone.isEmpty()) {
      return;
    }
    counts.removals++;
    sim.collectAcks();
    long committed = leaderHighWatermark(before);
    for (int id : after.isr()) {
      ReplicationSim.Sim.SimBroker broker = sim.brokers.get(id);
      if (broker == null || !broker.alive || broker.logs.isOffline()) {
        continue; // its log cannot be read now; the final heal checks it
      }
      // One that never created the log holds nothing.
      PartitionLog log = broker.replicas.partition(sim.tp).map(Partition::log).orElse(null);
      String why = "b%d in the ISR when %s left (%s -> %s)".formatted(id, gone, before, after);
      assertThat(log == null ? 0 : log.logEndOffset())
          .as("log end offset of %s, below the leader's high watermark", why)
          .isGreaterThanOrEqualTo(committed);
      for (Map.Entry<Long, String> entry : sim.acked.entrySet()) {
        assertThat(ReplicationSim.valueAt(log, entry.getKey()))
            .as("acknowledged %s at offset %d on %s", entry.getValue(), entry.getKey(), why)
            .isEqualTo(entry.getValue());
      }
    }
  }

  /** The high watermark of the leader {@code p} names, if it is alive and leads that epoch. */
  private long leaderHighWatermark(PartitionImage p) {
    ReplicationSim.Sim.SimBroker broker = sim.brokers.get(p.leader());
    Partition leader =
        broker == null || !broker.alive ? null : broker.replicas.partition(sim.tp).orElse(null);
    if (leader == null || !leader.isLeader() || leader.leaderEpoch() != p.leaderEpoch()) {
      return -1;
    }
    return leader.highWatermark();
  }

  /** The image's reassignment state, and brokers that applied their removal, after every event. */
  void checkInvariants() {
    PartitionImage p = sim.partition();
    assertThat(new HashSet<>(p.replicas())).as("replicas distinct").hasSize(p.replicas().size());
    assertThat(p.replicas()).as("adding ⊆ replicas").containsAll(p.addingReplicas());
    assertThat(p.replicas()).as("removing ⊆ replicas").containsAll(p.removingReplicas());
    assertThat(p.addingReplicas().stream().filter(p.removingReplicas()::contains))
        .as("adding and removing disjoint: %s", p)
        .isEmpty();
    assertThat(p.targetReplicas()).as("target of %s", p).isNotEmpty();
    if (p.addingReplicas().contains(p.leader())) {
      assertThat(p.isr()).as("an adding replica leads only in sync: %s", p).contains(p.leader());
    }
    for (ReplicationSim.Sim.SimBroker broker : sim.brokers.values()) {
      if (!broker.alive || broker.applied == null) {
        continue;
      }
      PartitionImage seen =
          broker.applied.topic(sim.tp.topic()).map(t -> t.partitions().get(0)).orElse(null);
      if (seen != null && !seen.replicas().contains(broker.id)) {
        assertThat(broker.logs.getLog(sim.tp))
            .as("log on b%d, removed from %s", broker.id, seen)
            .isEmpty();
        assertThat(broker.replicas.partition(sim.tp))
            .as("partition on b%d, removed from %s", broker.id, seen)
            .isEmpty();
      }
    }
  }

  /** Whether no broker but {@code p}'s replicas has a log or a partition for it. */
  boolean onlyReplicasHoldLogs(PartitionImage p) {
    return sim.brokers.values().stream()
        .filter(b -> !p.replicas().contains(b.id))
        .allMatch(b -> b.replicas.partition(sim.tp).isEmpty() && b.logs.getLog(sim.tp).isEmpty());
  }

  /** What the runs did, so that the test can tell it did not pass vacuously. */
  static final class Counts {
    long started;
    long retargeted;
    long completed;
    long cancelled;
    long refused;

    /** Committed records that took a replica away: each was checked by {@link #onCommitted}. */
    long removals;

    void add(Counts other) {
      started += other.started;
      retargeted += other.retargeted;
      completed += other.completed;
      cancelled += other.cancelled;
      refused += other.refused;
      removals += other.removals;
    }

    void assertExercised(int seeds) {
      assertThat(started).as("reassignments started").isGreaterThan(2L * seeds);
      assertThat(completed).as("reassignments completed").isGreaterThan(seeds);
      assertThat(cancelled).as("reassignments cancelled").isGreaterThan(seeds / 2);
      assertThat(removals).as("replica removals checked").isGreaterThan(seeds);
    }

    @Override
    public String toString() {
      return ("reassignments started=%d retargeted=%d completed=%d cancelled=%d refused=%d"
              + " removals=%d")
          .formatted(started, retargeted, completed, cancelled, refused, removals);
    }
  }
}
