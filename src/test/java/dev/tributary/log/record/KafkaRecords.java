package dev.tributary.log.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * kafka-clients 4.4 as the reference writer and reader of v2 batches, in terms of our types.
 * Test-only.
 */
final class KafkaRecords {
  private KafkaRecords() {}

  static Compression compression(CompressionType type) {
    return Compression.of(org.apache.kafka.common.record.internal.CompressionType.forId(type.id))
        .build();
  }

  /**
   * One batch written by kafka-clients' MemoryRecordsBuilder: CreateTime, non-transactional, no
   * producer id.
   */
  static ByteBuffer build(
      List<SimpleRecord> records, CompressionType type, long baseOffset, int leaderEpoch) {
    return build(records, type, TimestampType.CREATE_TIME, baseOffset, leaderEpoch);
  }

  static ByteBuffer build(
      List<SimpleRecord> records,
      CompressionType type,
      TimestampType timestampType,
      long baseOffset,
      int epoch) {
    org.apache.kafka.common.record.internal.SimpleRecord[] kafka =
        new org.apache.kafka.common.record.internal.SimpleRecord[records.size()];
    for (int i = 0; i < kafka.length; i++) {
      SimpleRecord r = records.get(i);
      org.apache.kafka.common.header.Header[] headers =
          r.headers().stream()
              .map(h -> new RecordHeader(h.key(), h.value()))
              .toArray(org.apache.kafka.common.header.Header[]::new);
      kafka[i] =
          new org.apache.kafka.common.record.internal.SimpleRecord(
              r.timestamp(), r.key(), r.value(), headers);
    }
    MemoryRecords built =
        MemoryRecords.withRecords(
            org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
            baseOffset,
            compression(type),
            timestampType,
            RecordBatch.NO_PRODUCER_ID,
            RecordBatch.NO_PRODUCER_EPOCH,
            RecordBatch.NO_SEQUENCE,
            epoch,
            false,
            kafka);
    return built.buffer();
  }

  /** The single batch in {@code buffer}, checked with kafka-clients' {@code ensureValid()}. */
  static MutableRecordBatch onlyBatch(ByteBuffer buffer) {
    List<MutableRecordBatch> batches = new ArrayList<>();
    MemoryRecords.readableRecords(buffer.duplicate()).batches().forEach(batches::add);
    assertThat(batches).hasSize(1);
    MutableRecordBatch batch = batches.get(0);
    batch.ensureValid();
    return batch;
  }

  /**
   * The records of {@code buffer}'s single batch as kafka-clients decodes them, converted to our
   * type.
   */
  static List<Record> read(ByteBuffer buffer) {
    List<Record> records = new ArrayList<>();
    for (org.apache.kafka.common.record.internal.Record r : onlyBatch(buffer)) {
      List<Header> headers = new ArrayList<>();
      for (org.apache.kafka.common.header.Header h : r.headers()) {
        headers.add(new Header(h.key(), h.value()));
      }
      records.add(new Record(r.offset(), r.timestamp(), r.key(), r.value(), headers));
    }
    return records;
  }

  /**
   * What decoding a batch of {@code records} starting at {@code baseOffset} must give (CreateTime).
   */
  static List<Record> expected(List<SimpleRecord> records, long baseOffset) {
    List<Record> expected = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      SimpleRecord r = records.get(i);
      expected.add(
          new Record(baseOffset + i, r.timestamp(), wrap(r.key()), wrap(r.value()), r.headers()));
    }
    return expected;
  }

  private static ByteBuffer wrap(byte[] bytes) {
    return bytes == null ? null : ByteBuffer.wrap(bytes);
  }
}
