package dev.tributary.log;

import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Batches as an idempotent producer sends them, for the producer state tests. */
final class IdempotentBatches {
  private IdempotentBatches() {}

  /**
   * {@code count} records of producer {@code producerId} in {@code epoch}, numbered from {@code
   * baseSequence}, stamped {@code timestampMs}.
   */
  static ByteBuffer batch(
      long producerId, int epoch, int baseSequence, int count, long timestampMs) {
    List<SimpleRecord> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] value =
          ("p" + producerId + "e" + epoch + "s" + (baseSequence + i))
              .getBytes(StandardCharsets.UTF_8);
      records.add(new SimpleRecord(timestampMs, null, value));
    }
    return RecordBatchBuilder.build(
        records, CompressionType.NONE, 0L, -1, producerId, (short) epoch, baseSequence);
  }

  /** A copy of {@code batch}'s bytes: an append stamps offsets into the buffer it is given. */
  static ByteBuffer copy(ByteBuffer batch) {
    ByteBuffer copy = ByteBuffer.allocate(batch.remaining());
    copy.put(batch.duplicate());
    return copy.flip();
  }
}
