package dev.tributary.log.record;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Walks consecutive v2 batches in a buffer without copying. It checks framing only (a whole header
 * and a whole batch must be present); call {@link RecordBatch#validate()} on each batch to check
 * its CRC.
 *
 * <p>A trailing partial batch ends the iteration when {@code allowPartialTail} is set (a read that
 * stopped at a byte limit, or a log tail torn by a crash); otherwise it throws {@link
 * CorruptRecordException}.
 */
public final class BatchIterator implements Iterator<RecordBatch> {
  private final ByteBuffer buffer;
  private final boolean allowPartialTail;
  private int next;
  private RecordBatch pending;

  public BatchIterator(ByteBuffer buffer, boolean allowPartialTail) {
    this.buffer = buffer;
    this.allowPartialTail = allowPartialTail;
    this.next = buffer.position();
  }

  /** Iterates all batches of {@code buffer}; any incomplete bytes at the end are an error. */
  public static Iterable<RecordBatch> strict(ByteBuffer buffer) {
    return () -> new BatchIterator(buffer, false);
  }

  /** Iterates the complete batches of {@code buffer}, ignoring an incomplete tail. */
  public static Iterable<RecordBatch> lenient(ByteBuffer buffer) {
    return () -> new BatchIterator(buffer, true);
  }

  @Override
  public boolean hasNext() {
    if (pending != null) {
      return true;
    }
    int remaining = buffer.limit() - next;
    if (remaining == 0) {
      return false;
    }
    if (remaining < RecordBatch.HEADER_SIZE) {
      return partialTail("incomplete batch header: " + remaining + " bytes");
    }
    int length = buffer.getInt(next + RecordBatch.LENGTH_OFFSET);
    if (length < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
      throw new CorruptRecordException("batch at byte " + next + " has invalid length " + length);
    }
    if ((long) remaining < RecordBatch.LOG_OVERHEAD + (long) length) {
      return partialTail(
          "incomplete batch: "
              + remaining
              + " of "
              + (RecordBatch.LOG_OVERHEAD + length)
              + " bytes");
    }
    pending = new RecordBatch(buffer, next);
    next += pending.sizeInBytes();
    return true;
  }

  private boolean partialTail(String what) {
    if (allowPartialTail) {
      next = buffer.limit();
      return false;
    }
    throw new CorruptRecordException(what);
  }

  @Override
  public RecordBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    RecordBatch batch = pending;
    pending = null;
    return batch;
  }
}
