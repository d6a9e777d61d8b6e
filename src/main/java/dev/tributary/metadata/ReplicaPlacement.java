package dev.tributary.metadata;

import dev.tributary.common.errors.InvalidReplicationFactorException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the replicas of new partitions go: Kafka's default assignment ({@code
 * AdminUtils.assignReplicasToBrokers}), rack-unaware or, when brokers have racks, rack-aware
 * (KIP-36). Pure; the only randomness is the injected {@link Random}, drawn exactly twice per call.
 *
 * <p><b>Rack-unaware</b> (no broker has a rack): partition p's first replica is broker {@code (p +
 * start) % n} of the sorted brokers; the followers follow at a shift that grows by one every n
 * partitions, so leaders and followers both spread evenly. {@code start} and the initial shift are
 * random so that many small topics do not all lead on the first broker.
 *
 * <p><b>Rack-aware</b> (some broker has a rack): the same walk, over the brokers ordered
 * alternately across racks (racks sorted by name, each rack's brokers by id: racks {@code a: 1,2}
 * and {@code b: 3,4} give {@code 1,3,2,4}), so every broker leads as often as any other and, with
 * racks of one size, consecutive leaders change rack. Each follower is the next broker of the walk
 * whose rack the partition does not use yet, until every rack has a replica; after that, any broker
 * it does not use. So with at least RF racks every partition has its replicas on RF distinct racks,
 * and with fewer every rack holds at least one. Brokers without a rack count as one more rack of
 * their own, as KRaft's {@code StripedReplicaPlacer} treats them (Kafka's ZooKeeper-era tool
 * refused a mix); see docs/adr/0027-racks.md.
 */
public final class ReplicaPlacement {
  /** Racks by name, the brokers without one first (KRaft's {@code OptionalStringComparator}). */
  private static final Comparator<Optional<String>> RACK_ORDER =
      Comparator.comparing(
          (Optional<String> rack) -> rack.orElse(null),
          Comparator.nullsFirst(Comparator.naturalOrder()));

  private ReplicaPlacement() {}

  /**
   * Replicas for partitions {@code firstPartition .. firstPartition + partitionCount - 1}, over
   * {@code brokers} (sorted ids of live brokers), rack-unaware. The first replica of each list is
   * its preferred leader.
   */
  public static List<List<Integer>> assign(
      List<Integer> brokers,
      int firstPartition,
      int partitionCount,
      int replicationFactor,
      Random random) {
    return assign(brokers, Map.of(), firstPartition, partitionCount, replicationFactor, random);
  }

  /**
   * As {@link #assign(List, int, int, int, Random)}, rack-aware when any of {@code brokers} has a
   * rack in {@code racks} (broker id to rack; brokers absent have none); exactly the rack-unaware
   * placement when none has.
   */
  public static List<List<Integer>> assign(
      List<Integer> brokers,
      Map<Integer, String> racks,
      int firstPartition,
      int partitionCount,
      int replicationFactor,
      Random random) {
    int n = brokers.size();
    if (replicationFactor < 1) {
      throw new InvalidReplicationFactorException(
          "Replication factor must be at least 1, got " + replicationFactor);
    }
    if (replicationFactor > n) {
      throw new InvalidReplicationFactorException(
          "Replication factor "
              + replicationFactor
              + " is larger than the "
              + n
              + " available broker(s)");
    }
    boolean rackAware = brokers.stream().anyMatch(racks::containsKey);
    List<Integer> walk = rackAware ? rackAlternated(brokers, racks) : brokers;
    int start = random.nextInt(n);
    int shift = random.nextInt(n);
    List<List<Integer>> assignment = new ArrayList<>(partitionCount);
    for (int partition = firstPartition; partition < firstPartition + partitionCount; partition++) {
      if (partition > 0 && partition % n == 0) {
        shift++;
      }
      int first = (partition + start) % n;
      assignment.add(
          rackAware
              ? rackAwareReplicas(walk, racks, first, shift, replicationFactor)
              : rackUnawareReplicas(walk, first, shift, replicationFactor));
    }
    return assignment;
  }

  private static List<Integer> rackUnawareReplicas(
      List<Integer> brokers, int first, int shift, int replicationFactor) {
    List<Integer> replicas = new ArrayList<>(replicationFactor);
    replicas.add(brokers.get(first));
    for (int j = 0; j < replicationFactor - 1; j++) {
      replicas.add(brokers.get(follower(first, shift, j, brokers.size())));
    }
    return List.copyOf(replicas);
  }

  /**
   * The leader at {@code first}, then followers along the walk (Kafka's shift times the number of
   * racks, so that a new round of partitions pairs leaders with followers on other racks), each on
   * a rack not used yet while there is one.
   *
   * <p>Always ends: the walk visits every broker but the leader within n - 1 steps, and while some
   * rack is unused a broker on it is unused too; once all are used, any unused broker will do, and
   * there is one because RF <= n.
   */
  private static List<Integer> rackAwareReplicas(
      List<Integer> walk, Map<Integer, String> racks, int first, int shift, int replicationFactor) {
    int n = walk.size();
    long rackCount = walk.stream().map(id -> rackOf(racks, id)).distinct().count();
    int leader = walk.get(first);
    List<Integer> replicas = new ArrayList<>(replicationFactor);
    replicas.add(leader);
    Set<Optional<String>> racksUsed = new HashSet<>();
    racksUsed.add(rackOf(racks, leader));
    int step = 0;
    while (replicas.size() < replicationFactor) {
      int broker = walk.get(follower(first, (int) (shift * rackCount), step++, n));
      Optional<String> rack = rackOf(racks, broker);
      boolean rackFree = !racksUsed.contains(rack) || racksUsed.size() == rackCount;
      if (rackFree && !replicas.contains(broker)) {
        replicas.add(broker);
        racksUsed.add(rack);
      }
    }
    return List.copyOf(replicas);
  }

  /** Kafka's {@code AdminUtils.replicaIndex}: the j-th follower of the replica at {@code first}. */
  private static int follower(int first, int shift, int j, int n) {
    return (int) ((first + 1 + ((long) shift + j) % (n - 1)) % n);
  }

  /**
   * {@code brokers} ordered alternately across racks: the first broker of each rack (racks in
   * order), then the second of each, and so on; a rack that runs out is skipped.
   */
  static List<Integer> rackAlternated(List<Integer> brokers, Map<Integer, String> racks) {
    TreeMap<Optional<String>, List<Integer>> byRack = new TreeMap<>(RACK_ORDER);
    for (int id : brokers.stream().sorted().toList()) {
      byRack.computeIfAbsent(rackOf(racks, id), rack -> new ArrayList<>()).add(id);
    }
    List<Iterator<Integer>> iterators = byRack.values().stream().map(List::iterator).toList();
    List<Integer> walk = new ArrayList<>(brokers.size());
    while (walk.size() < brokers.size()) {
      for (Iterator<Integer> rack : iterators) {
        if (rack.hasNext()) {
          walk.add(rack.next());
        }
      }
    }
    return walk;
  }

  private static Optional<String> rackOf(Map<Integer, String> racks, int brokerId) {
    return Optional.ofNullable(racks.get(brokerId));
  }
}
