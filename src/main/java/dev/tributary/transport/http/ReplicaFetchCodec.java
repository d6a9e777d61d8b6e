package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.replication.ReplicaFetch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary bodies of replica fetch and OffsetsForLeaderEpoch (big-endian, Kafka-like; version 0).
 * Record batches travel exactly as stored, never re-encoded: the follower appends the very bytes
 * the leader read from its segment. See docs/adr/0008-replica-fetch-and-truncation.md.
 *
 * <pre>
 * FetchRequest      version:int16 replicaId:int32 brokerEpoch:int64 maxWaitMs:int32 maxBytes:int32
 *                   count:int32 [topic:string partition:int32 currentLeaderEpoch:int32 fetchOffset:int64 maxBytes:int32]
 * FetchResponse     version:int16 error:int16 count:int32 [topic:string partition:int32 error:int16
 *                   highWatermark:int64 logStartOffset:int64 logEndOffset:int64 leaderEpoch:int32 size:int32 records]
 * EpochRequest      version:int16 replicaId:int32 brokerEpoch:int64
 *                   count:int32 [topic:string partition:int32 currentLeaderEpoch:int32 leaderEpoch:int32]
 * EpochResponse     version:int16 error:int16 count:int32 [topic:string partition:int32 error:int16 leaderEpoch:int32
 *                   endOffset:int64 logStartOffset:int64]
 * string            length:int16 UTF-8 bytes
 * </pre>
 *
 * A body that does not parse throws {@link IllegalArgumentException}; nothing is applied from it.
 */
public final class ReplicaFetchCodec {
  private static final short VERSION = 0;
  private static final int MAX_PARTITIONS = 100_000;

  private ReplicaFetchCodec() {}

  public static byte[] encode(ReplicaFetch.Request request) {
    BinaryWire.Writer out = new BinaryWire.Writer(24 + request.partitions().size() * 48);
    out.buffer
        .putShort(VERSION)
        .putInt(request.replicaId())
        .putLong(request.brokerEpoch())
        .putInt(request.maxWaitMs())
        .putInt(request.maxBytes())
        .putInt(request.partitions().size());
    for (ReplicaFetch.PartitionRequest p : request.partitions()) {
      out.topicPartition(p.topicPartition());
      out.ensure(16);
      out.buffer.putInt(p.currentLeaderEpoch()).putLong(p.fetchOffset()).putInt(p.maxBytes());
    }
    return out.toArray();
  }

  public static ReplicaFetch.Request decodeRequest(ByteBuffer body) {
    return parse(
        body,
        in -> {
          version(in);
          int replicaId = in.getInt();
          long brokerEpoch = in.getLong();
          int maxWaitMs = in.getInt();
          int maxBytes = in.getInt();
          int count = count(in);
          List<ReplicaFetch.PartitionRequest> partitions = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            TopicPartition tp = topicPartition(in);
            partitions.add(
                new ReplicaFetch.PartitionRequest(tp, in.getInt(), in.getLong(), in.getInt()));
          }
          return new ReplicaFetch.Request(replicaId, brokerEpoch, maxWaitMs, maxBytes, partitions);
        });
  }

  /**
   * Encodes a response for sending: the header and every partition's fields into one small buffer;
   * each partition's batches stay where they are, to be written from there by {@link
   * EncodedFetchResponse#writeTo}, never gathered into one array with the rest.
   */
  public static EncodedFetchResponse encode(ReplicaFetch.Response response) {
    List<ReplicaFetch.PartitionResponse> partitions = response.partitions();
    BinaryWire.Writer out = new BinaryWire.Writer(8 + partitions.size() * 64);
    out.buffer.putShort(VERSION).putShort(response.error().code()).putInt(partitions.size());
    int[] fieldsEnd = new int[partitions.size()];
    List<ByteBuffer> records = new ArrayList<>(partitions.size());
    for (int i = 0; i < partitions.size(); i++) {
      ReplicaFetch.PartitionResponse p = partitions.get(i);
      ByteBuffer batches = p.records().duplicate();
      out.topicPartition(p.topicPartition());
      out.ensure(38);
      out.buffer
          .putShort(p.error().code())
          .putLong(p.highWatermark())
          .putLong(p.logStartOffset())
          .putLong(p.logEndOffset())
          .putInt(p.leaderEpoch())
          .putInt(batches.remaining());
      fieldsEnd[i] = out.buffer.position();
      records.add(batches);
    }
    return new EncodedFetchResponse(out.buffer.flip(), fieldsEnd, records);
  }

  /**
   * A fetch response ready to send, its size known before a byte is written (the HTTP answer
   * declares it rather than going chunked). The bytes are those of the FetchResponse above.
   */
  public static final class EncodedFetchResponse {
    /** The header and each partition's fields, partition i's ending at {@code fieldsEnd[i]}. */
    private final ByteBuffer fields;

    private final int[] fieldsEnd;

    /** Partition i's batches, written after its fields: views of the leader's reads. */
    private final List<ByteBuffer> records;

    private final long sizeInBytes;

    private EncodedFetchResponse(ByteBuffer fields, int[] fieldsEnd, List<ByteBuffer> records) {
      this.fields = fields;
      this.fieldsEnd = fieldsEnd;
      this.records = records;
      long size = fields.remaining();
      for (ByteBuffer batches : records) {
        size += batches.remaining();
      }
      this.sizeInBytes = size;
    }

    public long sizeInBytes() {
      return sizeInBytes;
    }

    /**
     * Writes the whole body to {@code out}: fields, then each partition's batches straight from
     * their buffers. Writes duplicates, so no buffer's position moves (they may be shared, and this
     * may be called again).
     */
    public void writeTo(WritableByteChannel out) throws IOException {
      ByteBuffer pending = fields.duplicate();
      for (int i = 0; i < fieldsEnd.length; i++) {
        writeFully(pending.limit(fieldsEnd[i]), out);
        writeFully(records.get(i).duplicate(), out);
      }
      writeFully(pending.limit(fields.limit()), out); // the header alone, when no partitions
    }

    private static void writeFully(ByteBuffer buffer, WritableByteChannel out) throws IOException {
      while (buffer.hasRemaining()) {
        out.write(buffer);
      }
    }
  }

  /** Parses a response; each partition's records are a view of {@code body} (no copy). */
  public static ReplicaFetch.Response decodeResponse(ByteBuffer body) {
    return parse(
        body,
        in -> {
          version(in);
          Errors error = Errors.forCode(in.getShort());
          int count = count(in);
          List<ReplicaFetch.PartitionResponse> partitions = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            TopicPartition tp = topicPartition(in);
            Errors partitionError = Errors.forCode(in.getShort());
            long highWatermark = in.getLong();
            long logStartOffset = in.getLong();
            long logEndOffset = in.getLong();
            int leaderEpoch = in.getInt();
            int size = in.getInt();
            if (size < 0 || size > in.remaining()) {
              throw new IllegalArgumentException(
                  "records of " + tp + " claim " + size + " bytes; " + in.remaining() + " left");
            }
            ByteBuffer records = in.slice(in.position(), size);
            in.position(in.position() + size);
            partitions.add(
                new ReplicaFetch.PartitionResponse(
                    tp,
                    partitionError,
                    highWatermark,
                    logStartOffset,
                    logEndOffset,
                    leaderEpoch,
                    records));
          }
          return new ReplicaFetch.Response(error, partitions);
        });
  }

  public static byte[] encode(ReplicaFetch.EpochRequest request) {
    BinaryWire.Writer out = new BinaryWire.Writer(18 + request.partitions().size() * 32);
    out.buffer
        .putShort(VERSION)
        .putInt(request.replicaId())
        .putLong(request.brokerEpoch())
        .putInt(request.partitions().size());
    for (ReplicaFetch.EpochPartitionRequest p : request.partitions()) {
      out.topicPartition(p.topicPartition());
      out.ensure(8);
      out.buffer.putInt(p.currentLeaderEpoch()).putInt(p.leaderEpoch());
    }
    return out.toArray();
  }

  public static ReplicaFetch.EpochRequest decodeEpochRequest(ByteBuffer body) {
    return parse(
        body,
        in -> {
          version(in);
          int replicaId = in.getInt();
          long brokerEpoch = in.getLong();
          int count = count(in);
          List<ReplicaFetch.EpochPartitionRequest> partitions = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            partitions.add(
                new ReplicaFetch.EpochPartitionRequest(
                    topicPartition(in), in.getInt(), in.getInt()));
          }
          return new ReplicaFetch.EpochRequest(replicaId, brokerEpoch, partitions);
        });
  }

  public static byte[] encode(ReplicaFetch.EpochResponse response) {
    BinaryWire.Writer out = new BinaryWire.Writer(8 + response.partitions().size() * 48);
    out.buffer
        .putShort(VERSION)
        .putShort(response.error().code())
        .putInt(response.partitions().size());
    for (ReplicaFetch.EpochPartitionResponse p : response.partitions()) {
      out.topicPartition(p.topicPartition());
      out.ensure(22);
      out.buffer
          .putShort(p.error().code())
          .putInt(p.endOffset().leaderEpoch())
          .putLong(p.endOffset().endOffset())
          .putLong(p.logStartOffset());
    }
    return out.toArray();
  }

  public static ReplicaFetch.EpochResponse decodeEpochResponse(ByteBuffer body) {
    return parse(
        body,
        in -> {
          version(in);
          Errors error = Errors.forCode(in.getShort());
          int count = count(in);
          List<ReplicaFetch.EpochPartitionResponse> partitions = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            TopicPartition tp = topicPartition(in);
            Errors partitionError = Errors.forCode(in.getShort());
            EpochEndOffset endOffset = new EpochEndOffset(in.getInt(), in.getLong());
            partitions.add(
                new ReplicaFetch.EpochPartitionResponse(
                    tp, partitionError, endOffset, in.getLong()));
          }
          return new ReplicaFetch.EpochResponse(error, partitions);
        });
  }

  private static <T> T parse(ByteBuffer body, BinaryWire.Parser<T> parser) {
    return BinaryWire.parse(body, "replica fetch", parser);
  }

  private static void version(ByteBuffer in) {
    BinaryWire.version(in, VERSION, "replica fetch");
  }

  private static int count(ByteBuffer in) {
    return BinaryWire.count(in, MAX_PARTITIONS);
  }

  private static TopicPartition topicPartition(ByteBuffer in) {
    return BinaryWire.topicPartition(in);
  }
}
