package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static dev.tributary.log.KeyedRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.KeyedRecords.Rec;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction of one log: what survives a pass, and what readers see afterwards. */
class LogCleanerTest {
  static final TopicPartition TP = new TopicPartition("prices", 0);
  static final long T0 = 1_700_000_000_000L;
  static final LogCleaner.Config UNTHROTTLED =
      new LogCleaner.Config(Long.MAX_VALUE, 0, 1_000_000, 4096);

  @TempDir Path root;
  final ManualTime time = new ManualTime(T0);
  PartitionLog log;
  LogCleaner cleaner;

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  Path dir() {
    return root.resolve(TP.dirName());
  }

  static Map<String, String> compacted(String... overrides) {
    Map<String, String> config = new HashMap<>();
    config.put(LogConfig.CLEANUP_POLICY, "compact");
    config.put(LogConfig.SEGMENT_BYTES, "1024");
    config.put(LogConfig.INDEX_INTERVAL_BYTES, "100");
    for (int i = 0; i < overrides.length; i += 2) {
      config.put(overrides[i], overrides[i + 1]);
    }
    return config;
  }

  PartitionLog open(Map<String, String> config) {
    log = PartitionLog.open(dir(), TP, LogConfig.fromMap(config), 0, true, time);
    cleaner = new LogCleaner(UNTHROTTLED, time, () -> List.of(log), () -> {}, time::sleep);
    return log;
  }

  /** Appends one record per batch, key {@code k<i % keys>}, value {@code v<i>}, i from 0. */
  Map<Long, Rec> appendRounds(int records, int keys) {
    Map<Long, Rec> appended = new LinkedHashMap<>();
    for (int i = 0; i < records; i++) {
      long ts = time.milliseconds();
      long offset = log.appendAsLeader(batch(ts, "k" + (i % keys), "v" + i), 3).firstOffset();
      appended.put(offset, new Rec(offset, ts, "k" + (i % keys), "v" + i));
      time.sleep(1);
    }
    return appended;
  }

  long activeBaseOffset() {
    List<Long> bases = log.segmentBaseOffsets();
    return bases.get(bases.size() - 1);
  }

  @Test
  void keepsTheLatestRecordPerKeyAndEveryOffsetStaysTheSame() {
    open(compacted());
    Map<Long, Rec> appended = appendRounds(100, 5);
    long logEndOffset = log.logEndOffset();
    long activeBase = activeBaseOffset();
    long sizeBefore = log.size();

    assertThat(cleaner.cleanOnce()).isTrue();

    List<Rec> after = records(log);
    for (Rec rec : after) {
      assertThat(appended.get(rec.offset())).as("record at %d", rec.offset()).isEqualTo(rec);
    }
    List<Rec> cleanedPart = after.stream().filter(r -> r.offset() < activeBase).toList();
    Map<String, Long> latestBelowActive = new HashMap<>();
    appended.values().stream()
        .filter(r -> r.offset() < activeBase)
        .forEach(r -> latestBelowActive.put(r.key(), r.offset()));
    assertThat(cleanedPart)
        .extracting(Rec::offset)
        .containsExactlyInAnyOrderElementsOf(latestBelowActive.values());
    assertThat(after.stream().filter(r -> r.offset() >= activeBase).toList())
        .isEqualTo(appended.values().stream().filter(r -> r.offset() >= activeBase).toList());
    assertThat(KeyedRecords.replay(after))
        .isEqualTo(KeyedRecords.replay(List.copyOf(appended.values())));
    assertThat(log.logEndOffset()).isEqualTo(logEndOffset);
    assertThat(log.logStartOffset()).isZero();
    assertThat(log.size()).isLessThan(sizeBefore);
    assertThat(log.cleaning().firstDirtyOffset()).isEqualTo(activeBase);
    assertThat(cleaner.cleanOnce()).as("nothing dirty is left").isFalse();
  }

  @Test
  void theActiveSegmentIsNeverTouched() throws IOException {
    open(compacted());
    appendRounds(10, 1); // all in the active segment
    assertThat(log.numberOfSegments()).isEqualTo(1);
    assertThat(cleaner.cleanOnce()).isFalse();

    appendRounds(60, 2);
    Path active = dir().resolve(LogSegment.fileName(activeBaseOffset()) + LogSegment.LOG_SUFFIX);
    byte[] activeBytes = Files.readAllBytes(active);
    assertThat(cleaner.cleanOnce()).isTrue();
    assertThat(Files.readAllBytes(active)).isEqualTo(activeBytes);
  }

  @Test
  void aTombstoneSurvivesOnePassPlusDeleteRetentionThenGoes() {
    open(
        compacted(
            LogConfig.DELETE_RETENTION_MS, "10000", LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.01"));
    log.appendAsLeader(batch(T0, "gone", "value"), 0);
    log.appendAsLeader(batch(T0, "gone", null), 0);
    appendRounds(40, 3); // rolls: the tombstone's segment is inactive

    assertThat(cleaner.cleanOnce()).isTrue();
    assertThat(records(log)).extracting(Rec::key, Rec::value).contains(tuple("gone", null));
    assertThat(records(log)).extracting(Rec::offset).doesNotContain(0L);

    time.sleep(5_000);
    appendRounds(20, 3);
    assertThat(cleaner.cleanOnce()).isTrue();
    assertThat(records(log))
        .as("delete.retention.ms has not passed since the first pass")
        .extracting(Rec::offset)
        .contains(1L);

    time.sleep(5_001);
    appendRounds(20, 3);
    assertThat(cleaner.cleanOnce()).isTrue();
    assertThat(records(log)).extracting(Rec::key).doesNotContain("gone");
    assertThat(log.read(0, 1 << 20, Long.MAX_VALUE, true).firstOffset())
        .as("a fetch from a removed offset returns the next batch")
        .isGreaterThan(1);
  }

  @Test
  void aReadFromAnyOffsetInAGapReturnsTheNextSurvivingBatch() {
    open(compacted());
    appendRounds(120, 4);
    cleaner.cleanOnce();

    List<RecordBatch> survivors = KeyedRecords.batches(log);
    for (long offset = 0; offset < log.logEndOffset(); offset++) {
      final long target = offset;
      Optional<RecordBatch> expected =
          survivors.stream().filter(b -> b.lastOffset() >= target).findFirst();
      LogReadInfo read = log.read(offset, 1 << 20, Long.MAX_VALUE, true);
      if (expected.isEmpty()) {
        assertThat(read.isEmpty()).isTrue();
      } else {
        assertThat(read.firstOffset())
            .as("read at %d", offset)
            .isEqualTo(expected.get().baseOffset());
      }
    }
  }

  @Test
  void indexesTimestampsAndEpochsStayRightAfterCleaning() throws IOException {
    open(compacted());
    for (int i = 0; i < 90; i++) {
      log.appendAsLeader(batch(T0 + 10L * i, "k" + (i % 6), "v" + i), i / 30);
    }
    cleaner.cleanOnce();

    List<RecordBatch> batches = KeyedRecords.batches(log);
    for (RecordBatch batch : batches) {
      assertThat(batch.partitionLeaderEpoch()).isEqualTo((int) (batch.baseOffset() / 30));
    }
    List<Rec> survivors = records(log);
    for (long target = T0 - 5; target <= T0 + 900; target += 7) {
      final long ts = target;
      Optional<Rec> expected = survivors.stream().filter(r -> r.timestamp() >= ts).findFirst();
      Optional<TimestampAndOffset> found = log.offsetForTimestamp(target);
      assertThat(found.map(TimestampAndOffset::offset))
          .as("offset for timestamp %d", target)
          .isEqualTo(expected.map(Rec::offset));
    }
    for (LogSegment segment : log.cleaning().snapshot().segments()) {
      segment.offsetIndex().sanityCheck(segment.size());
      segment.timeIndex().sanityCheck();
    }
    List<Rec> before = records(log);
    log.close();
    log = PartitionLog.open(dir(), TP, LogConfig.fromMap(compacted()), 0, true, time);
    assertThat(records(log)).isEqualTo(before);
    log.closeHandlers();
    log = PartitionLog.open(dir(), TP, LogConfig.fromMap(compacted()), 0, false, time);
    assertThat(records(log)).as("after recovering every segment").isEqualTo(before);
  }

  @Test
  void recordsYoungerThanTheMinCompactionLagAreNotCleaned() {
    open(compacted(LogConfig.MIN_COMPACTION_LAG_MS, "60000"));
    appendRounds(60, 2);
    assertThat(cleaner.cleanOnce()).isFalse();
    time.sleep(60_001);
    assertThat(cleaner.cleanOnce()).isTrue();
  }

  @Test
  void theDirtyRatioGatesCleaningUnlessTheMaxCompactionLagForcesIt() {
    open(compacted(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, "0.9"));
    appendRounds(60, 60); // unique keys: the first pass removes nothing
    assertThat(cleaner.cleanOnce()).isTrue();
    appendRounds(15, 60); // a little dirty data beside a lot of clean
    LogToClean dirty = assertSomething();
    assertThat(dirty.cleanableRatio()).isBetween(0.0, 0.9);
    assertThat(cleaner.cleanOnce()).isFalse();

    log.updateConfig(
        LogConfig.fromMap(
            compacted(
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO,
                "0.9",
                LogConfig.MAX_COMPACTION_LAG_MS,
                "1000")));
    time.sleep(1_001);
    assertThat(cleaner.cleanOnce()).as("max.compaction.lag.ms passed").isTrue();
  }

  private LogToClean assertSomething() {
    try {
      LogToClean toClean = LogToClean.of(log, time.milliseconds());
      assertThat(toClean.cleanableBytes()).isPositive();
      return toClean;
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void nothingAboveTheHighWatermarkIsCleaned() {
    open(compacted());
    appendRounds(60, 2);
    log.setRetentionBoundOffset(0);
    assertThat(cleaner.cleanOnce()).isFalse();
    log.setRetentionBoundOffset(log.logEndOffset());
    assertThat(cleaner.cleanOnce()).isTrue();
  }

  @Test
  void aTruncationBelowTheCheckpointMakesThoseOffsetsDirtyAgain() {
    open(compacted());
    appendRounds(60, 2);
    cleaner.cleanOnce();
    long checkpoint = log.cleaning().firstDirtyOffset();
    assertThat(checkpoint).isPositive();
    log.truncateTo(checkpoint - 3);
    assertThat(log.cleaning().firstDirtyOffset()).isLessThanOrEqualTo(checkpoint - 3);
  }

  @Test
  void keylessRecordsAreRefusedByCompactedTopicsOnly() {
    open(compacted());
    assertThatThrownBy(() -> log.appendAsLeader(batch(T0, "k", "v", null, "no key"), 0))
        .isInstanceOf(InvalidRecordException.class)
        .hasMessageContaining("Compacted topic cannot accept message without key")
        .hasMessageContaining(TP.toString());
    assertThat(log.logEndOffset()).isZero();
    log.updateConfig(LogConfig.defaults());
    assertThat(log.appendAsLeader(batch(T0, null, "no key"), 0).firstOffset()).isZero();
  }

  @Test
  void timeAndSizeRetentionApplyOnlyWithTheDeletePolicy() {
    open(compacted(LogConfig.RETENTION_MS, "1000", LogConfig.RETENTION_BYTES, "1024"));
    appendRounds(60, 60);
    time.sleep(10_000);
    int segments = log.numberOfSegments();
    assertThat(log.deleteOldSegments()).isZero();
    assertThat(log.numberOfSegments()).isEqualTo(segments);

    log.updateConfig(
        LogConfig.fromMap(
            compacted(
                LogConfig.CLEANUP_POLICY,
                "compact,delete",
                LogConfig.RETENTION_MS,
                "1000",
                LogConfig.RETENTION_BYTES,
                "1024")));
    assertThat(log.deleteOldSegments()).isPositive();
  }

  @Test
  void smallSegmentsAreGroupedIntoOneCleanedSegment() {
    open(compacted(LogConfig.SEGMENT_BYTES, "100000", LogConfig.SEGMENT_MS, "100"));
    Map<Long, Rec> appended = new LinkedHashMap<>();
    for (int segment = 0; segment < 6; segment++) {
      appended.putAll(appendRounds(4, 3));
      time.sleep(200); // the next append rolls
    }
    appended.putAll(appendRounds(1, 3));
    assertThat(log.numberOfSegments()).isEqualTo(7);

    cleaner.cleanOnce();

    assertThat(log.numberOfSegments()).isEqualTo(2);
    assertThat(KeyedRecords.replay(records(log)))
        .isEqualTo(KeyedRecords.replay(List.copyOf(appended.values())));
    assertThat(leftoverFiles()).isEmpty();
  }

  List<String> leftoverFiles() {
    List<String> names = new ArrayList<>();
    try (var files = Files.list(dir())) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".cleaned") || n.endsWith(".swap") || n.endsWith(".deleted"))
          .forEach(names::add);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return names;
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }
}
