package dev.tributary.log.record;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Our codec and kafka-clients 4.4 read each other's v2 batches, for every compression type. */
class RecordBatchCompatibilityTest {
  private static final long BASE_OFFSET = 1_000L;
  private static final int LEADER_EPOCH = 7;

  /** Nulls, empties, headers with null values, a timestamp below the base and a long value. */
  static List<SimpleRecord> awkwardRecords() {
    return List.of(
        new SimpleRecord(1_700_000_000_000L, bytes("k0"), bytes("v0")),
        new SimpleRecord(1_700_000_000_500L, null, bytes("value without key")),
        new SimpleRecord(1_699_999_999_000L, bytes("tombstone"), null),
        new SimpleRecord(1_700_000_000_100L, bytes(""), new byte[0]),
        new SimpleRecord(
            1_700_000_000_200L,
            bytes("with-headers"),
            bytes("x".repeat(70_000)),
            List.of(
                new Header("trace", bytes("abc")),
                new Header("empty", new byte[0]),
                new Header("nil", null))),
        new SimpleRecord(
            1_700_000_000_300L, null, null, List.of(new Header("ünïcode-ключ", bytes("ok")))));
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void batchWeBuildIsReadByKafkaClients(CompressionType type) {
    List<SimpleRecord> records = awkwardRecords();
    ByteBuffer built = RecordBatchBuilder.build(records, type, BASE_OFFSET, LEADER_EPOCH);

    MutableRecordBatch kafka = KafkaRecords.onlyBatch(built);
    assertThat(kafka.baseOffset()).isEqualTo(BASE_OFFSET);
    assertThat(kafka.lastOffset()).isEqualTo(BASE_OFFSET + records.size() - 1);
    assertThat(kafka.partitionLeaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat((int) kafka.compressionType().id).isEqualTo(type.id);
    assertThat(kafka.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
    assertThat(kafka.maxTimestamp()).isEqualTo(1_700_000_000_500L);
    assertThat(kafka.producerId()).isEqualTo(-1L);
    assertThat(kafka.producerEpoch()).isEqualTo((short) -1);
    assertThat(kafka.baseSequence()).isEqualTo(-1);
    assertThat(kafka.isTransactional()).isFalse();
    assertThat(kafka.countOrNull()).isEqualTo(records.size());
    assertThat(KafkaRecords.read(built)).isEqualTo(KafkaRecords.expected(records, BASE_OFFSET));
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void batchKafkaClientsBuildIsReadByUs(CompressionType type) {
    List<SimpleRecord> records = awkwardRecords();
    ByteBuffer kafka = KafkaRecords.build(records, type, BASE_OFFSET, LEADER_EPOCH);

    RecordBatch batch = new RecordBatch(kafka);
    batch.validate();
    assertThat(batch.sizeInBytes()).isEqualTo(kafka.remaining());
    assertThat(batch.baseOffset()).isEqualTo(BASE_OFFSET);
    assertThat(batch.partitionLeaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(batch.compressionType()).isEqualTo(type);
    assertThat(batch.baseTimestamp()).isEqualTo(records.get(0).timestamp());
    assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_500L);
    assertThat(batch.records()).isEqualTo(KafkaRecords.expected(records, BASE_OFFSET));
  }

  @Test
  void uncompressedBatchIsByteForByteWhatKafkaClientsWrite() {
    List<SimpleRecord> records = awkwardRecords();
    assertThat(RecordBatchBuilder.build(records, CompressionType.NONE, BASE_OFFSET, LEADER_EPOCH))
        .isEqualTo(KafkaRecords.build(records, CompressionType.NONE, BASE_OFFSET, LEADER_EPOCH));
  }

  @Test
  void anIdempotentProducersBatchIsByteForByteWhatKafkaClientsWrite() {
    List<SimpleRecord> records = awkwardRecords();
    org.apache.kafka.common.record.internal.SimpleRecord[] kafka =
        records.stream()
            .map(
                r ->
                    new org.apache.kafka.common.record.internal.SimpleRecord(
                        r.timestamp(),
                        r.key(),
                        r.value(),
                        r.headers().stream()
                            .map(
                                h ->
                                    new org.apache.kafka.common.header.internals.RecordHeader(
                                        h.key(), h.value()))
                            .toArray(org.apache.kafka.common.header.Header[]::new)))
            .toArray(org.apache.kafka.common.record.internal.SimpleRecord[]::new);
    int baseSequence = Integer.MAX_VALUE - 1; // the last sequence wraps to 0 and beyond
    ByteBuffer expected =
        MemoryRecords.withIdempotentRecords(
                org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                BASE_OFFSET,
                KafkaRecords.compression(CompressionType.NONE),
                77L,
                (short) 3,
                baseSequence,
                LEADER_EPOCH,
                kafka)
            .buffer();

    ByteBuffer built =
        RecordBatchBuilder.build(
            records, CompressionType.NONE, BASE_OFFSET, LEADER_EPOCH, 77L, (short) 3, baseSequence);

    assertThat(built).isEqualTo(expected);
    RecordBatch batch = new RecordBatch(built);
    assertThat(batch.hasProducerId()).isTrue();
    assertThat(batch.lastSequence())
        .isEqualTo(KafkaRecords.onlyBatch(expected).lastSequence())
        .isEqualTo(records.size() - 3);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void setBaseOffsetAndLeaderEpochKeepTheCrcValid(CompressionType type) {
    List<SimpleRecord> records = awkwardRecords();
    ByteBuffer built =
        RecordBatchBuilder.build(records, type, 0L, RecordBatch.NO_PARTITION_LEADER_EPOCH);
    long crcBefore = new RecordBatch(built).checksum();

    RecordBatch batch = new RecordBatch(built);
    batch.setBaseOffset(5_000_000_000L);
    batch.setPartitionLeaderEpoch(42);

    batch.validate();
    assertThat(batch.checksum()).isEqualTo(crcBefore);
    MutableRecordBatch kafka = KafkaRecords.onlyBatch(built);
    assertThat(kafka.baseOffset()).isEqualTo(5_000_000_000L);
    assertThat(kafka.partitionLeaderEpoch()).isEqualTo(42);
    assertThat(KafkaRecords.read(built)).isEqualTo(KafkaRecords.expected(records, 5_000_000_000L));
    assertThat(batch.records()).isEqualTo(KafkaRecords.expected(records, 5_000_000_000L));
  }

  @Test
  void uncompressedKeysAndValuesAreReadOnlyViewsOfTheBatch() {
    ByteBuffer built =
        RecordBatchBuilder.build(
            List.of(new SimpleRecord(1L, bytes("key"), bytes("value"))),
            CompressionType.NONE,
            0L,
            0);
    Record record = new RecordBatch(built).records().get(0);
    assertThat(record.key().isReadOnly()).isTrue();
    assertThat(record.value().isReadOnly()).isTrue();

    // No copy: a byte changed in the batch shows through the decoded value.
    int valueAt = built.limit() - 1 /* header count */ - 1;
    built.put(valueAt, (byte) 'E');
    assertThat(record.valueBytes()).isEqualTo(bytes("valuE"));
  }

  @Test
  void logAppendTimeRecordsTakeTheBatchMaxTimestamp() {
    List<SimpleRecord> records =
        List.of(
            new SimpleRecord(10L, bytes("a"), bytes("1")),
            new SimpleRecord(20L, bytes("b"), bytes("2")));
    ByteBuffer kafka =
        KafkaRecords.build(records, CompressionType.NONE, TimestampType.LOG_APPEND_TIME, 0L, 0);
    RecordBatch batch = new RecordBatch(kafka);

    assertThat(batch.isLogAppendTime()).isTrue();
    assertThat(batch.records())
        .extracting(Record::timestamp)
        .containsExactly(batch.maxTimestamp(), batch.maxTimestamp());
    assertThat(batch.records())
        .extracting(Record::timestamp)
        .isEqualTo(KafkaRecords.read(kafka).stream().map(Record::timestamp).toList());
  }

  @Test
  void transactionMarkerBatchDecodesAsAControlBatch() {
    ByteBuffer marker =
        MemoryRecords.withEndTransactionMarker(
                77L,
                1_234L,
                3,
                9L,
                (short) 2,
                new EndTransactionMarker(ControlRecordType.COMMIT, 5))
            .buffer();
    RecordBatch batch = new RecordBatch(marker);

    batch.validate();
    assertThat(batch.isControlBatch()).isTrue();
    assertThat(batch.isTransactional()).isTrue();
    assertThat(batch.baseOffset()).isEqualTo(77L);
    List<Record> records = batch.records();
    assertThat(records).hasSize(1);
    assertThat(records.get(0).offset()).isEqualTo(77L);
    // Control record key: version int16 (0), type int16 (COMMIT = 1).
    assertThat(records.get(0).keyBytes()).containsExactly(0, 0, 0, 1);
  }

  @Test
  void emptyOrMissingRecordsAreRejected() {
    assertThatThrownBy(() -> RecordBatchBuilder.build(List.of(), CompressionType.NONE, 0L, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RecordBatchBuilder.build(null, CompressionType.NONE, 0L, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void batchesFollowEachOtherInOneBuffer() {
    ByteBuffer first = RecordBatchBuilder.build(awkwardRecords(), CompressionType.NONE, 0L, 1);
    ByteBuffer second = RecordBatchBuilder.build(awkwardRecords(), CompressionType.LZ4, 6L, 1);
    ByteBuffer both =
        ByteBuffer.allocate(first.remaining() + second.remaining()).put(first).put(second).flip();

    long next = 0;
    for (RecordBatch batch : BatchIterator.strict(both)) {
      batch.validate();
      assertThat(batch.records().get(0).offset()).isEqualTo(next);
      next = batch.nextOffset();
    }
    assertThat(next).isEqualTo(12L);
    assertThat(MemoryRecords.readableRecords(both).records()).hasSize(12);
  }

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
