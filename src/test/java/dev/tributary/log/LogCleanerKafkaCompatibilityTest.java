package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.KeyedRecords.Rec;
import dev.tributary.log.record.CompressionType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The batches the cleaner rewrites are valid Kafka v2 batches: kafka-clients 4.4 checks their CRC
 * and reads the same offsets (with gaps), last offsets, epochs, codecs and records as we do.
 */
class LogCleanerKafkaCompatibilityTest {
  static final TopicPartition TP = new TopicPartition("prices", 0);
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void rewrittenBatchesAreReadByKafkaClients(CompressionType codec) {
    ManualTime time = new ManualTime(T0);
    PartitionLog log =
        PartitionLog.open(
            dir.resolve(TP.dirName()),
            TP,
            LogConfig.fromMap(
                Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "1024")),
            0,
            true,
            time);
    for (int i = 0; i < 40; i++) {
      // Four records a batch, two of them overwritten by the next batch: batches are rebuilt.
      log.appendAsLeader(
          batch(codec, T0 + i, "a", "a" + i, "b" + i, "b", "c", null, "d" + i, "d"), 7);
    }
    new LogCleaner(LogCleanerTest.UNTHROTTLED, time, () -> List.of(log), () -> {}, time::sleep)
        .cleanOnce();
    List<dev.tributary.log.record.RecordBatch> ours = KeyedRecords.batches(log);
    assertThat(ours.stream().anyMatch(b -> b.recordCount() < b.lastOffsetDelta() + 1))
        .as("some batch lost records but kept its last offset delta")
        .isTrue();

    List<Rec> read = new ArrayList<>();
    for (dev.tributary.log.record.RecordBatch batch : ours) {
      MutableRecordBatch kafka =
          MemoryRecords.readableRecords(batch.slice()).batches().iterator().next();
      kafka.ensureValid();
      assertThat(kafka.baseOffset()).isEqualTo(batch.baseOffset());
      assertThat(kafka.lastOffset()).isEqualTo(batch.lastOffset());
      assertThat(kafka.partitionLeaderEpoch()).isEqualTo(7);
      assertThat((int) kafka.compressionType().id).isEqualTo(codec.id);
      assertThat(kafka.maxTimestamp()).isEqualTo(batch.maxTimestamp());
      for (Record record : kafka) {
        read.add(
            new Rec(
                record.offset(), record.timestamp(), string(record.key()), string(record.value())));
      }
    }
    assertThat(read).isEqualTo(KeyedRecords.records(log));
    log.close();
  }

  private static String string(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
