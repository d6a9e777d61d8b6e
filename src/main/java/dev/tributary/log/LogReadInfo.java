package dev.tributary.log;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * The result of {@link PartitionLog#read}: whole batches, read from the segment file with one
 * positional read into a heap buffer (this holds a read-only view of it, not a copy), and the log's
 * offsets at the time of the read.
 *
 * <p>Invariant: {@code records} holds zero or more whole, consecutive batches (never a partial
 * one).
 */
public final class LogReadInfo {
  private final ByteBuffer records;
  private final long logStartOffset;
  private final long logEndOffset;

  LogReadInfo(ByteBuffer records, long logStartOffset, long logEndOffset) {
    this.records = records.asReadOnlyBuffer();
    this.logStartOffset = logStartOffset;
    this.logEndOffset = logEndOffset;
  }

  /** A read-only view of the batches (a fresh view on each call, positioned at the first byte). */
  public ByteBuffer records() {
    return records.duplicate();
  }

  public int sizeInBytes() {
    return records.remaining();
  }

  public boolean isEmpty() {
    return !records.hasRemaining();
  }

  /** Iterates the batches (zero-copy views). */
  public Iterable<RecordBatch> batches() {
    return BatchIterator.strict(records());
  }

  /** Base offset of the first batch, or -1 when empty. */
  public long firstOffset() {
    return isEmpty() ? -1 : new RecordBatch(records, records.position()).baseOffset();
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  /** The log end offset observed by the read (bytes past it are never returned). */
  public long logEndOffset() {
    return logEndOffset;
  }

  /**
   * Writes all the bytes to {@code target} (a socket, for example) and returns how many were
   * written: the buffer that the read filled. To send straight from the file with
   * FileChannel.transferTo instead, read a {@link PartitionLog#readFileSlice}.
   */
  public long transferTo(WritableByteChannel target) throws IOException {
    ByteBuffer view = records();
    long written = 0;
    while (view.hasRemaining()) {
      written += target.write(view);
    }
    return written;
  }

  @Override
  public String toString() {
    return "LogReadInfo(bytes="
        + sizeInBytes()
        + ", firstOffset="
        + firstOffset()
        + ", logStartOffset="
        + logStartOffset
        + ", logEndOffset="
        + logEndOffset
        + ")";
  }
}
