package dev.tributary.kafka;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.network.ByteBufferSend;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce versions 0–2 (the message formats before record batches): advertised, because librdkafka
 * before 2.10 turns compression off when a broker's Produce minimum is above 0 (KAFKA-18659), and
 * refused partition by partition with UNSUPPORTED_VERSION, as Kafka 4 does. kafka-clients no longer
 * reads or writes these versions, so the request is read and the answer written here by hand:
 *
 * <pre>
 * request  v0–2: acks INT16, timeout_ms INT32, [name STRING, [index INT32, records BYTES]]
 * response v0:   [name STRING, [index INT32, error_code INT16, base_offset INT64]]
 * response v1:   v0 + throttle_time_ms INT32
 * response v2:   v1 with log_append_time_ms INT64 after base_offset
 * </pre>
 *
 * Each under response header v0 (the correlation id).
 */
final class LegacyProduceRefusal {
  static final short LAST_LEGACY_VERSION = 2;

  private LegacyProduceRefusal() {}

  /** A topic's name and the partitions the request named in it, in request order. */
  record TopicPartitions(String name, List<Integer> partitions) {}

  /** The request's topics and partitions; acks=0 is {@link Request#acks()} 0. */
  record Request(short acks, List<TopicPartitions> topics) {}

  /**
   * Reads a v0–2 Produce body (after the header).
   *
   * @throws IllegalArgumentException if the body does not parse (the caller closes the connection)
   */
  static Request parse(ByteBuffer body) {
    try {
      ByteBuffer in = body.slice();
      short acks = in.getShort();
      in.getInt(); // timeout_ms
      int topicCount = count(in);
      List<TopicPartitions> topics = new ArrayList<>(topicCount);
      for (int t = 0; t < topicCount; t++) {
        String name = string(in);
        int partitionCount = count(in);
        List<Integer> partitions = new ArrayList<>(partitionCount);
        for (int p = 0; p < partitionCount; p++) {
          partitions.add(in.getInt());
          int recordsSize = in.getInt();
          if (recordsSize > 0) {
            in.position(in.position() + recordsSize); // IllegalArgumentException past the limit
          }
        }
        topics.add(new TopicPartitions(name, partitions));
      }
      return new Request(acks, topics);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("a Produce v0-2 body ended early", e);
    }
  }

  /** The size-prefixed answer: every partition UNSUPPORTED_VERSION, at the request's version. */
  static Send response(int correlationId, short version, Request request) {
    List<byte[]> names = new ArrayList<>();
    int size = 4 + 4; // correlation id, topic count
    for (TopicPartitions topic : request.topics()) {
      byte[] name = topic.name().getBytes(StandardCharsets.UTF_8);
      names.add(name);
      size += 2 + name.length + 4;
      size += topic.partitions().size() * (4 + 2 + 8 + (version >= 2 ? 8 : 0));
    }
    if (version >= 1) {
      size += 4;
    }
    ByteBuffer out = ByteBuffer.allocate(4 + size);
    out.putInt(size);
    out.putInt(correlationId);
    out.putInt(request.topics().size());
    for (int t = 0; t < request.topics().size(); t++) {
      byte[] name = names.get(t);
      out.putShort((short) name.length).put(name);
      List<Integer> partitions = request.topics().get(t).partitions();
      out.putInt(partitions.size());
      for (int partition : partitions) {
        out.putInt(partition);
        out.putShort(Errors.UNSUPPORTED_VERSION.code());
        out.putLong(-1L); // base_offset
        if (version >= 2) {
          out.putLong(-1L); // log_append_time_ms
        }
      }
    }
    if (version >= 1) {
      out.putInt(0); // throttle_time_ms
    }
    out.flip();
    return new ByteBufferSend(out);
  }

  private static int count(ByteBuffer in) {
    int count = in.getInt();
    if (count < 0 || count > in.remaining()) {
      throw new IllegalArgumentException("a Produce v0-2 array of " + count + " entries");
    }
    return count;
  }

  private static String string(ByteBuffer in) {
    short length = in.getShort();
    if (length < 0 || length > in.remaining()) {
      throw new IllegalArgumentException("a Produce v0-2 topic name of " + length + " bytes");
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
