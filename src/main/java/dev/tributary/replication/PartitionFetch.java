package dev.tributary.replication;

import dev.tributary.common.TopicPartition;

/**
 * One partition of a fetch (Kafka's FetchRequest.PartitionData).
 *
 * @param fetchOffset the first offset wanted; a follower's is its log end offset
 * @param maxBytes at most this many bytes from this partition (but at least one whole batch when it
 *     is the first partition with data)
 * @param currentLeaderEpoch the epoch the fetcher believes the leader is in (KIP-320), or -1 to
 *     skip the check: older than the leader's is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH
 * @param lastFetchedEpoch the epoch of the last batch the fetcher has (KIP-595), or -1: when the
 *     leader's log diverges from it before {@code fetchOffset}, the answer names the diverging
 *     epoch and where it ends instead of records
 */
public record PartitionFetch(
    TopicPartition topicPartition,
    long fetchOffset,
    int maxBytes,
    int currentLeaderEpoch,
    int lastFetchedEpoch) {
  public static final int NO_EPOCH = -1;

  /** A fetch without epoch checks (a REST read, which knows no epochs). */
  public static PartitionFetch of(TopicPartition tp, long fetchOffset, int maxBytes) {
    return new PartitionFetch(tp, fetchOffset, maxBytes, NO_EPOCH, NO_EPOCH);
  }
}
