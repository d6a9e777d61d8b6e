package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.PartitionLog;

/** The leader's checks of what a fetcher believes: its leader epoch and its last fetched epoch. */
final class FetchValidation {
  private FetchValidation() {}

  /**
   * KIP-320: a fetcher or client names the epoch it believes the leader is in; -1 skips the check.
   *
   * @throws FencedLeaderEpochException the fetcher's epoch is older (its metadata is stale)
   * @throws UnknownLeaderEpochException the fetcher's epoch is newer (this broker is behind)
   */
  static void validateLeaderEpoch(
      TopicPartition tp, int requestEpoch, int currentEpoch, String who) {
    if (requestEpoch < 0) {
      return;
    }
    if (requestEpoch < currentEpoch) {
      throw new FencedLeaderEpochException(
          who
              + " asked for "
              + tp
              + " in leader epoch "
              + requestEpoch
              + "; the current epoch is "
              + currentEpoch);
    }
    if (requestEpoch > currentEpoch) {
      throw new UnknownLeaderEpochException(
          who
              + " asked for "
              + tp
              + " in leader epoch "
              + requestEpoch
              + ", newer than this leader's "
              + currentEpoch);
    }
  }

  /**
   * A follower fetches from within the leader's log: [logStartOffset, logEndOffset].
   *
   * @throws OffsetOutOfRangeException outside it (the follower truncates or restarts its log)
   */
  static void requireInLog(PartitionLog log, long fetchOffset, String who) {
    long start = log.logStartOffset();
    long end = log.logEndOffset();
    if (fetchOffset > end || fetchOffset < start) {
      throw new OffsetOutOfRangeException(
          who
              + " fetched "
              + log.topicPartition()
              + " from "
              + fetchOffset
              + ", outside ["
              + start
              + ", "
              + end
              + "]");
    }
  }

  /**
   * Where the fetcher's last fetched epoch ends in {@code log}, if the fetcher's log diverged from
   * it before its fetch offset (Kafka's check in Partition.readRecords, KIP-595); null when it did
   * not, or it sent no epoch.
   *
   * @throws OffsetOutOfRangeException the epoch's end is unknown here, or the fetch offset is below
   *     the log start
   */
  static EpochEndOffset divergingEpoch(PartitionLog log, PartitionFetch fetch) {
    if (fetch.lastFetchedEpoch() < 0) {
      return null;
    }
    EpochEndOffset end = log.endOffsetForEpoch(fetch.lastFetchedEpoch());
    if (end.isUndefined()) {
      throw new OffsetOutOfRangeException(
          log.topicPartition()
              + ": the end of the last fetched epoch "
              + fetch.lastFetchedEpoch()
              + " is not known to this leader");
    }
    if (fetch.fetchOffset() < log.logStartOffset()) {
      throw new OffsetOutOfRangeException(
          log.topicPartition()
              + ": fetch offset "
              + fetch.fetchOffset()
              + " is below the log start offset "
              + log.logStartOffset());
    }
    return end.leaderEpoch() < fetch.lastFetchedEpoch() || end.endOffset() < fetch.fetchOffset()
        ? end
        : null;
  }
}
