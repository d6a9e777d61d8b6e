package dev.tributary.log.record;

import static dev.tributary.log.record.ByteUtils.sizeOfVarint;
import static dev.tributary.log.record.ByteUtils.sizeOfVarlong;
import static dev.tributary.log.record.ByteUtils.writeVarint;
import static dev.tributary.log.record.ByteUtils.writeVarlong;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Encodes records into one v2 record batch (see {@link RecordBatch} for the header layout). Each
 * record is
 *
 * <pre>
 * length varint | attributes int8 (0) | timestampDelta varlong | offsetDelta varint
 * | keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value
 * | headerCount varint | (keyLength varint | key utf8 | valueLength varint (-1 = null) | value)*
 * </pre>
 *
 * where deltas are relative to the batch's baseTimestamp (the first record's timestamp) and
 * baseOffset. {@link #build} writes non-transactional CreateTime batches with offset deltas 0..n-1,
 * without a producer (producerId, producerEpoch and baseSequence -1) or an idempotent producer's;
 * {@link #rebuild} rewrites a stored batch with some of its records removed, for the log cleaner.
 *
 * <p>Stateless and thread-safe. On the produce path (NONE) it sizes the batch exactly, allocates
 * once, writes in place and computes the CRC once; compressed batches pay for one extra copy of the
 * records section.
 */
public final class RecordBatchBuilder {
  private RecordBatchBuilder() {}

  /**
   * One complete batch of {@code records} (non-empty) with offsets {@code baseOffset ..} and a
   * valid CRC, in a heap buffer with position 0 and limit = the batch size.
   */
  public static ByteBuffer build(
      List<SimpleRecord> records,
      CompressionType compression,
      long baseOffset,
      int partitionLeaderEpoch) {
    return build(
        records,
        compression,
        baseOffset,
        partitionLeaderEpoch,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE);
  }

  /**
   * As {@link #build(List, CompressionType, long, int)}, written by an idempotent producer: {@code
   * producerId} and {@code producerEpoch} as InitProducerId gave them, and the records numbered
   * {@code baseSequence, baseSequence + 1, ...} (the last wrapping to 0 past {@code
   * Integer.MAX_VALUE}). Not transactional.
   */
  public static ByteBuffer build(
      List<SimpleRecord> records,
      CompressionType compression,
      long baseOffset,
      int partitionLeaderEpoch,
      long producerId,
      short producerEpoch,
      int baseSequence) {
    Objects.requireNonNull(compression, "compression");
    if (records == null || records.isEmpty()) {
      throw new IllegalArgumentException("a record batch needs at least one record");
    }
    long baseTimestamp = records.get(0).timestamp();
    long maxTimestamp = baseTimestamp;
    for (SimpleRecord record : records) {
      maxTimestamp = Math.max(maxTimestamp, record.timestamp());
    }
    BatchHeader header =
        new BatchHeader(
            baseOffset,
            partitionLeaderEpoch,
            (short) compression.id,
            records.size() - 1,
            baseTimestamp,
            maxTimestamp,
            producerId,
            producerEpoch,
            baseSequence);
    return encode(records, null, compression, header);
  }

  /**
   * The batch {@code original} holding only {@code retained} (a non-empty subset of its records, in
   * offset order), as the log cleaner writes it (Kafka's MemoryRecords.filterTo): the same base
   * offset, last offset delta (so the batch still ends where it did and the next offset stays
   * right), partition leader epoch, attributes (codec, timestamp type, transactional and control
   * flags) and producer fields; each record keeps its offset delta, timestamp, key, value and
   * headers. The records are recompressed with the original codec. For CreateTime batches the base
   * and max timestamps are recomputed from the retained records; LogAppendTime batches keep both.
   */
  public static ByteBuffer rebuild(RecordBatch original, List<Record> retained) {
    if (retained.isEmpty()) {
      throw new IllegalArgumentException("a rebuilt batch needs at least one record");
    }
    List<SimpleRecord> records = new java.util.ArrayList<>(retained.size());
    int[] offsetDeltas = new int[retained.size()];
    long maxTimestamp = Long.MIN_VALUE;
    for (int i = 0; i < retained.size(); i++) {
      Record record = retained.get(i);
      long delta = record.offset() - original.baseOffset();
      if (delta < 0 || delta > original.lastOffsetDelta()) {
        throw new IllegalArgumentException(
            "record at offset " + record.offset() + " is not in " + original);
      }
      if (i > 0 && delta <= offsetDeltas[i - 1]) {
        throw new IllegalArgumentException("retained records must be in offset order");
      }
      offsetDeltas[i] = (int) delta;
      records.add(
          new SimpleRecord(
              record.timestamp(), record.keyBytes(), record.valueBytes(), record.headers()));
      maxTimestamp = Math.max(maxTimestamp, record.timestamp());
    }
    boolean logAppendTime = original.isLogAppendTime();
    BatchHeader header =
        new BatchHeader(
            original.baseOffset(),
            original.partitionLeaderEpoch(),
            original.attributes(),
            original.lastOffsetDelta(),
            logAppendTime ? original.baseTimestamp() : records.get(0).timestamp(),
            logAppendTime ? original.maxTimestamp() : maxTimestamp,
            original.producerId(),
            original.producerEpoch(),
            original.baseSequence());
    return encode(records, offsetDeltas, original.compressionType(), header);
  }

  /** The header fields of a batch being written; the length, count and CRC are computed. */
  private record BatchHeader(
      long baseOffset,
      int partitionLeaderEpoch,
      short attributes,
      int lastOffsetDelta,
      long baseTimestamp,
      long maxTimestamp,
      long producerId,
      short producerEpoch,
      int baseSequence) {}

  /** {@code offsetDeltas} null means 0..n-1. */
  private static ByteBuffer encode(
      List<SimpleRecord> records,
      int[] offsetDeltas,
      CompressionType compression,
      BatchHeader header) {
    int count = records.size();
    long baseTimestamp = header.baseTimestamp();
    // Header keys are UTF-8 encoded once here and written from this array, in the same order,
    // below.
    byte[][] headerKeys = new byte[countHeaders(records)][];
    int[] bodySizes = new int[count];
    long recordsBytes = 0;
    for (int i = 0, h = 0; i < count; i++) {
      SimpleRecord record = records.get(i);
      for (Header recordHeader : record.headers()) {
        headerKeys[h++] = recordHeader.key().getBytes(StandardCharsets.UTF_8);
      }
      int offsetDelta = offsetDeltas == null ? i : offsetDeltas[i];
      bodySizes[i] =
          bodySize(record, offsetDelta, baseTimestamp, headerKeys, h - record.headers().size());
      recordsBytes += sizeOfVarint(bodySizes[i]) + bodySizes[i];
    }
    if (RecordBatch.HEADER_SIZE + recordsBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "records take " + recordsBytes + " bytes, too many for one batch");
    }

    ByteBuffer batch;
    if (compression == CompressionType.NONE) {
      batch = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + (int) recordsBytes);
      batch.position(RecordBatch.HEADER_SIZE);
      writeRecords(records, offsetDeltas, batch, baseTimestamp, bodySizes, headerKeys);
    } else {
      ByteBuffer raw = ByteBuffer.allocate((int) recordsBytes);
      writeRecords(records, offsetDeltas, raw, baseTimestamp, bodySizes, headerKeys);
      byte[] compressed = Codecs.compress(compression, raw.array(), raw.position());
      batch = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + compressed.length);
      batch.position(RecordBatch.HEADER_SIZE);
      batch.put(compressed);
    }
    if (batch.hasRemaining()) {
      throw new IllegalStateException(
          "sized " + batch.capacity() + " bytes but wrote " + batch.position());
    }
    writeHeader(batch, header, count);
    return batch.clear();
  }

  private static int countHeaders(List<SimpleRecord> records) {
    int n = 0;
    for (SimpleRecord record : records) {
      n += record.headers().size();
    }
    return n;
  }

  /** Bytes of one record after its length varint. */
  private static int bodySize(
      SimpleRecord record,
      int offsetDelta,
      long baseTimestamp,
      byte[][] headerKeys,
      int firstHeader) {
    int size =
        1 // attributes
            + sizeOfVarlong(record.timestamp() - baseTimestamp)
            + sizeOfVarint(offsetDelta)
            + sizeOfBytes(record.key())
            + sizeOfBytes(record.value())
            + sizeOfVarint(record.headers().size());
    for (int i = 0; i < record.headers().size(); i++) {
      size +=
          sizeOfBytes(headerKeys[firstHeader + i]) + sizeOfBytes(record.headers().get(i).value());
    }
    return size;
  }

  private static int sizeOfBytes(byte[] bytes) {
    return bytes == null ? 1 : sizeOfVarint(bytes.length) + bytes.length;
  }

  private static void writeRecords(
      List<SimpleRecord> records,
      int[] offsetDeltas,
      ByteBuffer out,
      long baseTimestamp,
      int[] bodySizes,
      byte[][] headerKeys) {
    int h = 0;
    for (int i = 0; i < records.size(); i++) {
      SimpleRecord record = records.get(i);
      writeVarint(bodySizes[i], out);
      out.put((byte) 0);
      writeVarlong(record.timestamp() - baseTimestamp, out);
      writeVarint(offsetDeltas == null ? i : offsetDeltas[i], out);
      writeBytes(record.key(), out);
      writeBytes(record.value(), out);
      writeVarint(record.headers().size(), out);
      for (Header header : record.headers()) {
        writeBytes(headerKeys[h++], out);
        writeBytes(header.value(), out);
      }
    }
  }

  private static void writeBytes(byte[] bytes, ByteBuffer out) {
    if (bytes == null) {
      writeVarint(-1, out);
    } else {
      writeVarint(bytes.length, out);
      out.put(bytes);
    }
  }

  private static void writeHeader(ByteBuffer batch, BatchHeader header, int count) {
    batch.putLong(RecordBatch.BASE_OFFSET_OFFSET, header.baseOffset());
    batch.putInt(RecordBatch.LENGTH_OFFSET, batch.position() - RecordBatch.LOG_OVERHEAD);
    batch.putInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, header.partitionLeaderEpoch());
    batch.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC_V2);
    // Attributes: codec id in bits 0-2, then timestamp type, transactional and control flags.
    batch.putShort(RecordBatch.ATTRIBUTES_OFFSET, header.attributes());
    batch.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, header.lastOffsetDelta());
    batch.putLong(RecordBatch.BASE_TIMESTAMP_OFFSET, header.baseTimestamp());
    batch.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, header.maxTimestamp());
    batch.putLong(RecordBatch.PRODUCER_ID_OFFSET, header.producerId());
    batch.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, header.producerEpoch());
    batch.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, header.baseSequence());
    batch.putInt(RecordBatch.RECORDS_COUNT_OFFSET, count);
    // The CRC covers attributes to the end; base offset and leader epoch stay outside so they can
    // change later.
    CRC32C crc = new CRC32C();
    crc.update(
        batch.array(),
        RecordBatch.ATTRIBUTES_OFFSET,
        batch.position() - RecordBatch.ATTRIBUTES_OFFSET);
    batch.putInt(RecordBatch.CRC_OFFSET, (int) crc.getValue());
  }
}
