package dev.tributary.metadata;

import dev.tributary.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The balancer's planning core: from a metadata image, a {@link BalancePlan} of reassignments that
 * evens out replicas and preferred leaders over the <em>eligible</em> brokers (registered, unfenced
 * and not {@linkplain BalanceOptions#excluded() excluded}). Pure and deterministic: no I/O, no
 * clock, no randomness; every tie is broken by broker id, then topic and partition.
 *
 * <p>Partitions being reassigned and offline ones (no leader) are {@linkplain BalancePlan#skipped()
 * skipped}: they stay where they are (a reassigning one counts where its move ends). Every other
 * partition is planned in three greedy passes, each move one replica from one broker to another:
 *
 * <ol>
 *   <li><b>Evacuate</b>, smallest partitions first: every replica on a broker that is not eligible
 *       moves to an eligible one, and, when racks are given and the eligible brokers span at least
 *       RF racks, every replica on a rack the partition already uses (all but the first in replica
 *       order) moves to an unused rack. A partition with fewer eligible brokers than its
 *       replication factor cannot leave and is skipped, never shrunk.
 *   <li><b>Even replica counts</b>: while the most-loaded eligible broker has at least two more
 *       replicas than the least-loaded, move one replica between them (or, if none can go, between
 *       the next pair in that order), taking the partition that costs the fewest new copies (a
 *       replica this plan already added, or one going back to its old broker, is free), then, when
 *       bytes-in rates are given, the one that leaves the two brokers' bytes-in closest, then the
 *       smallest, then the first by name. Without racks and skipped partitions this always ends
 *       with every eligible broker within one of the mean: a broker with more replicas than another
 *       always holds a partition the other does not.
 *   <li><b>Even preferred leaders</b>: replica order only. While some broker is preferred leader of
 *       at least two more partitions than another that it can reach, reorder the partitions along a
 *       shortest chain "partition preferring a also has a replica on b" (putting b first), which
 *       moves one preferred leadership from the first broker of the chain to the last and no other
 *       count. Partitions this plan already moves are tried first, so reorders ride on them. When
 *       no such chain is left no reordering can narrow the spread further; a later preferred leader
 *       election ({@link PreferredLeaderElection}) moves actual leadership.
 * </ol>
 *
 * A replica that moves takes the place of the one it replaces in the order, so {@code [1,2] →
 * [4,2]}. Bytes-in is a secondary objective only: it chooses among moves that even the counts
 * equally and never causes a move of its own. Each pass strictly lowers a sum of squared counts, so
 * each ends; a pass scans every partition per move, which is fine for thousands of partitions.
 */
public final class BalancePlanner {
  private BalancePlanner() {}

  /** A plan with no exclusions, racks, rates or sizes. */
  public static BalancePlan plan(MetadataImage image) {
    return plan(image, BalanceOptions.NONE);
  }

  /**
   * The plan for {@code image}.
   *
   * @throws IllegalArgumentException if racks are given but some eligible broker has none
   */
  public static BalancePlan plan(MetadataImage image, BalanceOptions options) {
    Planning planning = new Planning(image, options);
    planning.evacuate();
    planning.evenReplicaCounts();
    planning.evenPreferredLeaders();
    return planning.toPlan();
  }

  /**
   * One partition as planned: {@code target} starts as {@code current} and only moves change it.
   */
  private static final class Part {
    final TopicPartition tp;
    final List<Integer> current;
    final List<Integer> target;
    final double bytesIn;
    final long size;
    String skipReason; // non-null: not planned, target stays current

    Part(TopicPartition tp, List<Integer> current, BalanceOptions options) {
      this.tp = tp;
      this.current = List.copyOf(current);
      this.target = new ArrayList<>(current);
      this.bytesIn = options.bytesIn(tp);
      this.size = options.size(tp);
    }

    boolean planned() {
      return skipReason == null;
    }

    int replicationFactor() {
      return current.size();
    }
  }

  /**
   * One link of a preferred-leader chain: {@code part}, preferring {@code from}, will prefer {@code
   * to}.
   */
  private record Hop(Part part, int from, int to) {}

  private static final class Planning {
    private final MetadataImage image;
    private final BalanceOptions options;
    private final SortedSet<Integer> eligible;
    private final long distinctRacks;
    private final List<Part> parts = new ArrayList<>(); // topic then partition order
    private final Map<Integer, Integer> replicaCounts = new TreeMap<>();
    private final Map<Integer, Double> bytesIn = new TreeMap<>();
    private final Map<Integer, Integer> leaderCounts = new TreeMap<>();

    Planning(MetadataImage image, BalanceOptions options) {
      this.image = image;
      this.options = options;
      this.eligible = new TreeSet<>(image.unfencedBrokerIds());
      eligible.removeAll(options.excluded());
      Map<Integer, String> racks = options.racks();
      List<Integer> rackless = eligible.stream().filter(id -> !racks.containsKey(id)).toList();
      if (!racks.isEmpty() && !rackless.isEmpty()) {
        throw new IllegalArgumentException(
            "racks are given, but not for eligible broker(s) " + rackless);
      }
      this.distinctRacks = eligible.stream().map(racks::get).distinct().count();
      for (int id : eligible) {
        replicaCounts.put(id, 0);
        bytesIn.put(id, 0.0);
      }
      for (TopicImage topic : image.topicsByName().values()) {
        for (PartitionImage p : topic.partitions().values()) {
          TopicPartition tp = new TopicPartition(topic.name(), p.partition());
          Part part = new Part(tp, p.isReassigning() ? p.targetReplicas() : p.replicas(), options);
          if (p.isReassigning()) {
            part.skipReason =
                "being reassigned (adding "
                    + p.addingReplicas()
                    + ", removing "
                    + p.removingReplicas()
                    + ")";
          } else if (p.leader() == -1) {
            part.skipReason = "offline: no leader";
          }
          parts.add(part);
          for (int id : part.current) {
            replicaCounts.merge(id, 1, Integer::sum);
            bytesIn.merge(id, part.bytesIn, Double::sum);
          }
        }
      }
    }

    // ---- pass 1: evacuate

    void evacuate() {
      List<Part> bySize =
          parts.stream()
              .filter(Part::planned)
              .sorted(Comparator.comparingLong((Part p) -> p.size)) // stable: ties keep name order
              .toList();
      for (Part part : bySize) {
        List<Integer> leaving = mustLeave(part);
        if (leaving.isEmpty()) {
          continue;
        }
        if (eligible.size() < part.replicationFactor()) {
          part.skipReason =
              "cannot leave broker(s) "
                  + leaving
                  + ": replication factor "
                  + part.replicationFactor()
                  + " needs as many eligible brokers, there are "
                  + eligible.size()
                  + " "
                  + eligible;
          continue;
        }
        for (int from : leaving) {
          // Always found (see the class comment): enough brokers, and with racks an unused rack.
          int to =
              destination(part, from)
                  .orElseThrow(() -> new IllegalStateException("no destination for " + part.tp));
          move(part, from, to);
        }
      }
    }

    /** Replicas on brokers that are not eligible, and (rack-aware) all but the first per rack. */
    private List<Integer> mustLeave(Part part) {
      Set<String> racksUsed = new HashSet<>();
      List<Integer> leaving = new ArrayList<>();
      for (int id : part.target) {
        if (!eligible.contains(id)
            || (rackAware(part) && !racksUsed.add(options.racks().get(id)))) {
          leaving.add(id);
        }
      }
      return leaving;
    }

    /** The least-loaded eligible broker that may take {@code part}'s replica from {@code from}. */
    private Optional<Integer> destination(Part part, int from) {
      return eligible.stream()
          .filter(to -> !part.target.contains(to) && rackAllows(part, from, to))
          .min(
              Comparator.comparingInt((Integer id) -> replicaCounts.get(id))
                  .thenComparingDouble(bytesIn::get)
                  .thenComparingInt(id -> id));
    }

    private boolean rackAware(Part part) {
      return !options.racks().isEmpty() && distinctRacks >= part.replicationFactor();
    }

    /**
     * Whether moving {@code part}'s replica from {@code from} to {@code to} keeps its replicas on
     * distinct racks: {@code to}'s rack is used by none of its other eligible replicas (the others
     * are leaving anyway).
     */
    private boolean rackAllows(Part part, int from, int to) {
      if (!rackAware(part)) {
        return true;
      }
      String rack = options.racks().get(to);
      return part.target.stream()
          .noneMatch(
              id -> id != from && eligible.contains(id) && rack.equals(options.racks().get(id)));
    }

    /**
     * Replaces {@code from} by {@code to} in place, so the order (and preferred leader) carries.
     */
    private void move(Part part, int from, int to) {
      part.target.set(part.target.indexOf(from), to);
      replicaCounts.merge(from, -1, Integer::sum);
      replicaCounts.merge(to, 1, Integer::sum);
      bytesIn.merge(from, -part.bytesIn, Double::sum);
      bytesIn.merge(to, part.bytesIn, Double::sum);
    }

    // ---- pass 2: even replica counts

    void evenReplicaCounts() {
      while (moveOneReplica()) {
        // each move lowers the sum of squared counts: the loop ends
      }
    }

    private boolean moveOneReplica() {
      Comparator<Integer> byLoad =
          Comparator.comparingInt((Integer id) -> replicaCounts.get(id))
              .thenComparingDouble(bytesIn::get)
              .thenComparingInt(id -> id);
      List<Integer> sources = eligible.stream().sorted(byLoad.reversed()).toList();
      List<Integer> destinations = eligible.stream().sorted(byLoad).toList();
      for (int from : sources) {
        for (int to : destinations) {
          if (replicaCounts.get(from) - replicaCounts.get(to) < 2) {
            break; // the rest are at least as loaded
          }
          Optional<Part> best =
              parts.stream()
                  .filter(Part::planned)
                  .filter(p -> p.target.contains(from) && !p.target.contains(to))
                  .filter(p -> rackAllows(p, from, to))
                  .min(cheapestThenEvenest(from, to));
          if (best.isPresent()) {
            move(best.get(), from, to);
            return true;
          }
        }
      }
      return false;
    }

    /**
     * Fewest new copies first; then (with rates) the bytes-in of {@code from} and {@code to}
     * closest after the move; then the smallest partition; then topic-partition order (stable).
     */
    private Comparator<Part> cheapestThenEvenest(int from, int to) {
      double gap = bytesIn.get(from) - bytesIn.get(to);
      return Comparator.comparingInt(
              (Part p) -> (p.current.contains(to) ? 0 : 1) - (p.current.contains(from) ? 0 : 1))
          .thenComparingDouble(p -> Math.abs(gap - 2 * p.bytesIn))
          .thenComparingLong(p -> p.size);
    }

    // ---- pass 3: even preferred leaders

    void evenPreferredLeaders() {
      for (int id : eligible) {
        leaderCounts.put(id, 0);
      }
      for (Part part : parts) {
        int preferred = part.target.get(0);
        if (eligible.contains(preferred)) {
          leaderCounts.merge(preferred, 1, Integer::sum);
        }
      }
      while (shiftOnePreferredLeader()) {
        // each shift lowers the sum of squared counts: the loop ends
      }
    }

    private boolean shiftOnePreferredLeader() {
      List<Integer> sources =
          eligible.stream()
              .sorted(
                  Comparator.comparingInt((Integer id) -> -leaderCounts.get(id))
                      .thenComparingInt(id -> id))
              .toList();
      for (int from : sources) {
        List<Hop> chain = shortestChain(from);
        if (!chain.isEmpty()) {
          for (Hop hop : chain) {
            hop.part().target.remove(Integer.valueOf(hop.to()));
            hop.part().target.add(0, hop.to());
          }
          leaderCounts.merge(from, -1, Integer::sum);
          leaderCounts.merge(chain.get(chain.size() - 1).to(), 1, Integer::sum);
          return true;
        }
      }
      return false;
    }

    /**
     * Breadth-first from {@code start} over "a partition preferring a has a replica on b" to the
     * nearest broker preferred by at least two fewer partitions; empty if there is none. Each
     * broker is expanded once, so each partition (preferring one broker) appears once at most.
     */
    private List<Hop> shortestChain(int start) {
      int limit = leaderCounts.get(start) - 2;
      Map<Integer, List<Part>> byPreferred = new HashMap<>();
      parts.stream()
          .filter(p -> p.planned() && p.replicationFactor() > 1)
          // already moving first: reordering them adds no move
          .sorted(
              Comparator.comparingInt((Part p) -> p.target.equals(p.current) ? 1 : 0)
                  .thenComparingLong(p -> p.size))
          .forEach(
              p -> byPreferred.computeIfAbsent(p.target.get(0), k -> new ArrayList<>()).add(p));
      Map<Integer, Hop> reachedBy = new HashMap<>();
      ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(start));
      Set<Integer> seen = new HashSet<>(Set.of(start));
      while (!queue.isEmpty()) {
        int from = queue.poll();
        for (Part part : byPreferred.getOrDefault(from, List.of())) {
          List<Integer> followers =
              part.target.stream()
                  .skip(1)
                  .sorted(
                      Comparator.comparingInt((Integer id) -> leaderCounts.get(id))
                          .thenComparingInt(id -> id))
                  .toList();
          for (int to : followers) {
            if (!seen.add(to)) {
              continue;
            }
            reachedBy.put(to, new Hop(part, from, to));
            if (leaderCounts.get(to) <= limit) {
              return chainTo(to, start, reachedBy);
            }
            queue.add(to);
          }
        }
      }
      return List.of();
    }

    private static List<Hop> chainTo(int end, int start, Map<Integer, Hop> reachedBy) {
      List<Hop> chain = new ArrayList<>();
      for (int at = end; at != start; at = reachedBy.get(at).from()) {
        chain.add(0, reachedBy.get(at));
      }
      return chain;
    }

    // ---- the plan

    BalancePlan toPlan() {
      List<BalancePlan.Move> moves = new ArrayList<>();
      List<BalancePlan.Skipped> skipped = new ArrayList<>();
      SortedSet<Integer> brokerIds = new TreeSet<>(image.brokers().keySet());
      brokerIds.addAll(options.excluded());
      for (Part part : parts) {
        brokerIds.addAll(part.current);
        if (!part.planned()) {
          skipped.add(new BalancePlan.Skipped(part.tp, part.current, part.skipReason));
        } else if (!part.target.equals(part.current)) {
          moves.add(new BalancePlan.Move(part.tp, part.current, part.target));
        }
      }
      List<BalancePlan.BrokerLoad> loads = new ArrayList<>();
      for (int id : brokerIds) {
        loads.add(
            new BalancePlan.BrokerLoad(
                id,
                role(id),
                count(p -> p.current.contains(id)),
                count(p -> p.target.contains(id)),
                count(p -> p.current.get(0) == id),
                count(p -> p.target.get(0) == id),
                rate(p -> p.current.contains(id)),
                rate(p -> p.target.contains(id))));
      }
      return new BalancePlan(moves, loads, skipped, !options.bytesInPerSec().isEmpty());
    }

    /** How many partitions match (a skipped partition's target is its current replicas). */
    private int count(Predicate<Part> which) {
      return (int) parts.stream().filter(which).count();
    }

    private double rate(Predicate<Part> which) {
      return parts.stream().filter(which).mapToDouble(p -> p.bytesIn).sum();
    }

    private BalancePlan.BrokerRole role(int id) {
      if (options.excluded().contains(id)) {
        return BalancePlan.BrokerRole.EXCLUDED;
      }
      BrokerImage broker = image.brokers().get(id);
      if (broker == null) {
        return BalancePlan.BrokerRole.UNREGISTERED;
      }
      return broker.fenced() ? BalancePlan.BrokerRole.FENCED : BalancePlan.BrokerRole.ELIGIBLE;
    }
  }
}
