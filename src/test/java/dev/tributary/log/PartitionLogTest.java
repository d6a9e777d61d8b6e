package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {
  static final TopicPartition TP = new TopicPartition("orders", 0);
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;
  final ManualTime time = new ManualTime(T0);
  PartitionLog log;

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  PartitionLog open(Map<String, String> overrides) {
    log =
        PartitionLog.open(
            dir.resolve(TP.dirName()), TP, LogConfig.fromMap(overrides), 0, true, time);
    return log;
  }

  /**
   * Appends {@code n} batches of 3 records (about 200 bytes each); returns the appended batches.
   */
  List<RecordBatch> appendBatches(int n) {
    List<RecordBatch> appended = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ByteBuffer batch = TestBatches.batch(3, time.milliseconds(), 40);
      log.appendAsLeader(batch, 5);
      appended.add(new RecordBatch(batch));
    }
    return appended;
  }

  List<RecordBatch> readAll(long from) {
    List<RecordBatch> result = new ArrayList<>();
    long next = from;
    while (next < log.logEndOffset()) {
      LogReadInfo info = log.read(next, 1 << 20, Long.MAX_VALUE, true);
      assertThat(info.isEmpty()).as("read at %d", next).isFalse();
      for (RecordBatch batch : info.batches()) {
        batch.validate();
        result.add(batch);
        next = batch.nextOffset();
      }
    }
    return result;
  }

  @Test
  void appendAssignsOffsetsAndReadReturnsTheSameBatchesAcrossSegmentRolls() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.INDEX_INTERVAL_BYTES, "256"));
    List<RecordBatch> appended = appendBatches(40);

    assertThat(log.numberOfSegments()).isGreaterThan(5);
    assertThat(log.logEndOffset()).isEqualTo(120);
    List<RecordBatch> read = readAll(0);
    assertThat(read).hasSize(40);
    for (int i = 0; i < 40; i++) {
      assertThat(read.get(i).baseOffset()).isEqualTo(3L * i);
      assertThat(read.get(i).partitionLeaderEpoch()).isEqualTo(5);
      assertThat(TestBatches.content(read.get(i))).isEqualTo(TestBatches.content(appended.get(i)));
    }
    // Every offset, including ones inside a batch, reads from the batch that holds it.
    for (long offset = 0; offset < 120; offset++) {
      RecordBatch first = log.read(offset, 1, Long.MAX_VALUE, true).batches().iterator().next();
      assertThat(first.baseOffset()).isEqualTo(offset - offset % 3);
    }
  }

  @Test
  void appendReturnsWhatItWrote() {
    open(Map.of());
    LogAppendInfo first = log.appendAsLeader(TestBatches.batch(3, T0 - 10, 10), 0);
    ByteBuffer two =
        TestBatches.concat(TestBatches.batch(2, T0 - 5, 10), TestBatches.batch(4, T0 - 100, 10));
    LogAppendInfo second = log.appendAsLeader(two, 0);

    assertThat(first.firstOffset()).isZero();
    assertThat(first.lastOffset()).isEqualTo(2);
    assertThat(second.firstOffset()).isEqualTo(3);
    assertThat(second.lastOffset()).isEqualTo(8);
    assertThat(second.recordCount()).isEqualTo(6);
    assertThat(second.sizeInBytes()).isEqualTo(two.remaining());
    assertThat(second.maxTimestampMs()).isEqualTo(T0 - 4);
    assertThat(second.logAppendTimeMs()).isEqualTo(-1);
    assertThat(log.size()).isEqualTo(first.sizeInBytes() + second.sizeInBytes());
  }

  @Test
  void readNeverSplitsABatchAndHonoursMaxBytesAndMinOneBatch() {
    open(Map.of());
    List<RecordBatch> appended = appendBatches(5);
    int batchSize = appended.get(0).sizeInBytes();

    LogReadInfo twoAndABit = log.read(0, 2 * batchSize + batchSize / 2, Long.MAX_VALUE, false);
    assertThat(twoAndABit.sizeInBytes()).isEqualTo(2 * batchSize);
    assertThat(TestBatches.batches(twoAndABit.records())).hasSize(2);

    assertThat(log.read(0, batchSize - 1, Long.MAX_VALUE, false).isEmpty()).isTrue();
    LogReadInfo oneAnyway = log.read(4, 1, Long.MAX_VALUE, true);
    assertThat(oneAnyway.sizeInBytes()).isEqualTo(batchSize);
    assertThat(oneAnyway.firstOffset()).isEqualTo(3);
    assertThat(log.read(0, 0, Long.MAX_VALUE, false).isEmpty()).isTrue();
  }

  @Test
  void readStopsBeforeTheBatchThatReachesMaxOffset() {
    open(Map.of());
    appendBatches(4); // offsets 0-2, 3-5, 6-8, 9-11

    assertThat(TestBatches.batches(log.read(0, 1 << 20, 7, true).records()))
        .extracting(RecordBatch::baseOffset)
        .containsExactly(0L, 3L);
    assertThat(log.read(0, 1 << 20, 6, true).sizeInBytes())
        .isEqualTo(log.read(0, 1 << 20, 8, true).sizeInBytes());
    assertThat(log.read(6, 1 << 20, 6, true).isEmpty()).isTrue();
    assertThat(log.read(4, 1 << 20, 5, true).isEmpty())
        .isTrue(); // the batch holding 4 ends at 5, not yet committed
  }

  @Test
  void readOutsideTheLogThrowsOffsetOutOfRangeWithTheValidRange() {
    open(Map.of());
    appendBatches(2);

    assertThat(log.read(6, 100, Long.MAX_VALUE, true).isEmpty()).isTrue();
    assertThatThrownBy(() -> log.read(7, 100, Long.MAX_VALUE, true))
        .isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("[0, 6]");
    log.maybeIncrementLogStartOffset(3);
    assertThatThrownBy(() -> log.read(2, 100, Long.MAX_VALUE, true))
        .isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("[3, 6]");
    assertThat(log.read(3, 1000, Long.MAX_VALUE, true).firstOffset()).isEqualTo(3);
  }

  @Test
  void offsetForTimestampFindsTheFirstRecordAtOrAfterTheTarget() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.INDEX_INTERVAL_BYTES, "100"));
    // Batch i holds 3 records stamped T0 + 10i, T0 + 10i + 1, T0 + 10i + 2.
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(TestBatches.batch(3, T0 + 10L * i, 40), 0);
    }
    assertThat(log.numberOfSegments()).isGreaterThan(2);

    assertThat(log.offsetForTimestamp(T0).orElseThrow().offset()).isZero();
    assertThat(log.offsetForTimestamp(0).orElseThrow().offset()).isZero();
    TimestampAndOffset inside = log.offsetForTimestamp(T0 + 71).orElseThrow();
    assertThat(inside.offset()).isEqualTo(22); // batch 7 starts at offset 21 with T0 + 70
    assertThat(inside.timestampMs()).isEqualTo(T0 + 71);
    assertThat(log.offsetForTimestamp(T0 + 75).orElseThrow().offset())
        .isEqualTo(24); // next batch's first record
    assertThat(log.offsetForTimestamp(T0 + 192).orElseThrow().offset()).isEqualTo(59);
    assertThat(log.offsetForTimestamp(T0 + 193)).isEmpty();
    assertThat(log.offsetForTimestamp(-2).orElseThrow().offset()).isZero();
    assertThat(log.offsetForTimestamp(-1).orElseThrow().offset()).isEqualTo(60);
  }

  @Test
  void segmentRollsWhenItsFirstBatchIsOlderThanSegmentMs() {
    open(Map.of(LogConfig.SEGMENT_MS, "1000"));
    appendBatches(1);
    time.sleep(1000);
    appendBatches(1);
    assertThat(log.numberOfSegments()).isEqualTo(1);
    time.sleep(1);
    appendBatches(1);
    assertThat(log.numberOfSegments()).isEqualTo(2);
    assertThat(log.segmentBaseOffsets()).containsExactly(0L, 6L);
    assertThat(log.recoveryPoint()).as("a roll flushes the previous segment").isEqualTo(6);

    time.sleep(10_000); // an old but empty active segment never rolls on its own
    assertThat(log.numberOfSegments()).isEqualTo(2);
  }

  @Test
  void aBatchLargerThanSegmentBytesGetsASegmentOfItsOwn() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024"));
    log.appendAsLeader(TestBatches.batch(1, T0, 2000), 0);
    log.appendAsLeader(TestBatches.batch(1, T0, 2000), 0);
    assertThat(log.segmentBaseOffsets()).containsExactly(0L, 1L);
  }

  @Test
  void retentionByTimeDeletesExpiredSegmentsAndMovesTheLogStartOffset() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.RETENTION_MS, "60000"));
    appendBatches(10); // stamped T0
    time.sleep(30_000);
    appendBatches(10); // stamped T0 + 30 s
    int segments = log.numberOfSegments();
    time.sleep(40_000); // first batches now 70 s old, later ones 40 s

    int deleted = log.deleteOldSegments();

    assertThat(deleted).isPositive();
    assertThat(log.numberOfSegments()).isEqualTo(segments - deleted);
    assertThat(log.logStartOffset())
        .isEqualTo(log.segmentBaseOffsets().get(0))
        .isGreaterThan(0)
        .isLessThanOrEqualTo(30);
    assertThatThrownBy(() -> log.read(0, 100, Long.MAX_VALUE, true))
        .isInstanceOf(OffsetOutOfRangeException.class);
    assertThat(readAll(log.logStartOffset())).isNotEmpty();

    time.sleep(60_000); // everything expired: the log rolls and deletes all, keeping its end offset
    log.deleteOldSegments();
    assertThat(log.logStartOffset()).isEqualTo(60);
    assertThat(log.logEndOffset()).isEqualTo(60);
    assertThat(log.numberOfSegments()).isEqualTo(1);
    assertThat(log.read(60, 100, Long.MAX_VALUE, true).isEmpty()).isTrue();
    assertThat(log.appendAsLeader(TestBatches.batch(1, T0, 1), 0).firstOffset()).isEqualTo(60);
  }

  @Test
  void retentionBySizeDeletesOldestSegmentsWhileTheRestStillHoldsRetentionBytes() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.RETENTION_BYTES, "2048"));
    appendBatches(30);
    long before = log.size();
    assertThat(before).isGreaterThan(2048);

    log.deleteOldSegments();

    // Kafka's rule: a segment goes only if the log keeps at least retention.bytes without it.
    long firstSegmentBytes =
        log.read(log.logStartOffset(), 1 << 20, Long.MAX_VALUE, true).sizeInBytes();
    assertThat(log.size()).isGreaterThanOrEqualTo(2048);
    assertThat(log.size() - firstSegmentBytes).isLessThan(2048);
    assertThat(log.numberOfSegments()).isLessThan(6);
    assertThat(log.logStartOffset()).isEqualTo(log.segmentBaseOffsets().get(0));
    assertThat(log.deleteOldSegments()).isZero();
  }

  @Test
  void logStartOffsetOnlyMovesForwardAndDeletesSegmentsBelowIt() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024"));
    appendBatches(20);
    long secondSegment = log.segmentBaseOffsets().get(1);
    assertThat(log.maybeIncrementLogStartOffset(secondSegment + 1)).isTrue();
    assertThat(log.maybeIncrementLogStartOffset(1)).isFalse();
    assertThat(log.logStartOffset()).isEqualTo(secondSegment + 1);
    assertThatThrownBy(() -> log.maybeIncrementLogStartOffset(61))
        .isInstanceOf(OffsetOutOfRangeException.class);

    assertThat(log.deleteOldSegments()).isEqualTo(1);
    assertThat(log.logStartOffset()).isEqualTo(secondSegment + 1);
    // The batch holding the log start offset is still served whole.
    assertThat(log.read(secondSegment + 1, 100, Long.MAX_VALUE, true).firstOffset())
        .isEqualTo(secondSegment);
  }

  @Test
  void truncateToRemovesEverythingFromTheOffsetAcrossSegments() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.INDEX_INTERVAL_BYTES, "1"));
    List<RecordBatch> appended = appendBatches(20);
    int segments = log.numberOfSegments();

    log.truncateTo(31); // inside the batch 30-32: the whole batch goes
    assertThat(log.logEndOffset()).isEqualTo(30);
    assertThat(log.numberOfSegments()).isLessThan(segments);
    assertThat(readAll(0)).hasSize(10);
    assertThat(log.recoveryPoint()).isLessThanOrEqualTo(30);

    log.truncateTo(100); // beyond the end: nothing
    assertThat(log.logEndOffset()).isEqualTo(30);
    List<RecordBatch> more = appendBatches(2);
    assertThat(log.logEndOffset()).isEqualTo(36);
    List<RecordBatch> read = readAll(0);
    assertThat(read).hasSize(12);
    assertThat(TestBatches.content(read.get(9))).isEqualTo(TestBatches.content(appended.get(9)));
    assertThat(TestBatches.content(read.get(10))).isEqualTo(TestBatches.content(more.get(0)));
    assertThat(log.offsetForTimestamp(T0).orElseThrow().offset()).isZero();
  }

  @Test
  void truncateFullyStartsAnEmptyLogAtTheOffset() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "1024"));
    appendBatches(20);
    log.truncateFullyAndStartAt(500);
    assertThat(log.logStartOffset()).isEqualTo(500);
    assertThat(log.logEndOffset()).isEqualTo(500);
    assertThat(log.numberOfSegments()).isEqualTo(1);
    assertThat(log.size()).isZero();
    assertThat(log.appendAsLeader(TestBatches.batch(2, T0, 1), 0).firstOffset()).isEqualTo(500);

    log.truncateTo(3); // below the log start offset: the same as starting over there
    assertThat(log.logStartOffset()).isEqualTo(3);
    assertThat(log.logEndOffset()).isEqualTo(3);
  }

  @Test
  void followerAppendKeepsOffsetsAndAcceptsGapsButNotGoingBack() {
    open(Map.of());
    ByteBuffer first = TestBatches.batch(0, new long[] {T0, T0}, 5, (byte) 1);
    ByteBuffer second = TestBatches.batch(2, new long[] {T0}, 5, (byte) 2);
    ByteBuffer overlap = TestBatches.batch(2, new long[] {T0}, 5, (byte) 3);

    LogAppendInfo info = log.appendAsFollower(TestBatches.concat(first, second));
    assertThat(info.firstOffset()).isZero();
    assertThat(info.lastOffset()).isEqualTo(2);
    assertThat(log.logEndOffset()).isEqualTo(3);

    assertThatThrownBy(() -> log.appendAsFollower(overlap))
        .isInstanceOf(InvalidOffsetException.class)
        .hasMessageContaining("log end offset is 3");
    ByteBuffer fifth = TestBatches.batch(5, new long[] {T0}, 5, (byte) 3);
    ByteBuffer fourth = TestBatches.batch(4, new long[] {T0}, 5, (byte) 3);
    assertThatThrownBy(() -> log.appendAsFollower(TestBatches.concat(fifth, fourth)))
        .isInstanceOf(InvalidOffsetException.class)
        .hasMessageContaining("out of order");
    assertThat(log.logEndOffset()).isEqualTo(3);
    // A compacted leader serves batches with gaps before and between them.
    ByteBuffer ninth = TestBatches.batch(9, new long[] {T0}, 5, (byte) 4);
    assertThat(log.appendAsFollower(TestBatches.concat(fifth, ninth)).lastOffset()).isEqualTo(9);
    assertThat(log.logEndOffset()).isEqualTo(10);
    assertThat(readAll(0)).extracting(RecordBatch::baseOffset).containsExactly(0L, 2L, 5L, 9L);
    assertThat(log.read(3, 1 << 20, Long.MAX_VALUE, true).firstOffset()).isEqualTo(5);
  }

  @Test
  void leaderAppendIsAllOrNothingWhenOneBatchIsCorrupt() {
    open(Map.of());
    appendBatches(1);
    long size = log.size();
    ByteBuffer good = TestBatches.batch(2, T0, 10);
    ByteBuffer bad = TestBatches.batch(2, T0, 10);
    bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) ^ 1));
    ByteBuffer request = TestBatches.concat(good, bad);

    assertThatThrownBy(() -> log.appendAsLeader(request, 0))
        .isInstanceOf(CorruptRecordException.class);
    assertThat(log.logEndOffset()).isEqualTo(3);
    assertThat(log.size()).isEqualTo(size);
    assertThat(request.getLong(0)).as("no offsets assigned to a rejected request").isZero();

    ByteBuffer torn = TestBatches.concat(good, bad).limit(good.remaining() + 30);
    assertThatThrownBy(() -> log.appendAsLeader(torn, 0))
        .isInstanceOf(CorruptRecordException.class);
    assertThat(log.size()).isEqualTo(size);
  }

  @Test
  void leaderAppendRejectsAnOversizedBatchAndAppendsNothing() {
    open(Map.of(LogConfig.MAX_MESSAGE_BYTES, "500"));
    ByteBuffer request =
        TestBatches.concat(TestBatches.batch(1, T0, 10), TestBatches.batch(1, T0, 600));
    assertThatThrownBy(() -> log.appendAsLeader(request, 0))
        .isInstanceOf(RecordTooLargeException.class)
        .hasMessageContaining("max.message.bytes 500");
    assertThat(log.logEndOffset()).isZero();
    assertThat(log.size()).isZero();
  }

  @Test
  void logAppendTimeTopicsGetTheBrokerTimestampAndAValidCrc() {
    open(Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"));
    LogAppendInfo info = log.appendAsLeader(TestBatches.batch(3, 42, 10), 0);
    assertThat(info.logAppendTimeMs()).isEqualTo(T0);
    assertThat(info.maxTimestampMs()).isEqualTo(T0);
    RecordBatch stored = readAll(0).get(0);
    stored.validate();
    assertThat(stored.isLogAppendTime()).isTrue();
    assertThat(stored.maxTimestamp()).isEqualTo(T0);
    assertThat(log.offsetForTimestamp(T0).orElseThrow().offset()).isZero();
  }

  @Test
  void flushMessagesFlushesAfterThatManyUnflushedMessages() {
    open(Map.of(LogConfig.FLUSH_MESSAGES, "6"));
    appendBatches(1);
    assertThat(log.recoveryPoint()).isZero();
    appendBatches(1);
    assertThat(log.recoveryPoint()).isEqualTo(6);
    appendBatches(1);
    assertThat(log.recoveryPoint()).isEqualTo(6);
    log.flush();
    assertThat(log.recoveryPoint()).isEqualTo(9);
  }

  @Test
  void flushMsIsDrivenByMaybeFlushByTime() {
    open(Map.of(LogConfig.FLUSH_MS, "1000"));
    appendBatches(1);
    assertThat(log.maybeFlushByTime()).isFalse();
    time.sleep(1000);
    assertThat(log.maybeFlushByTime()).isTrue();
    assertThat(log.recoveryPoint()).isEqualTo(3);
  }

  @Test
  void readsAfterCloseFailAndCloseIsIdempotent() {
    open(Map.of());
    appendBatches(1);
    log.close();
    log.close();
    assertThatThrownBy(() -> log.appendAsLeader(TestBatches.batch(1, T0, 1), 0))
        .isInstanceOf(IllegalStateException.class);
    log = null;
  }

  @Test
  void deleteRemovesTheDirectory() {
    open(Map.of());
    appendBatches(1);
    log.delete();
    assertThat(dir.resolve(TP.dirName())).doesNotExist();
    log = null;
  }
}
