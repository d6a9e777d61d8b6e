package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetch path's helpers: {@link PartitionLog#estimatedBytesBetween} against the exact sizes of
 * the appended batches.
 */
class PartitionLogFetchTest {
  static final TopicPartition TP = new TopicPartition("fetch", 0);
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;
  final ManualTime time = new ManualTime(T0);
  PartitionLog log;

  /** A batch as stored: its offsets and size. */
  record Stored(long baseOffset, long lastOffset, int sizeInBytes) {}

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  void open(Map<String, String> overrides) {
    log =
        PartitionLog.open(
            dir.resolve(TP.dirName()), TP, LogConfig.fromMap(overrides), 0, true, time);
  }

  /** Appends {@code n} batches of 1 to 4 records with values of varied sizes. */
  List<Stored> append(int n, int maxValueBytes) {
    List<Stored> stored = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ByteBuffer batch =
          TestBatches.batch(1 + i % 4, time.milliseconds(), (i * 37) % maxValueBytes);
      LogAppendInfo info = log.appendAsLeader(batch, 0);
      stored.add(new Stored(info.firstOffset(), info.lastOffset(), batch.remaining()));
    }
    return stored;
  }

  /** The bytes of the batches holding offsets in [from, to). */
  static long exactBytes(List<Stored> stored, long from, long to) {
    return stored.stream()
        .filter(b -> b.lastOffset() >= from && b.baseOffset() < to)
        .mapToLong(Stored::sizeInBytes)
        .sum();
  }

  @Test
  void estimateIsExactWhenEveryBatchIsIndexed() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "4096", LogConfig.INDEX_INTERVAL_BYTES, "0"));
    List<Stored> stored = append(60, 200);
    long end = log.logEndOffset();
    assertThat(log.numberOfSegments()).isGreaterThan(2);

    for (long from = 0; from < end; from++) {
      for (long to = from + 1; to <= end; to++) {
        assertThat(log.estimatedBytesBetween(from, to))
            .as("[%d, %d)", from, to)
            .isEqualTo(exactBytes(stored, from, to));
      }
    }
  }

  @Test
  void estimateWithASparseIndexNeverUnderCountsAndOverCountsByLessThanAnIntervalAtEachEnd() {
    int intervalBytes = 1024;
    open(
        Map.of(
            LogConfig.SEGMENT_BYTES,
            "8192",
            LogConfig.INDEX_INTERVAL_BYTES,
            String.valueOf(intervalBytes)));
    List<Stored> stored = append(150, 250);
    long end = log.logEndOffset();
    int maxBatchBytes = stored.stream().mapToInt(Stored::sizeInBytes).max().orElseThrow();
    assertThat(log.numberOfSegments()).isGreaterThan(2);

    boolean overCounted = false;
    for (long from = 0; from < end; from += 3) {
      for (long to = from + 1; to <= end; to += 2) {
        long exact = exactBytes(stored, from, to);
        long estimate = log.estimatedBytesBetween(from, to);
        assertThat(estimate)
            .as("[%d, %d)", from, to)
            .isBetween(exact, exact + 2L * (intervalBytes + maxBatchBytes));
        overCounted |= estimate > exact;
      }
      // The log end and segment boundaries are exact.
      assertThat(log.estimatedBytesBetween(from, end)).isLessThanOrEqualTo(log.size());
    }
    assertThat(overCounted).as("the index is sparse enough to matter").isTrue();
    for (long base : log.segmentBaseOffsets().subList(1, log.numberOfSegments())) {
      assertThat(log.estimatedBytesBetween(0, base)).isEqualTo(exactBytes(stored, 0, base));
    }
  }

  @Test
  void estimateIsZeroForAnEmptyRangeAndClampsToTheLog() {
    open(Map.of(LogConfig.SEGMENT_BYTES, "2048"));
    assertThat(log.estimatedBytesBetween(0, 10)).as("empty log").isZero();
    List<Stored> stored = append(40, 200);
    long end = log.logEndOffset();

    assertThat(log.estimatedBytesBetween(5, 5)).isZero();
    assertThat(log.estimatedBytesBetween(9, 5)).isZero();
    assertThat(log.estimatedBytesBetween(end, end + 100)).isZero();
    assertThat(log.estimatedBytesBetween(0, Long.MAX_VALUE)).isEqualTo(log.size());

    long newStart = log.segmentBaseOffsets().get(2);
    log.maybeIncrementLogStartOffset(newStart);
    log.deleteOldSegments();
    assertThat(log.logStartOffset()).isEqualTo(newStart);
    assertThat(log.estimatedBytesBetween(0, newStart)).as("wholly below the start").isZero();
    assertThat(log.estimatedBytesBetween(0, Long.MAX_VALUE))
        .isEqualTo(log.size())
        .isEqualTo(exactBytes(stored, newStart, end));
  }
}
