package dev.tributary.metadata;

import dev.tributary.common.errors.InvalidReplicationFactorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Kafka's rack-unaware default assignment: partition p's first replica is broker {@code (p + start)
 * % n}; the followers follow at a shift that grows by one every n partitions, so leaders and
 * followers both spread evenly. {@code start} and the initial shift are random (from the injected
 * {@link Random}) so that many small topics do not all lead on the first broker.
 */
public final class ReplicaPlacement {
  private ReplicaPlacement() {}

  /**
   * Replicas for partitions {@code firstPartition .. firstPartition + partitionCount - 1}, over
   * {@code brokers} (sorted ids of live brokers). The first replica of each list is its preferred
   * leader.
   */
  public static List<List<Integer>> assign(
      List<Integer> brokers,
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
    int start = random.nextInt(n);
    int shift = random.nextInt(n);
    List<List<Integer>> assignment = new ArrayList<>(partitionCount);
    for (int partition = firstPartition; partition < firstPartition + partitionCount; partition++) {
      if (partition > 0 && partition % n == 0) {
        shift++;
      }
      int first = (partition + start) % n;
      List<Integer> replicas = new ArrayList<>(replicationFactor);
      replicas.add(brokers.get(first));
      for (int j = 0; j < replicationFactor - 1; j++) {
        int offset = 1 + (shift + j) % (n - 1);
        replicas.add(brokers.get((first + offset) % n));
      }
      assignment.add(List.copyOf(replicas));
    }
    return assignment;
  }
}
