package dev.tributary.log;

import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.nio.ByteBuffer;

/**
 * Finds a record's timestamp inside a v2 batch by walking the uncompressed records' varint framing
 * (length, attributes, timestampDelta, offsetDelta, ...), without decoding keys, values or headers.
 */
final class RecordTimestamps {
  private RecordTimestamps() {}

  /**
   * The first record of {@code batch} with timestamp >= {@code targetTimestampMs} and offset >=
   * {@code minOffset}. The caller knows the batch's max timestamp reaches the target. For
   * LogAppendTime and compressed batches the answer is batch-level: (max timestamp, max(base
   * offset, minOffset)).
   */
  static TimestampAndOffset firstAtOrAfter(
      RecordBatch batch, long targetTimestampMs, long minOffset) {
    int epoch = batch.partitionLeaderEpoch();
    TimestampAndOffset batchLevel =
        new TimestampAndOffset(
            batch.maxTimestamp(), Math.max(batch.baseOffset(), minOffset), epoch);
    if (batch.isLogAppendTime() || batch.compressionType() != CompressionType.NONE) {
      return batchLevel;
    }
    ByteBuffer buffer = batch.slice();
    int position = RecordBatch.HEADER_SIZE;
    try {
      for (int i = 0; i < batch.recordCount() && position < buffer.limit(); i++) {
        buffer.position(position);
        int length = readVarint(buffer);
        int bodyStart = buffer.position();
        buffer.get(); // attributes
        long timestamp = batch.baseTimestamp() + readVarlong(buffer);
        long offset = batch.baseOffset() + readVarint(buffer);
        if (timestamp >= targetTimestampMs && offset >= minOffset) {
          return new TimestampAndOffset(timestamp, offset, epoch);
        }
        position = bodyStart + length;
      }
    } catch (RuntimeException e) {
      // Opaque or malformed records: fall back to the batch-level answer, which never skips a
      // record.
      return batchLevel;
    }
    return batchLevel;
  }

  static int readVarint(ByteBuffer buffer) {
    int value = 0;
    int shift = 0;
    while (true) {
      byte b = buffer.get();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
      shift += 7;
      if (shift > 28) {
        throw new CorruptRecordException("varint too long");
      }
    }
  }

  static long readVarlong(ByteBuffer buffer) {
    long value = 0;
    int shift = 0;
    while (true) {
      byte b = buffer.get();
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
      shift += 7;
      if (shift > 63) {
        throw new CorruptRecordException("varlong too long");
      }
    }
  }
}
