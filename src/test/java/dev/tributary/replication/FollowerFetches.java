package dev.tributary.replication;

/** A follower's fetch of one partition straight from its leader's {@link Partition}, for tests. */
final class FollowerFetches {
  private FollowerFetches() {}

  static FetchPartitionData fetch(
      Partition leader,
      int replicaId,
      long brokerEpoch,
      boolean eligible,
      int leaderEpoch,
      long fetchOffset,
      int maxBytes,
      long nowMs) {
    return leader.fetchRecords(
        FetchParams.follower(replicaId, brokerEpoch, 0, 1, maxBytes),
        new PartitionFetch(
            leader.topicPartition(), fetchOffset, maxBytes, leaderEpoch, PartitionFetch.NO_EPOCH),
        maxBytes,
        true,
        eligible,
        nowMs);
  }
}
