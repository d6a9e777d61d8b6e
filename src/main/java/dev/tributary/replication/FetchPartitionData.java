package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogFileSlice;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.PartitionLog;
import java.nio.ByteBuffer;

/**
 * One partition's answer to a fetch (Kafka's FetchPartitionData): the stored batches unchanged
 * (whole batches, possibly none) and the leader's offsets when it read them; or an error.
 *
 * <p>Invariant: {@code records} is empty and {@code fileSlice} null when {@code error != NONE} or
 * {@code divergingEpoch} is set; at most one of them holds batches ({@code fileSlice} only when the
 * fetch asked for {@link FetchParams#fileSlices}); offsets are -1 when the partition could not be
 * read at all.
 *
 * @param highWatermark the leader's high watermark when it read
 * @param lastStableOffset = the high watermark (no transactions)
 * @param logEndOffset the leader's log end offset when it read
 * @param divergingEpoch where the fetcher's last fetched epoch ends on the leader, when it diverged
 *     (the fetcher truncates there); null otherwise
 * @param leaderId the partition's leader as this broker knows it (-1 if none): a client that got
 *     NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH goes there next (KIP-951)
 * @param leaderEpoch that leader's epoch
 * @param fileSlice the batches left in the segment file (a consumer's fetch with {@link
 *     FetchParams#fileSlices}); null otherwise
 */
public record FetchPartitionData(
    TopicPartition topicPartition,
    Errors error,
    String errorMessage,
    long highWatermark,
    long lastStableOffset,
    long logStartOffset,
    long logEndOffset,
    EpochEndOffset divergingEpoch,
    int leaderId,
    int leaderEpoch,
    ByteBuffer records,
    LogFileSlice fileSlice) {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

  public FetchPartitionData {
    if ((error != Errors.NONE || divergingEpoch != null)
        && (records.hasRemaining() || fileSlice != null)) {
      throw new IllegalArgumentException("an error or a diverging epoch carries no records");
    }
    if (fileSlice != null && records.hasRemaining()) {
      throw new IllegalArgumentException("batches are in memory or in the file, not both");
    }
  }

  /** Batches read into memory. */
  public FetchPartitionData(
      TopicPartition topicPartition,
      Errors error,
      String errorMessage,
      long highWatermark,
      long lastStableOffset,
      long logStartOffset,
      long logEndOffset,
      EpochEndOffset divergingEpoch,
      int leaderId,
      int leaderEpoch,
      ByteBuffer records) {
    this(
        topicPartition,
        error,
        errorMessage,
        highWatermark,
        lastStableOffset,
        logStartOffset,
        logEndOffset,
        divergingEpoch,
        leaderId,
        leaderEpoch,
        records,
        null);
  }

  /** What a leader read below {@code highWatermark} as a slice of its segment file. */
  static FetchPartitionData slice(
      TopicPartition tp, long highWatermark, LogFileSlice slice, int leaderId, int leaderEpoch) {
    return new FetchPartitionData(
        tp,
        Errors.NONE,
        null,
        highWatermark,
        highWatermark,
        slice.logStartOffset(),
        slice.logEndOffset(),
        null,
        leaderId,
        leaderEpoch,
        EMPTY,
        slice.isEmpty() ? null : slice);
  }

  /** What a leader read below {@code highWatermark} (or its log end, for a follower). */
  static FetchPartitionData read(
      TopicPartition tp, long highWatermark, LogReadInfo read, int leaderId, int leaderEpoch) {
    return new FetchPartitionData(
        tp,
        Errors.NONE,
        null,
        highWatermark,
        highWatermark,
        read.logStartOffset(),
        read.logEndOffset(),
        null,
        leaderId,
        leaderEpoch,
        read.records());
  }

  /**
   * The fetcher's log diverged from the leader's: where its last fetched epoch ends, no records.
   */
  static FetchPartitionData diverged(
      TopicPartition tp,
      long highWatermark,
      PartitionLog log,
      EpochEndOffset divergingEpoch,
      int leaderId,
      int leaderEpoch) {
    return new FetchPartitionData(
        tp,
        Errors.NONE,
        null,
        highWatermark,
        highWatermark,
        log.logStartOffset(),
        log.logEndOffset(),
        divergingEpoch,
        leaderId,
        leaderEpoch,
        EMPTY);
  }

  /** A fetch offset outside the leader's log, with the leader's offsets (KIP-101 recovery). */
  static FetchPartitionData outOfRange(Partition leader, String message) {
    return new FetchPartitionData(
        leader.topicPartition(),
        Errors.OFFSET_OUT_OF_RANGE,
        message,
        leader.highWatermark(),
        leader.highWatermark(),
        leader.logStartOffset(),
        leader.logEndOffset(),
        null,
        leader.leaderId(),
        leader.leaderEpoch(),
        EMPTY);
  }

  /** A partition that could not be read, with what this broker knows of its leader. */
  public static FetchPartitionData error(
      TopicPartition tp, Errors error, String message, int leaderId, int leaderEpoch) {
    return new FetchPartitionData(
        tp, error, message, -1, -1, -1, -1, null, leaderId, leaderEpoch, EMPTY);
  }

  /** Bytes of batches returned, in memory or in the file. */
  public int sizeInBytes() {
    return fileSlice != null ? fileSlice.sizeInBytes() : records.remaining();
  }
}
