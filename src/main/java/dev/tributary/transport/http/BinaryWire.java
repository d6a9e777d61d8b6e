package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The pieces of the internal binary bodies (big-endian, Kafka-like): versions, counts, strings as
 * int16 length + UTF-8, topic-partitions, and a growable writer. A body that does not parse throws
 * {@link IllegalArgumentException}; nothing is applied from it.
 */
final class BinaryWire {
  private BinaryWire() {}

  interface Parser<T> {
    T parse(ByteBuffer in);
  }

  /** Parses all of {@code body} (its position is left alone); trailing bytes are an error. */
  static <T> T parse(ByteBuffer body, String what, Parser<T> parser) {
    ByteBuffer in = body.duplicate();
    try {
      T value = parser.parse(in);
      if (in.hasRemaining()) {
        throw new IllegalArgumentException(in.remaining() + " unexpected trailing bytes");
      }
      return value;
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("truncated " + what + " body");
    }
  }

  static void version(ByteBuffer in, short expected, String what) {
    short version = in.getShort();
    if (version != expected) {
      throw new IllegalArgumentException("unsupported " + what + " version " + version);
    }
  }

  static int count(ByteBuffer in, int max) {
    int count = in.getInt();
    if (count < 0 || count > max) {
      throw new IllegalArgumentException("invalid count " + count);
    }
    return count;
  }

  /** A string written by {@link Writer#string}; -1 length is null. */
  static String string(ByteBuffer in) {
    int length = in.getShort();
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > in.remaining()) {
      throw new IllegalArgumentException("invalid string length " + length);
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static TopicPartition topicPartition(ByteBuffer in) {
    String topic = string(in);
    if (topic == null) {
      throw new IllegalArgumentException("missing topic name");
    }
    int partition = in.getInt();
    if (partition < 0) {
      throw new IllegalArgumentException("negative partition " + partition);
    }
    return new TopicPartition(topic, partition);
  }

  static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** A growable big-endian buffer. */
  static final class Writer {
    ByteBuffer buffer;

    Writer(int initialSize) {
      buffer = ByteBuffer.allocate(Math.max(64, initialSize));
    }

    void ensure(int more) {
      if (buffer.remaining() < more) {
        ByteBuffer bigger =
            ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + more));
        buffer.flip();
        bigger.put(buffer);
        buffer = bigger;
      }
    }

    /** int16 length (-1 for null) and the UTF-8 bytes; at most 32,767 bytes. */
    void string(String value) {
      if (value == null) {
        ensure(2);
        buffer.putShort((short) -1);
        return;
      }
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      int length = Math.min(bytes.length, Short.MAX_VALUE);
      ensure(2 + length);
      buffer.putShort((short) length).put(bytes, 0, length);
    }

    void topicPartition(TopicPartition tp) {
      string(tp.topic());
      ensure(4);
      buffer.putInt(tp.partition());
    }

    byte[] toArray() {
      if (buffer.position() == buffer.capacity()) {
        return buffer.array();
      }
      byte[] exact = new byte[buffer.position()];
      System.arraycopy(buffer.array(), 0, exact, 0, exact.length);
      return exact;
    }
  }
}
