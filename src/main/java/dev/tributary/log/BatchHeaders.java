package dev.tributary.log;

import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Finding batches in a segment's log file by reading their headers only (Kafka's
 * FileRecords.searchForOffsetWithSize, and the walk that keeps a fetch to whole batches). The
 * callers bound every scan by the segment's committed size.
 */
final class BatchHeaders {
  private BatchHeaders() {}

  /** How much of the file {@link #endOfBatches} reads at once when it must read headers. */
  static final int WINDOW_BYTES = 8192;

  /** Header facts of one stored batch and where it starts. */
  record BatchPosition(int position, RecordBatch header) {}

  /**
   * The first batch at or after {@code startingPosition} whose last offset is >= {@code offset},
   * scanning headers below {@code maxPosition}; null if there is none.
   */
  static BatchPosition translateOffset(
      FileChannel channel, Path file, long offset, int startingPosition, int maxPosition)
      throws IOException {
    int position = startingPosition;
    while (position + RecordBatch.HEADER_SIZE <= maxPosition) {
      ByteBuffer header = FileIo.readFully(channel, position, RecordBatch.HEADER_SIZE);
      RecordBatch batch = new RecordBatch(header, 0);
      if (batch.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
        throw badLength(file, position);
      }
      if (batch.lastOffset() >= offset) {
        return new BatchPosition(position, batch);
      }
      position += batch.sizeInBytes();
    }
    return null;
  }

  /**
   * The end of the whole batches from {@code from} (a batch start) that lie below {@code limit},
   * stopping before the first whose last offset is >= {@code maxOffset}. Headers come from {@code
   * window} (the file's bytes from {@code from}: a read that already holds them all reads nothing
   * more) and, past its end, from windows of {@link #WINDOW_BYTES} read from the file.
   */
  static int endOfBatches(
      FileChannel channel, Path file, ByteBuffer window, int from, int limit, long maxOffset)
      throws IOException {
    return batchesEnd(channel, file, window, from, limit, maxOffset).position();
  }

  /**
   * Where {@link #endOfBatches} stops, and the offset after the last batch it passed (-1 if none).
   */
  record BatchesEnd(int position, long nextOffset) {}

  /** {@link #endOfBatches}, with the offset after the last whole batch. */
  static BatchesEnd batchesEnd(
      FileChannel channel, Path file, ByteBuffer window, int from, int limit, long maxOffset)
      throws IOException {
    int windowStart = from;
    int end = from;
    long nextOffset = -1;
    while (limit - end >= RecordBatch.HEADER_SIZE) {
      if (end + RecordBatch.HEADER_SIZE > windowStart + window.limit()) {
        windowStart = end;
        window = FileIo.readFully(channel, end, Math.min(WINDOW_BYTES, limit - end));
      }
      RecordBatch batch = new RecordBatch(window, end - windowStart);
      if (batch.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
        throw badLength(file, end);
      }
      if (limit - end < batch.sizeInBytes() || batch.lastOffset() >= maxOffset) {
        break;
      }
      end += batch.sizeInBytes();
      nextOffset = batch.lastOffset() + 1;
    }
    return new BatchesEnd(end, nextOffset);
  }

  private static CorruptRecordException badLength(Path file, int position) {
    return new CorruptRecordException(
        "batch at position " + position + " of " + file + " has a bad length");
  }
}
