package dev.tributary.log;

import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.Optional;

/**
 * The read side of one {@link PartitionLog}: fetches and timestamp lookups. It owns no state; it
 * reads the log's.
 *
 * <p>Fetches take no lock (concurrency notes 2 and 3 in {@link PartitionLog}). A fetch snapshots
 * the volatile logStartOffset and logEndOffset and reads at most a segment's committed size, so it
 * never sees a half-written batch. It retries when it overlapped a truncation (the log's truncation
 * sequence was odd, or changed while it read) or when the segment it read was deleted under it
 * ({@link ClosedChannelException}); each retry re-checks the range, so an offset that retention
 * removed is reported as {@link OffsetOutOfRangeException}.
 */
final class LogReader {
  /**
   * Bounds the retries of one fetch; only a log truncated or deleted over and over again reaches
   * it.
   */
  static final int MAX_READ_ATTEMPTS = 16;

  private final PartitionLog log;
  private final LogSegments segments;
  private final TruncationSequence truncations;

  LogReader(PartitionLog log, LogSegments segments, TruncationSequence truncations) {
    this.log = log;
    this.segments = segments;
    this.truncations = truncations;
  }

  /** See {@link PartitionLog#read}. Takes no lock, except to wait out a running truncation. */
  LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    for (int attempt = 1; ; attempt++) {
      long sequence = truncations.sequence();
      if ((sequence & 1) != 0) {
        truncations.await();
        continue;
      }
      long start = log.logStartOffset();
      long end = log.logEndOffset();
      if (startOffset < start || startOffset > end) {
        throw new OffsetOutOfRangeException(
            "offset "
                + startOffset
                + " is out of range for "
                + log.topicPartition()
                + ": valid offsets are ["
                + start
                + ", "
                + end
                + "]");
      }
      if (startOffset == end || startOffset >= maxOffset) {
        return new LogReadInfo(ByteBuffer.allocate(0), start, end);
      }
      try {
        ByteBuffer records =
            readSegments(startOffset, maxBytes, Math.min(maxOffset, end), minOneBatch);
        if (records != null && truncations.sequence() == sequence) {
          return new LogReadInfo(records, start, end);
        }
      } catch (ClosedChannelException e) {
        // The segment was deleted or the log closed under us: retry, which re-checks the range.
      } catch (IOException | CorruptRecordException e) {
        if (truncations.sequence() == sequence) {
          throw e instanceof IOException io
              ? log.storageError("read of " + log.topicPartition(), io)
              : (CorruptRecordException) e;
        }
      }
      if (attempt >= MAX_READ_ATTEMPTS) {
        throw new LogStorageException(
            "read of " + log.topicPartition() + " kept racing with deletion", null);
      }
    }
  }

  /** Null when the segment holding startOffset has gone (deleted under us); the caller retries. */
  private ByteBuffer readSegments(
      long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) throws IOException {
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
    if (entry == null) {
      return null;
    }
    while (entry != null) {
      ByteBuffer records = entry.getValue().read(startOffset, maxBytes, maxOffset, minOneBatch);
      if (records != null) {
        return records;
      }
      entry = segments.higherEntry(entry.getKey());
    }
    return ByteBuffer.allocate(0);
  }

  /** See {@link PartitionLog#offsetForTimestamp}; the caller holds the log's lock. */
  Optional<TimestampAndOffset> offsetForTimestampLocked(long targetTimestampMs) throws IOException {
    if (targetTimestampMs == -2) {
      return Optional.of(
          new TimestampAndOffset(-1, log.logStartOffset(), RecordBatch.NO_PARTITION_LEADER_EPOCH));
    }
    if (targetTimestampMs == -1) {
      return Optional.of(
          new TimestampAndOffset(-1, log.logEndOffset(), RecordBatch.NO_PARTITION_LEADER_EPOCH));
    }
    if (targetTimestampMs < 0) {
      throw new IllegalArgumentException("unsupported target timestamp " + targetTimestampMs);
    }
    for (LogSegment segment : segments.values()) {
      if (segment.maxTimestampSoFar() >= targetTimestampMs) {
        Optional<TimestampAndOffset> found =
            segment.findOffsetByTimestamp(targetTimestampMs, log.logStartOffset());
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }
}
