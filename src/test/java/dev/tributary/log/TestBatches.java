package dev.tributary.log;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Builds valid, uncompressed v2 batches for tests (the production builder lives elsewhere): real
 * record framing with varints, so record-level timestamp lookups work, and a correct CRC32C.
 */
final class TestBatches {
  private TestBatches() {}

  /**
   * {@code count} records stamped {@code baseTimestampMs + i}, each with a {@code valueSize}-byte
   * value.
   */
  static ByteBuffer batch(int count, long baseTimestampMs, int valueSize) {
    long[] timestamps = new long[count];
    for (int i = 0; i < count; i++) {
      timestamps[i] = baseTimestampMs + i;
    }
    return batch(0, timestamps, valueSize, (byte) count);
  }

  static ByteBuffer batch(long baseOffset, long[] timestamps, int valueSize, byte fill) {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    long baseTimestamp = timestamps[0];
    long maxTimestamp = Arrays.stream(timestamps).max().orElseThrow();
    for (int i = 0; i < timestamps.length; i++) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      body.write(0); // attributes
      writeVarlong(body, timestamps[i] - baseTimestamp);
      writeVarlong(body, i); // offset delta
      writeVarlong(body, -1); // null key
      writeVarlong(body, valueSize);
      byte[] value = new byte[valueSize];
      Arrays.fill(value, (byte) (fill + i));
      body.writeBytes(value);
      writeVarlong(body, 0); // no headers
      writeVarlong(records, body.size());
      records.writeBytes(body.toByteArray());
    }
    byte[] recordBytes = records.toByteArray();
    ByteBuffer buffer = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + recordBytes.length);
    buffer.putLong(baseOffset);
    buffer.putInt(buffer.capacity() - RecordBatch.LOG_OVERHEAD);
    buffer.putInt(RecordBatch.NO_PARTITION_LEADER_EPOCH);
    buffer.put(RecordBatch.MAGIC_V2);
    buffer.putInt(0); // crc, below
    buffer.putShort((short) 0);
    buffer.putInt(timestamps.length - 1);
    buffer.putLong(baseTimestamp);
    buffer.putLong(maxTimestamp);
    buffer.putLong(RecordBatch.NO_PRODUCER_ID);
    buffer.putShort(RecordBatch.NO_PRODUCER_EPOCH);
    buffer.putInt(RecordBatch.NO_SEQUENCE);
    buffer.putInt(timestamps.length);
    buffer.put(recordBytes);
    buffer.flip();
    updateCrc(buffer, 0);
    return buffer;
  }

  static void updateCrc(ByteBuffer buffer, int start) {
    int size = buffer.getInt(start + RecordBatch.LENGTH_OFFSET) + RecordBatch.LOG_OVERHEAD;
    CRC32C crc = new CRC32C();
    crc.update(
        buffer.duplicate().limit(start + size).position(start + RecordBatch.ATTRIBUTES_OFFSET));
    buffer.putInt(start + RecordBatch.CRC_OFFSET, (int) crc.getValue());
  }

  static ByteBuffer concat(ByteBuffer... batches) {
    int size = Arrays.stream(batches).mapToInt(ByteBuffer::remaining).sum();
    ByteBuffer out = ByteBuffer.allocate(size);
    for (ByteBuffer batch : batches) {
      out.put(batch.duplicate());
    }
    return out.flip();
  }

  /** Copies of the batches in {@code buffer}, in order. */
  static List<RecordBatch> batches(ByteBuffer buffer) {
    List<RecordBatch> result = new ArrayList<>();
    for (RecordBatch batch : BatchIterator.strict(buffer.duplicate())) {
      ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes()).put(batch.slice()).flip();
      result.add(new RecordBatch(copy));
    }
    return result;
  }

  /**
   * The bytes of a batch from the magic byte on (what the producer wrote, minus offset and epoch).
   */
  static byte[] content(RecordBatch batch) {
    ByteBuffer slice = batch.slice();
    byte[] bytes = new byte[slice.remaining() - RecordBatch.MAGIC_OFFSET];
    slice.position(RecordBatch.MAGIC_OFFSET).get(bytes);
    return bytes;
  }

  private static void writeVarlong(ByteArrayOutputStream out, long value) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
