package dev.tributary.metadata;

import dev.tributary.common.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What {@link BalancePlanner} proposes: the reassignments to make, what they do to each broker, and
 * the partitions it left alone. Immutable; computing it changes nothing.
 *
 * @param moves the partitions whose replicas change, in topic then partition order
 * @param brokers every broker that is registered, excluded or holds a replica, by id
 * @param skipped the partitions the plan does not touch, and why, in topic then partition order
 * @param bytesInGiven whether the planner had produce rates (otherwise every bytes-in figure is 0)
 */
public record BalancePlan(
    List<Move> moves, List<BrokerLoad> brokers, List<Skipped> skipped, boolean bytesInGiven) {
  public BalancePlan {
    moves = List.copyOf(moves);
    brokers = List.copyOf(brokers);
    skipped = List.copyOf(skipped);
  }

  /** Whether there is nothing to do: no move at all (there may still be skipped partitions). */
  public boolean isBalanced() {
    return moves.isEmpty();
  }

  /**
   * The moves as a request to {@link ReassignmentControl#alter}: each partition's target, whose
   * first replica is the preferred leader a later preferred leader election will make lead.
   */
  public Map<TopicPartition, Optional<List<Integer>>> reassignmentTargets() {
    Map<TopicPartition, Optional<List<Integer>>> targets = new LinkedHashMap<>();
    moves.forEach(move -> targets.put(move.partition(), Optional.of(move.targetReplicas())));
    return targets;
  }

  /** How many replicas the plan creates (each a full copy of its partition's log). */
  public int replicasToCopy() {
    return moves.stream().mapToInt(move -> move.addedReplicas().size()).sum();
  }

  /** The load of {@code brokerId}, if the plan lists it. */
  public Optional<BrokerLoad> broker(int brokerId) {
    return brokers.stream().filter(b -> b.brokerId() == brokerId).findFirst();
  }

  /**
   * A short diff for people: a summary, one line per move ({@code orders-2: [1,2] → [4,2]}), one
   * per skipped partition, then a table of each broker's replicas and preferred leaders (and
   * bytes-in/s, if given) before → after.
   */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%d move(s), %d replica(s) to copy, %d partition(s) skipped\n",
            moves.size(),
            replicasToCopy(),
            skipped.size()));
    for (Move move : moves) {
      out.append(move.partition())
          .append(": ")
          .append(list(move.currentReplicas()))
          .append(" → ")
          .append(list(move.targetReplicas()))
          .append(move.isReorderOnly() ? " (preferred leader only)" : "")
          .append("\n");
    }
    for (Skipped s : skipped) {
      out.append(String.format(Locale.ROOT, "skipped %s: %s\n", s.partition(), s.reason()));
    }
    row(out, "broker", "state", "replicas", "leaders", bytesInGiven ? "bytes-in/s" : "");
    for (BrokerLoad b : brokers) {
      row(
          out,
          String.valueOf(b.brokerId()),
          b.role().name().toLowerCase(Locale.ROOT),
          b.replicasBefore() + " → " + b.replicasAfter(),
          b.preferredLeadersBefore() + " → " + b.preferredLeadersAfter(),
          bytesInGiven
              ? String.format(Locale.ROOT, "%.1f → %.1f", b.bytesInBefore(), b.bytesInAfter())
              : "");
    }
    return out.toString();
  }

  private static void row(StringBuilder out, String... columns) {
    String line = String.format(Locale.ROOT, "%-7s %-10s %-9s %-9s %s", (Object[]) columns);
    out.append(line.stripTrailing()).append('\n');
  }

  private static String list(List<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
  }

  /**
   * One partition's reassignment. {@code targetReplicas} has the partition's replication factor, no
   * broker twice, and its intended preferred leader first.
   */
  public record Move(
      TopicPartition partition, List<Integer> currentReplicas, List<Integer> targetReplicas) {
    public Move {
      currentReplicas = List.copyOf(currentReplicas);
      targetReplicas = List.copyOf(targetReplicas);
      if (targetReplicas.size() != currentReplicas.size()
          || targetReplicas.stream().distinct().count() != targetReplicas.size()
          || targetReplicas.equals(currentReplicas)) {
        throw new IllegalArgumentException(
            "not a move of " + partition + ": " + currentReplicas + " → " + targetReplicas);
      }
    }

    /** The brokers that get a new replica (and copy the log). */
    public List<Integer> addedReplicas() {
      return targetReplicas.stream().filter(id -> !currentReplicas.contains(id)).toList();
    }

    /** The brokers whose replica goes (and deletes its log once the new ones are in sync). */
    public List<Integer> removedReplicas() {
      return currentReplicas.stream().filter(id -> !targetReplicas.contains(id)).toList();
    }

    /** The same brokers in another order: no data moves, only the preferred leader changes. */
    public boolean isReorderOnly() {
      return addedReplicas().isEmpty();
    }
  }

  /** What a broker may be given in the plan. */
  public enum BrokerRole {
    /** Registered and unfenced, not excluded: the only kind of broker that gets replicas. */
    ELIGIBLE,
    /** Fenced: its movable replicas move off, and it gets none. */
    FENCED,
    /** Excluded by the caller (decommissioning): its movable replicas move off; it gets none. */
    EXCLUDED,
    /** Named by some partition's replicas but not registered: treated as fenced. */
    UNREGISTERED
  }

  /**
   * One broker's replicas, preferred leaders (partitions whose first replica it is) and bytes-in/s,
   * before the plan and after every move in it completes. A partition being reassigned counts on
   * the brokers its reassignment ends on, in both columns.
   */
  public record BrokerLoad(
      int brokerId,
      BrokerRole role,
      int replicasBefore,
      int replicasAfter,
      int preferredLeadersBefore,
      int preferredLeadersAfter,
      double bytesInBefore,
      double bytesInAfter) {}

  /** A partition the plan leaves as it is, and why. */
  public record Skipped(TopicPartition partition, List<Integer> replicas, String reason) {
    public Skipped {
      replicas = List.copyOf(replicas);
    }
  }
}
