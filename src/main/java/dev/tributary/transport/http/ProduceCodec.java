package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The binary bodies of a produce forwarded from the broker a REST client reached to the partitions'
 * leader (big-endian; version 0). Batches travel as the first broker built them, and the leader
 * appends those very bytes; the answer is the leader's per-partition result with Kafka's error
 * code.
 *
 * <pre>
 * Request   version:int16 acks:int8 timeoutMs:int32 metadataOffset:int64 principal:string clientAddress:string
 *           count:int32 [topic:string partition:int32 size:int32 batches]
 * Response  version:int16 count:int32 [topic:string partition:int32 error:int16 message:string
 *           baseOffset:int64 lastOffset:int64 logAppendTimeMs:int64 logStartOffset:int64 recordCount:int32]
 * string    length:int16 (-1: null) UTF-8 bytes
 * </pre>
 */
public final class ProduceCodec {
  private static final short VERSION = 0;
  private static final int MAX_PARTITIONS = 100_000;

  private ProduceCodec() {}

  /**
   * A forwarded produce.
   *
   * @param metadataOffset the forwarding broker's applied metadata offset: the leader catches up to
   *     it before answering, so it does not refuse a partition it was just given
   */
  public record Request(
      Acks acks,
      int timeoutMs,
      long metadataOffset,
      String principal,
      String clientAddress,
      Map<TopicPartition, ByteBuffer> batches) {}

  public static byte[] encode(Request request) {
    int size = 64;
    for (Map.Entry<TopicPartition, ByteBuffer> e : request.batches().entrySet()) {
      size += 10 + BinaryWire.utf8Length(e.getKey().topic()) + e.getValue().remaining();
    }
    BinaryWire.Writer out = new BinaryWire.Writer(size);
    out.buffer
        .putShort(VERSION)
        .put(acksCode(request.acks()))
        .putInt(request.timeoutMs())
        .putLong(request.metadataOffset());
    out.string(request.principal());
    out.string(request.clientAddress());
    out.ensure(4);
    out.buffer.putInt(request.batches().size());
    for (Map.Entry<TopicPartition, ByteBuffer> e : request.batches().entrySet()) {
      out.topicPartition(e.getKey());
      ByteBuffer batches = e.getValue().duplicate();
      out.ensure(4 + batches.remaining());
      out.buffer.putInt(batches.remaining()).put(batches);
    }
    return out.toArray();
  }

  /** The batches are views of {@code body} (no copy). */
  public static Request decodeRequest(ByteBuffer body) {
    return BinaryWire.parse(
        body,
        "forwarded produce",
        in -> {
          BinaryWire.version(in, VERSION, "forwarded produce");
          Acks acks = acks(in.get());
          int timeoutMs = in.getInt();
          long metadataOffset = in.getLong();
          String principal = BinaryWire.string(in);
          String clientAddress = BinaryWire.string(in);
          int count = BinaryWire.count(in, MAX_PARTITIONS);
          Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
          for (int i = 0; i < count; i++) {
            TopicPartition tp = BinaryWire.topicPartition(in);
            int size = in.getInt();
            if (size < 0 || size > in.remaining()) {
              throw new IllegalArgumentException("invalid batch size " + size);
            }
            ByteBuffer slice = in.slice(in.position(), size);
            in.position(in.position() + size);
            if (batches.put(tp, slice) != null) {
              throw new IllegalArgumentException(tp + " appears twice");
            }
          }
          return new Request(acks, timeoutMs, metadataOffset, principal, clientAddress, batches);
        });
  }

  public static byte[] encode(Map<TopicPartition, ProducePartitionResult> response) {
    BinaryWire.Writer out = new BinaryWire.Writer(16 + response.size() * 96);
    out.buffer.putShort(VERSION).putInt(response.size());
    response.forEach(
        (tp, r) -> {
          out.topicPartition(tp);
          out.ensure(2);
          out.buffer.putShort(r.error().code());
          out.string(r.errorMessage());
          out.ensure(36);
          out.buffer
              .putLong(r.baseOffset())
              .putLong(r.lastOffset())
              .putLong(r.logAppendTimeMs())
              .putLong(r.logStartOffset())
              .putInt(r.recordCount());
        });
    return out.toArray();
  }

  public static Map<TopicPartition, ProducePartitionResult> decodeResponse(ByteBuffer body) {
    return BinaryWire.parse(
        body,
        "forwarded produce answer",
        in -> {
          BinaryWire.version(in, VERSION, "forwarded produce answer");
          int count = BinaryWire.count(in, MAX_PARTITIONS);
          Map<TopicPartition, ProducePartitionResult> results = new LinkedHashMap<>();
          for (int i = 0; i < count; i++) {
            TopicPartition tp = BinaryWire.topicPartition(in);
            Errors error = Errors.forCode(in.getShort());
            String message = BinaryWire.string(in);
            results.put(
                tp,
                new ProducePartitionResult(
                    error,
                    message,
                    in.getLong(),
                    in.getLong(),
                    in.getLong(),
                    in.getLong(),
                    in.getInt()));
          }
          return results;
        });
  }

  private static byte acksCode(Acks acks) {
    return switch (acks) {
      case NONE -> 0;
      case LEADER -> 1;
      case ALL -> -1;
    };
  }

  private static Acks acks(byte code) {
    return switch (code) {
      case 0 -> Acks.NONE;
      case 1 -> Acks.LEADER;
      case -1 -> Acks.ALL;
      default -> throw new IllegalArgumentException("invalid acks " + code);
    };
  }
}
