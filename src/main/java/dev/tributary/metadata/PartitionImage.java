package dev.tributary.metadata;

import java.util.List;

/**
 * One partition's placement and leadership in the metadata image: immutable. While a reassignment
 * is in progress (KIP-455), {@code replicas} is the target followed by the replicas leaving, {@code
 * addingReplicas} the target's new members (they copy the log outside the ISR until they catch up)
 * and {@code removingReplicas} the members that leave once every target replica is in sync; both
 * are empty otherwise. See {@link ReassignmentControl}.
 */
public record PartitionImage(
    int partition,
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> addingReplicas,
    List<Integer> removingReplicas) {
  public PartitionImage {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
    addingReplicas = List.copyOf(addingReplicas);
    removingReplicas = List.copyOf(removingReplicas);
  }

  /** A partition that is not being reassigned. */
  public PartitionImage(
      int partition,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    this(partition, replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
  }

  static PartitionImage of(MetadataRecord.PartitionChange change) {
    return new PartitionImage(
        change.partition(),
        change.replicas(),
        change.isr(),
        change.leader(),
        change.leaderEpoch(),
        change.partitionEpoch(),
        change.addingReplicas(),
        change.removingReplicas());
  }

  /** Whether a reassignment is in progress: some replicas are being added or removed. */
  public boolean isReassigning() {
    return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
  }

  /** The replicas this partition will have once its reassignment completes (all, if none). */
  public List<Integer> targetReplicas() {
    return replicas.stream().filter(id -> !removingReplicas.contains(id)).toList();
  }

  /** The replicas it had before its reassignment began, which a cancellation returns to. */
  public List<Integer> originalReplicas() {
    return replicas.stream().filter(id -> !addingReplicas.contains(id)).toList();
  }

  /** The same partition as a record, with the given state; the reassignment lists carried over. */
  MetadataRecord.PartitionChange change(
      dev.tributary.common.Uuid topicId,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    return new MetadataRecord.PartitionChange(
        topicId,
        partition,
        replicas,
        isr,
        leader,
        leaderEpoch,
        partitionEpoch,
        addingReplicas,
        removingReplicas);
  }
}
