package dev.tributary.log.record;

import java.nio.ByteBuffer;

/**
 * Zigzag varints as the v2 record format uses them (Protocol Buffers encoding): 7 bits per byte,
 * least significant group first, high bit set on every byte but the last; zigzag maps small
 * negative numbers to small unsigned ones ({@code -1 -> 1}), so the "absent" length -1 takes one
 * byte. Stateless, thread-safe.
 */
final class ByteUtils {
  /** An int needs at most 5 varint bytes, a long at most 10; more means the framing is corrupt. */
  private static final int MAX_VARINT_BYTES = 5;

  private static final int MAX_VARLONG_BYTES = 10;

  private ByteUtils() {}

  static int sizeOfVarint(int value) {
    int v = (value << 1) ^ (value >> 31);
    // One byte per started group of 7 bits; 32 - nlz is the number of significant bits (at least
    // 1).
    int bits = 32 - Integer.numberOfLeadingZeros(v | 1);
    return (bits + 6) / 7;
  }

  static int sizeOfVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bits = 64 - Long.numberOfLeadingZeros(v | 1);
    return (bits + 6) / 7;
  }

  static void writeVarint(int value, ByteBuffer buffer) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & 0xffffff80) != 0) {
      buffer.put((byte) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    buffer.put((byte) v);
  }

  static void writeVarlong(long value, ByteBuffer buffer) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0) {
      buffer.put((byte) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    buffer.put((byte) v);
  }

  /**
   * Reads a zigzag varint at the buffer's position and advances it. Throws {@link
   * CorruptRecordException} when it runs longer than 5 bytes, and {@link
   * java.nio.BufferUnderflowException} when the buffer ends inside it.
   */
  static int readVarint(ByteBuffer buffer) {
    int raw = 0;
    for (int i = 0; i < MAX_VARINT_BYTES; i++) {
      int b = buffer.get();
      raw |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw new CorruptRecordException("varint is longer than " + MAX_VARINT_BYTES + " bytes");
  }

  /** As {@link #readVarint} for a zigzag varlong of at most 10 bytes. */
  static long readVarlong(ByteBuffer buffer) {
    long raw = 0;
    for (int i = 0; i < MAX_VARLONG_BYTES; i++) {
      long b = buffer.get();
      raw |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw new CorruptRecordException("varlong is longer than " + MAX_VARLONG_BYTES + " bytes");
  }
}
