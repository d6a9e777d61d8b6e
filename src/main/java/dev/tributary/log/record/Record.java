package dev.tributary.log.record;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One decoded record of a v2 batch: its absolute offset, its timestamp in ms (the batch's max
 * timestamp for LogAppendTime batches, as Kafka reports it), key and value (null when absent) and
 * headers.
 *
 * <p>Key and value are read-only buffers from position 0 to their length. For uncompressed batches
 * they share the batch's bytes (no copy), so they are valid only while the batch's buffer is: copy
 * before the buffer is reused.
 */
public record Record(
    long offset, long timestamp, ByteBuffer key, ByteBuffer value, List<Header> headers) {
  /** A copy of the key bytes, or null. */
  public byte[] keyBytes() {
    return toArray(key);
  }

  /** A copy of the value bytes, or null. */
  public byte[] valueBytes() {
    return toArray(value);
  }

  private static byte[] toArray(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
