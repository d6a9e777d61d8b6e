package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.RecordBatch;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One thread appends (rolling segments often) while readers read continuously and retention deletes
 * old segments under them: a reader must never see a partial or corrupt batch, a gap, or an
 * exception other than OffsetOutOfRange (when retention overtook it).
 */
class PartitionLogConcurrencyTest {
  static final long T0 = 1_700_000_000_000L;
  static final int BATCHES = 3000;

  @TempDir Path dir;

  @Test
  void readersNeverSeeAPartialBatchWhileAppendsRollAndRetentionDeletes() throws Exception {
    ManualTime time = new ManualTime(T0);
    LogConfig config =
        LogConfig.fromMap(
            Map.of(
                LogConfig.SEGMENT_BYTES, "4096",
                LogConfig.INDEX_INTERVAL_BYTES, "512",
                LogConfig.RETENTION_BYTES, "40000"));
    PartitionLog log =
        PartitionLog.open(dir.resolve("c-0"), new TopicPartition("c", 0), config, 0, true, time);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      Future<?> writer =
          threads.submit(
              () -> {
                for (int i = 0; i < BATCHES; i++) {
                  log.appendAsLeader(TestBatches.batch(1 + i % 5, T0 + i, (i * 37) % 300), 0);
                  if (i % 10 == 0) {
                    log.deleteOldSegments();
                  }
                }
                done.set(true);
                return null;
              });
      Future<Long> tailReader = threads.submit(() -> readUntilDone(log, done, 0));
      Future<Long> slowReader = threads.submit(() -> readUntilDone(log, done, 64));
      Future<Integer> oldestReader = threads.submit(() -> readOldestUntilDone(log, done));

      writer.get(60, TimeUnit.SECONDS);
      long tailEnd = tailReader.get(60, TimeUnit.SECONDS);
      long slowEnd = slowReader.get(60, TimeUnit.SECONDS);
      assertThat(tailEnd).isEqualTo(log.logEndOffset());
      assertThat(slowEnd).isEqualTo(log.logEndOffset());
      assertThat(oldestReader.get(60, TimeUnit.SECONDS))
          .as("reads of the oldest segment")
          .isPositive();
      assertThat(log.logStartOffset()).as("retention ran").isPositive();
    } finally {
      threads.shutdownNow();
      log.close();
    }
  }

  /**
   * Keeps reading the oldest segment, the one retention deletes next; returns how many reads
   * succeeded.
   */
  private static int readOldestUntilDone(PartitionLog log, AtomicBoolean done) {
    int reads = 0;
    while (!done.get()) {
      try {
        for (RecordBatch batch :
            log.read(log.logStartOffset(), 8192, Long.MAX_VALUE, true).batches()) {
          batch.validate();
        }
        reads++;
      } catch (OffsetOutOfRangeException e) {
        // Retention moved the start between our two calls: fine.
      }
    }
    return reads;
  }

  /** Reads to the end; returns the offset reached. {@code maxBytes} 0 means random sizes. */
  private static long readUntilDone(PartitionLog log, AtomicBoolean done, int maxBytes) {
    long next = 0;
    int reads = 0;
    while (true) {
      boolean finished = done.get();
      try {
        int limit = maxBytes > 0 ? maxBytes : 1 + (reads * 7919) % 20_000;
        LogReadInfo info = log.read(next, limit, Long.MAX_VALUE, true);
        for (RecordBatch batch : info.batches()) {
          batch.validate();
          // Reads start with the batch holding `next`, then continue without gaps.
          assertThat(batch.baseOffset()).as("no gaps").isLessThanOrEqualTo(next);
          assertThat(batch.lastOffset()).isGreaterThanOrEqualTo(next);
          next = batch.nextOffset();
        }
      } catch (OffsetOutOfRangeException e) {
        long start = log.logStartOffset();
        assertThat(start)
            .as("out of range only when retention overtook the reader")
            .isGreaterThan(next);
        next = start;
      }
      reads++;
      if (finished && next == log.logEndOffset()) {
        return next;
      }
    }
  }
}
