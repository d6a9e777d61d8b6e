package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThrottlerTest {
  final ManualTime time = new ManualTime(1_000_000);

  @Test
  void pacesToTheRateAfterASmallBurst() {
    Throttler throttler = new Throttler(1_000, time); // 1 byte per ms
    assertThat(throttler.delayMsFor(100)).as("within the burst").isZero();
    assertThat(throttler.delayMsFor(500)).isEqualTo(500);
    time.sleep(500);
    assertThat(throttler.delayMsFor(250)).isEqualTo(250);
    time.sleep(10_000); // idle time earns only MAX_BURST_MS
    assertThat(throttler.delayMsFor(100)).isZero();
    assertThat(throttler.delayMsFor(100)).isEqualTo(100);
  }

  @Test
  void anUnlimitedThrottlerNeverWaits() {
    Throttler throttler = new Throttler(Long.MAX_VALUE, time);
    assertThat(throttler.delayMsFor(Integer.MAX_VALUE)).isZero();
  }

  @Test
  void theCleanerWaitsAsLongAsTheRateRequires(@TempDir Path dir) {
    TopicPartition tp = new TopicPartition("prices", 0);
    PartitionLog log =
        PartitionLog.open(
            dir.resolve(tp.dirName()),
            tp,
            LogConfig.fromMap(
                Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "1024")),
            0,
            true,
            time);
    for (int i = 0; i < 100; i++) {
      log.appendAsLeader(batch(time.milliseconds(), "k" + (i % 4), "value-" + i), 0);
    }
    long sizeBefore = log.size();
    long inactiveBytes = sizeBefore - 1024; // the active segment holds at most 1024
    AtomicLong sleptMs = new AtomicLong();
    long bytesPerSecond = 10_000;
    LogCleaner cleaner =
        new LogCleaner(
            new LogCleaner.Config(bytesPerSecond, 0, 1000, 4096),
            time,
            () -> List.of(log),
            () -> {},
            ms -> {
              sleptMs.addAndGet(ms);
              time.sleep(ms);
            });
    long startMs = time.milliseconds();

    assertThat(cleaner.cleanOnce()).isTrue();

    // The pass reads the dirty part twice (offset map, then rewrite) and writes a little.
    long minimumIoBytes = 2 * inactiveBytes;
    long maximumIoBytes = 3 * sizeBefore;
    assertThat(sleptMs.get())
        .isBetween(
            minimumIoBytes * 1000 / bytesPerSecond - Throttler.MAX_BURST_MS,
            maximumIoBytes * 1000 / bytesPerSecond);
    assertThat(time.milliseconds() - startMs).isEqualTo(sleptMs.get());
    log.close();
  }
}
