package dev.tributary.replication;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.TimestampAndOffset;
import java.util.Optional;

/**
 * A leader's lock-free reads for consumers and clients: fetches below the high watermark and
 * ListOffsets. They read the partition's volatile state once (leadership, epoch, high watermark)
 * and then the log below that bound, so consumers never wait for producers or followers; a reader
 * racing a change of leadership answers with the state it read, which a client's next request with
 * the new epoch corrects (KIP-320).
 */
final class LeaderReads {
  private LeaderReads() {}

  /** See {@link Partition#fetchRecords}: a consumer's part. */
  static FetchPartitionData fetchForConsumer(
      Partition partition,
      PartitionFetch fetch,
      int maxBytes,
      boolean minOneBatch,
      boolean fileSlice) {
    partition.requireLeader();
    int epoch = partition.leaderEpoch();
    FetchValidation.validateLeaderEpoch(
        partition.topicPartition(), fetch.currentLeaderEpoch(), epoch, "a fetch");
    long bound = partition.highWatermark(); // read once: the answer reports the bound it used
    PartitionLog log = partition.log();
    EpochEndOffset diverging = FetchValidation.divergingEpoch(log, fetch);
    if (diverging != null) {
      return FetchPartitionData.diverged(
          partition.topicPartition(), bound, log, diverging, partition.leaderId(), epoch);
    }
    if (fileSlice) {
      return FetchPartitionData.slice(
          partition.topicPartition(),
          bound,
          log.readFileSlice(fetch.fetchOffset(), maxBytes, bound, minOneBatch),
          partition.leaderId(),
          epoch);
    }
    LogReadInfo read = log.read(fetch.fetchOffset(), maxBytes, bound, minOneBatch);
    return FetchPartitionData.read(
        partition.topicPartition(), bound, read, partition.leaderId(), epoch);
  }

  /**
   * ListOffsets as the partition's leader (Kafka's Partition.fetchOffsetForTimestamp): {@link
   * ListOffsetsTimestamps#EARLIEST} the log start offset, {@link ListOffsetsTimestamps#LATEST} the
   * high watermark (what consumers can read up to), {@link ListOffsetsTimestamps#MAX_TIMESTAMP} the
   * committed record with the largest timestamp, any other timestamp (>= 0) the first committed
   * offset whose record is at least that recent; each with the leader epoch it was written in (the
   * current one for latest). Empty when no committed record matches.
   */
  static Optional<TimestampAndOffset> fetchOffsetForTimestamp(
      Partition partition, long timestampMs, int currentLeaderEpoch) {
    partition.requireLeader();
    int epoch = partition.leaderEpoch();
    FetchValidation.validateLeaderEpoch(
        partition.topicPartition(), currentLeaderEpoch, epoch, "a ListOffsets request");
    long hw = partition.highWatermark();
    PartitionLog log = partition.log();
    if (timestampMs == ListOffsetsTimestamps.LATEST) {
      return Optional.of(new TimestampAndOffset(-1, hw, epoch));
    }
    if (timestampMs == ListOffsetsTimestamps.EARLIEST) {
      long start = log.logStartOffset();
      return Optional.of(new TimestampAndOffset(-1, start, log.epochForOffset(start)));
    }
    if (timestampMs == ListOffsetsTimestamps.MAX_TIMESTAMP) {
      return log.maxTimestampBelow(hw);
    }
    if (timestampMs < 0) {
      throw new InvalidRequestException(
          "timestamp " + timestampMs + " is neither a time nor one of -1, -2, -3");
    }
    return log.offsetForTimestamp(timestampMs).filter(found -> found.offset() < hw);
  }
}
