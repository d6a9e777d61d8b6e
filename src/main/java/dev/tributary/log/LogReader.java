package dev.tributary.log;

import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The read side of one {@link LocalLog}: fetches (as bytes or as file slices), size estimates and
 * timestamp lookups. It owns no state; it reads the log's.
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

  private final LocalLog log;
  private final LogSegments segments;
  private final TruncationSequence truncations;
  private final LongSupplier logStartOffset;

  LogReader(
      LocalLog log,
      LogSegments segments,
      TruncationSequence truncations,
      LongSupplier logStartOffset) {
    this.log = log;
    this.segments = segments;
    this.truncations = truncations;
    this.logStartOffset = logStartOffset;
  }

  /** See {@link PartitionLog#read}. Takes no lock, except to wait out a running truncation. */
  LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return retrying(
        startOffset,
        (start, end, sequence) -> {
          if (startOffset == end || startOffset >= maxOffset) {
            return new LogReadInfo(ByteBuffer.allocate(0), start, end);
          }
          long bound = Math.min(maxOffset, end);
          ByteBuffer records =
              fromSegments(
                  startOffset,
                  segment -> segment.read(startOffset, maxBytes, bound, minOneBatch),
                  ByteBuffer.allocate(0));
          return records == null ? null : new LogReadInfo(records, start, end);
        });
  }

  /** See {@link PartitionLog#readFileSlice}. Lock-free, as {@link #read}. */
  LogFileSlice readFileSlice(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return retrying(
        startOffset,
        (start, end, sequence) -> {
          LogFileSlice empty = LogFileSlice.empty(start, end);
          if (startOffset == end || startOffset >= maxOffset) {
            return empty;
          }
          long bound = Math.min(maxOffset, end);
          return fromSegments(
              startOffset,
              segment -> {
                FileRange range = segment.slice(startOffset, maxBytes, bound, minOneBatch);
                if (range == null || range.sizeInBytes() == 0) {
                  return range == null ? null : empty;
                }
                return new LogFileSlice(
                    segment.channel(),
                    range.position(),
                    range.sizeInBytes(),
                    range.firstOffset(),
                    range.nextOffset(),
                    start,
                    end,
                    truncations,
                    sequence);
              },
              empty);
        });
  }

  /** One lock-free attempt, given the range it checked; null to retry. */
  private interface Attempt<T> {
    T run(long logStartOffset, long logEndOffset, long sequence) throws IOException;
  }

  /** A read of one segment: null when no batch of it reaches the start offset. */
  private interface SegmentRead<T> {
    T read(LogSegment segment) throws IOException;
  }

  /**
   * Runs {@code attempt} until it ran without overlapping a truncation, checking {@code
   * startOffset} against the range each time.
   */
  private <T> T retrying(long startOffset, Attempt<T> attempt) {
    for (int attempts = 1; ; attempts++) {
      long sequence = truncations.sequence();
      if ((sequence & 1) != 0) {
        truncations.await();
        continue;
      }
      long start = logStartOffset.getAsLong();
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
      try {
        T result = attempt.run(start, end, sequence);
        if (result != null && truncations.sequence() == sequence) {
          return result;
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
      if (attempts >= MAX_READ_ATTEMPTS) {
        throw new LogStorageException(
            "read of " + log.topicPartition() + " kept racing with deletion", null);
      }
    }
  }

  /**
   * The first non-null answer of {@code read} on the segment holding {@code startOffset} or a later
   * one; {@code pastTheEnd} when none has a batch reaching it (compaction removed them); null when
   * the segment holding it has gone (deleted under us; the caller retries).
   */
  private <T> T fromSegments(long startOffset, SegmentRead<T> read, T pastTheEnd)
      throws IOException {
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
    if (entry == null) {
      return null;
    }
    while (entry != null) {
      T result = read.read(entry.getValue());
      if (result != null) {
        return result;
      }
      entry = segments.higherEntry(entry.getKey());
    }
    return pastTheEnd;
  }

  /**
   * See {@link PartitionLog#estimatedBytesBetween}. The range is clamped to [logStartOffset,
   * logEndOffset]. Within a segment the answer is the difference of two positions; across segments
   * it is the rest of the first, the whole middle ones and the start of the last. Positions come
   * from the offset index, which knows a batch every {@code index.interval.bytes}: {@code from}
   * rounds down to the indexed batch at or below it and {@code to} up to the indexed batch at or
   * after it (or the segment's end), so the answer over-counts by less than about {@code
   * index.interval.bytes} plus one batch at each end, and is exact at segment boundaries and the
   * log end offset. Lock-free; no file is read. If it overlapped a truncation it retries a few
   * times, then answers anyway (possibly off either way: it is an estimate).
   */
  long estimatedBytesBetween(long fromOffset, long toOffset) {
    if (fromOffset >= toOffset) {
      return 0;
    }
    for (int attempts = 1; ; attempts++) {
      long sequence = truncations.sequence();
      if ((sequence & 1) != 0) {
        truncations.await();
        continue;
      }
      long from = Math.max(fromOffset, logStartOffset.getAsLong());
      long end = log.logEndOffset();
      long to = Math.min(toOffset, end);
      long bytes = from < to ? estimate(from, to, end) : 0;
      if (truncations.sequence() == sequence || attempts >= MAX_READ_ATTEMPTS) {
        return bytes;
      }
    }
  }

  /**
   * Bytes from the indexed batch at or below {@code from} to the end of its segment, whole later
   * segments, and in the segment holding {@code to} (unless {@code to} is the log end) up to the
   * indexed batch at or after {@code to} (the segment's end if there is none). Both ends round
   * outwards, so a stable log is never under-counted.
   */
  private long estimate(long from, long to, long logEndOffset) {
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(from);
    if (entry == null) {
      entry = segments.higherEntry(from); // retention removed from's segment meanwhile
    }
    long bytes = 0;
    while (entry != null && entry.getKey() < to) {
      LogSegment segment = entry.getValue();
      Map.Entry<Long, LogSegment> next = segments.higherEntry(entry.getKey());
      int endPosition = segment.size();
      if (to < logEndOffset && (next == null || to < next.getKey())) {
        OffsetIndex.OffsetPosition after = segment.offsetIndex().ceilingEntry(to);
        endPosition = after == null ? endPosition : Math.min(after.position(), endPosition);
      }
      // For a segment after from's, from is below its base offset and the lookup answers 0.
      int startPosition = segment.offsetIndex().lookup(from).position();
      bytes += Math.max(0, endPosition - startPosition);
      entry = next;
    }
    return bytes;
  }

  /** See {@link PartitionLog#offsetForTimestamp}; the caller holds the log's lock. */
  Optional<TimestampAndOffset> offsetForTimestampLocked(long targetTimestampMs) throws IOException {
    long start = logStartOffset.getAsLong();
    if (targetTimestampMs == -2) {
      return Optional.of(new TimestampAndOffset(-1, start, RecordBatch.NO_PARTITION_LEADER_EPOCH));
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
            segment.findOffsetByTimestamp(targetTimestampMs, start);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }
}
