package dev.tributary.api;

import java.nio.ByteBuffer;
import java.util.Arrays;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * A growable byte array that the record reads write their JSON into, one token at a time, in the
 * fixed shape of a record read. It exists for speed: a read of 100-byte records spent about half of
 * the broker's CPU in Jackson's generic generator (base64 through its output buffer, the topic
 * escaped again for every record, the buffer copied into a stream that then copied itself again).
 * Here base64 and numbers are written straight into the array, strings are escaped by Jackson's own
 * encoder (so the escaping is Jackson's), and the array is handed to the response without a copy
 * ({@link RenderedJson}).
 *
 * <p>Not thread-safe: one per rendered answer.
 */
final class JsonRecordOutput {
  private static final byte[] BASE64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] NULL = ascii("null");
  private static final byte[] LONG_MIN_VALUE = ascii(Long.toString(Long.MIN_VALUE));

  /** Invariant: {@code 0 <= size <= buffer.length}; bytes {@code [0, size)} are the JSON so far. */
  private byte[] buffer;

  private int size;

  JsonRecordOutput(int expectedBytes) {
    this.buffer = new byte[Math.max(64, expectedBytes)];
  }

  static byte[] ascii(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** A string as a quoted JSON string's bytes, escaped as Jackson escapes it. */
  static byte[] quoted(String s) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(s);
    byte[] out = new byte[escaped.length + 2];
    out[0] = '"';
    System.arraycopy(escaped, 0, out, 1, escaped.length);
    out[out.length - 1] = '"';
    return out;
  }

  void write(byte b) {
    ensureRoom(1);
    buffer[size++] = b;
  }

  void write(byte[] bytes) {
    write(bytes, 0, bytes.length);
  }

  void write(byte[] bytes, int offset, int length) {
    ensureRoom(length);
    System.arraycopy(bytes, offset, buffer, size, length);
    size += length;
  }

  void writeNull() {
    write(NULL);
  }

  /** A JSON number: the decimal digits of {@code value}, without a String in between. */
  void writeNumber(long value) {
    if (value == Long.MIN_VALUE) {
      write(LONG_MIN_VALUE);
      return;
    }
    ensureRoom(20);
    if (value < 0) {
      buffer[size++] = '-';
      value = -value;
    }
    int digits = 1;
    for (long rest = value / 10; rest != 0; rest /= 10) {
      digits++;
    }
    int at = size + digits;
    do {
      buffer[--at] = (byte) ('0' + (int) (value % 10));
      value /= 10;
    } while (value != 0);
    size += digits;
  }

  /** The bytes as a quoted base64 string (standard alphabet, padded, no line breaks). */
  void writeBase64(ByteBuffer bytes) {
    if (bytes.hasArray()) {
      writeBase64(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    } else {
      byte[] copy = new byte[bytes.remaining()];
      bytes.duplicate().get(copy);
      writeBase64(copy, 0, copy.length);
    }
  }

  void writeBase64(byte[] src, int offset, int length) {
    ensureRoom(base64Length(length) + 2);
    byte[] dst = buffer;
    int d = size;
    dst[d++] = '"';
    int s = offset;
    int wholeEnd = offset + length / 3 * 3;
    while (s < wholeEnd) {
      int bits = (src[s] & 0xff) << 16 | (src[s + 1] & 0xff) << 8 | (src[s + 2] & 0xff);
      s += 3;
      dst[d] = BASE64[bits >>> 18];
      dst[d + 1] = BASE64[(bits >>> 12) & 0x3f];
      dst[d + 2] = BASE64[(bits >>> 6) & 0x3f];
      dst[d + 3] = BASE64[bits & 0x3f];
      d += 4;
    }
    int left = offset + length - s;
    if (left > 0) {
      int bits = (src[s] & 0xff) << 16 | (left == 2 ? (src[s + 1] & 0xff) << 8 : 0);
      dst[d] = BASE64[bits >>> 18];
      dst[d + 1] = BASE64[(bits >>> 12) & 0x3f];
      dst[d + 2] = left == 2 ? BASE64[(bits >>> 6) & 0x3f] : (byte) '=';
      dst[d + 3] = '=';
      d += 4;
    }
    dst[d++] = '"';
    size = d;
  }

  static int base64Length(int length) {
    return (length + 2) / 3 * 4;
  }

  /** What was written, without copying it. */
  RenderedJson rendered() {
    return new RenderedJson(buffer, size);
  }

  /** A copy of what was written (for tests and callers that need an exact array). */
  byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  private void ensureRoom(int more) {
    if (buffer.length - size < more) {
      // Doubling keeps the copies few; the first estimate is meant to be enough.
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
    }
  }
}
