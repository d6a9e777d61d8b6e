package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash recovery. An "unclean" restart opens a second PartitionLog on the directory without closing
 * the first (a closed log would flush and write final index entries, which a crash does not).
 */
class LogRecoveryTest {
  static final TopicPartition TP = new TopicPartition("orders", 0);
  static final long T0 = 1_700_000_000_000L;
  static final LogConfig CONFIG =
      LogConfig.fromMap(
          Map.of(LogConfig.SEGMENT_BYTES, "2048", LogConfig.INDEX_INTERVAL_BYTES, "150"));

  @TempDir Path root;
  final ManualTime time = new ManualTime(T0);

  Path dir() {
    return root.resolve(TP.dirName());
  }

  PartitionLog open(boolean clean, long recoveryPoint) {
    return PartitionLog.open(dir(), TP, CONFIG, recoveryPoint, clean, time);
  }

  /** Appends n batches of 2 records with timestamps T0 + 10i; returns their sizes. */
  static List<Integer> append(PartitionLog log, int n) {
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sizes.add(log.appendAsLeader(TestBatches.batch(2, T0 + 10L * i, 60), 0).sizeInBytes());
    }
    return sizes;
  }

  Path activeSegmentFile(PartitionLog log) {
    List<Long> bases = log.segmentBaseOffsets();
    return dir().resolve(LogSegment.fileName(bases.get(bases.size() - 1)) + LogSegment.LOG_SUFFIX);
  }

  static List<Long> readBaseOffsets(PartitionLog log) {
    List<Long> result = new ArrayList<>();
    long next = log.logStartOffset();
    while (next < log.logEndOffset()) {
      for (RecordBatch batch : log.read(next, 1 << 20, Long.MAX_VALUE, true).batches()) {
        batch.validate();
        result.add(batch.baseOffset());
        next = batch.nextOffset();
      }
    }
    return result;
  }

  static void modify(Path file, long position, java.util.function.UnaryOperator<Byte> change)
      throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      channel.write(ByteBuffer.wrap(new byte[] {change.apply(one.get(0))}), position);
    }
  }

  @Test
  void tornTailIsTruncatedToTheLastWholeBatch() throws IOException {
    PartitionLog crashed = open(true, 0);
    List<Integer> sizes = append(crashed, 10);
    Path active = activeSegmentFile(crashed);
    long fileSize = Files.size(active);
    try (FileChannel channel = FileChannel.open(active, StandardOpenOption.WRITE)) {
      channel.truncate(fileSize - sizes.get(9) / 2);
    }

    PartitionLog log = open(false, 0);

    assertThat(log.logEndOffset()).isEqualTo(18);
    assertThat(readBaseOffsets(log)).hasSize(9).last().isEqualTo(16L);
    assertThat(log.recoveryPoint()).isEqualTo(18);
    assertThat(log.appendAsLeader(TestBatches.batch(1, T0, 1), 0).firstOffset()).isEqualTo(18);
    log.close();
  }

  @Test
  void aFlippedByteInTheLastBatchFailsItsCrcAndIsTruncated() throws IOException {
    PartitionLog crashed = open(true, 0);
    List<Integer> sizes = append(crashed, 10);
    Path active = activeSegmentFile(crashed);
    long sizeBefore = Files.size(active);
    modify(active, sizeBefore - sizes.get(9) / 2, b -> (byte) (b ^ 0x10));

    PartitionLog log = open(false, 0);

    assertThat(log.logEndOffset()).isEqualTo(18);
    assertThat(Files.size(active)).isEqualTo(sizeBefore - sizes.get(9));
    assertThat(readBaseOffsets(log)).hasSize(9);
    log.close();
  }

  @Test
  void corruptionInAnOlderUnflushedSegmentDropsEverythingAfterIt() throws IOException {
    PartitionLog crashed = open(true, 0);
    append(crashed, 40);
    assertThat(crashed.numberOfSegments()).isGreaterThan(2);
    long secondBase = crashed.segmentBaseOffsets().get(1);
    // Corrupt the second batch of the second segment.
    Path second = dir().resolve(LogSegment.fileName(secondBase) + LogSegment.LOG_SUFFIX);
    int firstBatchSize = crashed.read(secondBase, 1, Long.MAX_VALUE, true).sizeInBytes();
    modify(second, firstBatchSize + RecordBatch.HEADER_SIZE + 3, b -> (byte) (b + 1));

    PartitionLog log = open(false, 0); // checkpoint says nothing was flushed

    assertThat(log.logEndOffset()).isEqualTo(secondBase + 2);
    assertThat(log.numberOfSegments()).isEqualTo(2);
    assertThat(readBaseOffsets(log)).last().isEqualTo(secondBase);
    log.close();
  }

  @Test
  void segmentsBelowTheRecoveryPointAreTrusted() throws IOException {
    PartitionLog crashed = open(true, 0);
    append(crashed, 40);
    long secondBase = crashed.segmentBaseOffsets().get(1);
    Path first = dir().resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX);
    modify(
        first,
        RecordBatch.HEADER_SIZE + 3,
        b -> (byte) (b + 1)); // payload of batch 0, inside the CRC

    PartitionLog log = open(false, secondBase);

    assertThat(log.logEndOffset())
        .as("segment 0 is below the recovery point, not revalidated")
        .isEqualTo(80);
    log.close();
  }

  @Test
  void garbageAfterTheLastBatchIsRemoved() throws IOException {
    PartitionLog crashed = open(true, 0);
    append(crashed, 5);
    Path active = activeSegmentFile(crashed);
    long size = Files.size(active);
    Files.write(
        active,
        new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9},
        StandardOpenOption.APPEND);
    Files.write(active, new byte[100], StandardOpenOption.APPEND);

    PartitionLog log = open(false, 0);

    assertThat(Files.size(active)).isEqualTo(size);
    assertThat(log.logEndOffset()).isEqualTo(10);
    assertThat(log.appendAsLeader(TestBatches.batch(1, T0, 1), 0).firstOffset()).isEqualTo(10);
    assertThat(readBaseOffsets(log)).hasSize(6);
    log.close();
  }

  @Test
  void missingIndexAndTimeIndexAreRebuiltAndLookupsStayRight() throws IOException {
    PartitionLog original = open(true, 0);
    append(original, 40);
    List<Long> bases = original.segmentBaseOffsets();
    List<Long> expectedReads = readBaseOffsets(original);
    original.close();
    long firstIndexBytes =
        Files.size(dir().resolve(LogSegment.fileName(0) + LogSegment.INDEX_SUFFIX));
    assertThat(firstIndexBytes).isPositive();
    Files.delete(dir().resolve(LogSegment.fileName(0) + LogSegment.INDEX_SUFFIX));
    Files.delete(dir().resolve(LogSegment.fileName(bases.get(1)) + LogSegment.TIME_INDEX_SUFFIX));

    PartitionLog log = open(true, 80);

    assertThat(Files.size(dir().resolve(LogSegment.fileName(0) + LogSegment.INDEX_SUFFIX)))
        .isEqualTo(firstIndexBytes);
    assertThat(
            Files.size(
                dir().resolve(LogSegment.fileName(bases.get(1)) + LogSegment.TIME_INDEX_SUFFIX)))
        .isPositive();
    assertThat(readBaseOffsets(log)).isEqualTo(expectedReads);
    for (long offset = 0; offset < 80; offset++) {
      assertThat(log.read(offset, 1, Long.MAX_VALUE, true).firstOffset())
          .isEqualTo(offset - offset % 2);
    }
    for (int i = 0; i < 40; i++) {
      assertThat(log.offsetForTimestamp(T0 + 10L * i + 1).orElseThrow().offset())
          .isEqualTo(2L * i + 1);
    }
    log.close();
  }

  @Test
  void aCorruptIndexIsRebuilt() throws IOException {
    PartitionLog original = open(true, 0);
    append(original, 10);
    original.close();
    Path index = dir().resolve(LogSegment.fileName(0) + LogSegment.INDEX_SUFFIX);
    Files.write(index, new byte[] {1, 2, 3}, StandardOpenOption.APPEND); // not a whole entry

    PartitionLog log = open(true, 20);

    assertThat(Files.size(index) % OffsetIndex.ENTRY_SIZE).isZero();
    for (long offset = 0; offset < 20; offset++) {
      assertThat(log.read(offset, 1, Long.MAX_VALUE, true).firstOffset())
          .isEqualTo(offset - offset % 2);
    }
    log.close();
  }

  @Test
  void aCleanShutdownSkipsRecoveryAndAnUncleanOneDoesNot() throws IOException {
    PartitionLog original = open(true, 0);
    List<Integer> sizes = append(original, 5);
    original.close();
    Path active = dir().resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX);
    modify(active, Files.size(active) - sizes.get(4) / 2, b -> (byte) (b ^ 1));

    PartitionLog clean = open(true, 10);
    assertThat(clean.logEndOffset()).as("a clean shutdown is trusted: no CRC check").isEqualTo(10);
    clean.close();

    PartitionLog unclean = open(false, 0);
    assertThat(unclean.logEndOffset()).isEqualTo(8);
    unclean.close();
  }

  @Test
  void leftoverTempFilesAndOrphanIndexesAreDeleted() throws IOException {
    PartitionLog original = open(true, 0);
    append(original, 3);
    original.close();
    for (String name :
        List.of(
            "00000000000000000100.log.deleted",
            "00000000000000000100.index.deleted",
            "00000000000000000000.log.cleaned",
            "00000000000000000000.log.swap",
            "00000000000000000500.index",
            "00000000000000000500.timeindex")) {
      Files.write(dir().resolve(name), new byte[] {1, 2, 3});
    }

    PartitionLog log = open(true, 6);

    try (var files = Files.list(dir())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(
              "00000000000000000000.log",
              "00000000000000000000.index",
              "00000000000000000000.timeindex",
              LogSegment.fileName(log.logEndOffset()) + ".snapshot", // the producer state's
              "leader-epoch-checkpoint");
    }
    assertThat(log.logEndOffset()).isEqualTo(6);
    log.close();
  }

  @Test
  void cleanReopenKeepsMaxTimestampsSoRetentionAndTimeLookupsWork() {
    PartitionLog original = open(true, 0);
    append(original, 30);
    original.close();

    PartitionLog log = open(true, 60);
    assertThat(log.offsetForTimestamp(T0 + 290).orElseThrow().offset()).isEqualTo(58);
    assertThat(log.offsetForTimestamp(T0 + 292)).isEmpty();
    log.updateConfig(LogConfig.fromMap(Map.of(LogConfig.RETENTION_MS, "1000")));
    time.sleep(1000 + 289); // batches 0..28 are older than 1 s, batch 29 is not
    log.deleteOldSegments();
    assertThat(log.numberOfSegments()).isEqualTo(1);
    assertThat(log.logEndOffset()).isEqualTo(60);
    log.close();
  }
}
