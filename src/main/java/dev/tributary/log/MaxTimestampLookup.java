package dev.tributary.log;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * ListOffsets' MAX_TIMESTAMP (KIP-734): the record with the largest timestamp below a bound (the
 * high watermark), with its offset and the epoch of its batch. A segment whose largest timestamp
 * cannot beat the best found so far is skipped unread; the others' batches are scanned by header,
 * and only the winning batch's records are walked to find the record's own offset.
 *
 * <p>Called under the log's lock (ListOffsets is rare), like {@link LogReader}'s timestamp lookup.
 */
final class MaxTimestampLookup {
  private static final int CHUNK_BYTES = 1 << 20;

  private MaxTimestampLookup() {}

  static Optional<TimestampAndOffset> find(LogSegments segments, long logStartOffset, long bound)
      throws IOException {
    RecordBatch best = null;
    for (LogSegment segment : segments.values()) {
      if (segment.baseOffset() >= bound) {
        break;
      }
      if (best != null && segment.maxTimestampSoFar() <= best.maxTimestamp()) {
        continue;
      }
      long offset = Math.max(segment.baseOffset(), logStartOffset);
      while (offset < bound) {
        ByteBuffer chunk = segment.read(offset, CHUNK_BYTES, bound, true);
        if (chunk == null || !chunk.hasRemaining()) {
          break;
        }
        for (RecordBatch batch : BatchIterator.strict(chunk)) {
          if (best == null || batch.maxTimestamp() > best.maxTimestamp()) {
            best = copyOf(batch);
          }
          offset = batch.nextOffset();
        }
      }
    }
    if (best == null || best.maxTimestamp() < 0) {
      return Optional.empty();
    }
    return Optional.of(
        RecordTimestamps.firstAtOrAfter(best, best.maxTimestamp(), Math.max(logStartOffset, 0)));
  }

  /** The batch's bytes on their own, so the chunk it was read from can be dropped. */
  private static RecordBatch copyOf(RecordBatch batch) {
    ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
    copy.put(batch.slice().duplicate());
    return new RecordBatch(copy.flip(), 0);
  }
}
