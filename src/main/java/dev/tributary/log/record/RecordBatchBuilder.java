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
 * baseOffset. Batches are non-transactional, non-idempotent (producerId, producerEpoch and
 * baseSequence -1) and CreateTime.
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
    Objects.requireNonNull(compression, "compression");
    if (records == null || records.isEmpty()) {
      throw new IllegalArgumentException("a record batch needs at least one record");
    }
    int count = records.size();
    long baseTimestamp = records.get(0).timestamp();
    long maxTimestamp = baseTimestamp;
    // Header keys are UTF-8 encoded once here and written from this array, in the same order,
    // below.
    byte[][] headerKeys = new byte[countHeaders(records)][];
    int[] bodySizes = new int[count];
    long recordsBytes = 0;
    for (int i = 0, h = 0; i < count; i++) {
      SimpleRecord record = records.get(i);
      maxTimestamp = Math.max(maxTimestamp, record.timestamp());
      for (Header header : record.headers()) {
        headerKeys[h++] = header.key().getBytes(StandardCharsets.UTF_8);
      }
      bodySizes[i] = bodySize(record, i, baseTimestamp, headerKeys, h - record.headers().size());
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
      writeRecords(records, batch, baseTimestamp, bodySizes, headerKeys);
    } else {
      ByteBuffer raw = ByteBuffer.allocate((int) recordsBytes);
      writeRecords(records, raw, baseTimestamp, bodySizes, headerKeys);
      byte[] compressed = Codecs.compress(compression, raw.array(), raw.position());
      batch = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + compressed.length);
      batch.position(RecordBatch.HEADER_SIZE);
      batch.put(compressed);
    }
    if (batch.hasRemaining()) {
      throw new IllegalStateException(
          "sized " + batch.capacity() + " bytes but wrote " + batch.position());
    }
    writeHeader(
        batch, compression, baseOffset, partitionLeaderEpoch, count, baseTimestamp, maxTimestamp);
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
      writeVarint(i, out);
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

  private static void writeHeader(
      ByteBuffer batch,
      CompressionType compression,
      long baseOffset,
      int partitionLeaderEpoch,
      int count,
      long baseTimestamp,
      long maxTimestamp) {
    batch.putLong(RecordBatch.BASE_OFFSET_OFFSET, baseOffset);
    batch.putInt(RecordBatch.LENGTH_OFFSET, batch.position() - RecordBatch.LOG_OVERHEAD);
    batch.putInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
    batch.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC_V2);
    // Attributes: codec id in bits 0-2; CreateTime, not transactional, not control.
    batch.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) compression.id);
    batch.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, count - 1);
    batch.putLong(RecordBatch.BASE_TIMESTAMP_OFFSET, baseTimestamp);
    batch.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, maxTimestamp);
    batch.putLong(RecordBatch.PRODUCER_ID_OFFSET, RecordBatch.NO_PRODUCER_ID);
    batch.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, RecordBatch.NO_PRODUCER_EPOCH);
    batch.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, RecordBatch.NO_SEQUENCE);
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
