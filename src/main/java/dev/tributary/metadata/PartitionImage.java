package dev.tributary.metadata;

import java.util.List;

/** One partition's placement and leadership in the metadata image: immutable. */
public record PartitionImage(
    int partition,
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch) {
  public PartitionImage {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
  }

  static PartitionImage of(MetadataRecord.PartitionChange change) {
    return new PartitionImage(
        change.partition(),
        change.replicas(),
        change.isr(),
        change.leader(),
        change.leaderEpoch(),
        change.partitionEpoch());
  }
}
