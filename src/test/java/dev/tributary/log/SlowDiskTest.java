package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slow-disk fault on a real partition log, with a sleeper that records what it is asked instead
 * of sleeping: with a delay set, each segment write and each fsync asks for it once; with 0 (a
 * healthy disk) nothing does; an interrupted wait abandons the write and leaves the log as it was,
 * its directory online.
 */
class SlowDiskTest {
  static final long T0 = 1_700_000_000_000L;
  static final TopicPartition TP = new TopicPartition("slow", 0);

  @TempDir Path dataDir;
  private final List<Long> sleeps = new ArrayList<>();
  private final SlowDisk disk = new SlowDisk(sleeps::add);
  private final LogDirFailureChannel failures = new LogDirFailureChannel();
  private PartitionLog log;

  @AfterEach
  void close() {
    if (log != null) {
      disk.setDelayMs(0);
      log.close();
    }
  }

  private void open(Map<String, String> configs) {
    log =
        LogLoader.open(
            dataDir.resolve(TP.dirName()),
            TP,
            LogConfig.fromMap(configs),
            0,
            0,
            true,
            new ManualTime(T0),
            failures,
            disk);
  }

  @Test
  void aHealthyDiskNeverWaits() {
    open(Map.of(LogConfig.FLUSH_MESSAGES, "1", LogConfig.SEGMENT_BYTES, "1024"));

    for (int i = 0; i < 5; i++) {
      log.appendAsLeader(TestBatches.batch(1, T0, 600), 0); // each flushes, most roll
    }
    log.flush();

    assertThat(log.logEndOffset()).isEqualTo(5);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void aSlowDiskDelaysEachWriteAndEachFsyncOnce() {
    open(Map.of());
    assertThat(disk.setDelayMs(250)).as("the previous delay").isZero();

    log.appendAsLeader(TestBatches.batch(3, T0, 10), 0);
    assertThat(sleeps).as("the write").containsExactly(250L);

    log.flush();
    assertThat(sleeps).as("the write, then the fsync").containsExactly(250L, 250L);

    log.flush();
    assertThat(sleeps).as("nothing left to fsync: no device access, no wait").hasSize(2);

    log.appendAsFollower(TestBatches.batch(3L, new long[] {T0, T0}, 10, (byte) 1));
    assertThat(sleeps).as("a follower's write too").containsExactly(250L, 250L, 250L);
    assertThat(log.logEndOffset()).isEqualTo(5);
  }

  @Test
  void anAppendThatFlushesOrRollsWaitsForEachFsyncToo() {
    open(Map.of(LogConfig.FLUSH_MESSAGES, "1", LogConfig.SEGMENT_BYTES, "1024"));
    disk.setDelayMs(40);

    log.appendAsLeader(TestBatches.batch(1, T0, 600), 0);
    assertThat(sleeps).as("write and flush.messages' fsync").containsExactly(40L, 40L);

    sleeps.clear();
    log.appendAsLeader(TestBatches.batch(1, T0, 600), 0);
    assertThat(sleeps)
        .as("the roll's fsync of the full segment, the write, the fsync")
        .containsExactly(40L, 40L, 40L);
    assertThat(log.segmentBaseOffsets()).containsExactly(0L, 1L);
  }

  @Test
  void theDelayIsReadAtEachAppendAndZeroHeals() {
    open(Map.of());
    disk.setDelayMs(100);
    log.appendAsLeader(TestBatches.batch(1, T0, 10), 0);
    assertThat(disk.setDelayMs(700)).isEqualTo(100);
    log.appendAsLeader(TestBatches.batch(1, T0, 10), 0);
    assertThat(disk.setDelayMs(0)).isEqualTo(700);
    log.appendAsLeader(TestBatches.batch(1, T0, 10), 0);
    log.flush();

    assertThat(sleeps).containsExactly(100L, 700L);
    assertThat(log.logEndOffset()).isEqualTo(3);
  }

  @Test
  void anInterruptedWaitAbandonsTheWriteAndKeepsTheDirectoryOnline() {
    SlowDisk interrupting =
        new SlowDisk(
            ms -> {
              throw new InterruptedException("shutting down");
            });
    log =
        LogLoader.open(
            dataDir.resolve(TP.dirName()),
            TP,
            LogConfig.fromMap(Map.of()),
            0,
            0,
            true,
            new ManualTime(T0),
            failures,
            interrupting);
    log.appendAsLeader(TestBatches.batch(2, T0, 10), 0);
    interrupting.setDelayMs(500);

    try {
      assertThatThrownBy(() -> log.appendAsLeader(TestBatches.batch(1, T0, 10), 0))
          .isInstanceOf(SlowDisk.StallInterruptedException.class);
      assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
    } finally {
      Thread.interrupted(); // the test's thread goes on
    }
    assertThat(log.logEndOffset()).as("nothing appended").isEqualTo(2);
    assertThat(log.isOffline()).as("not an I/O failure").isFalse();
    assertThat(failures.offlineLogDirs()).isEmpty();

    interrupting.setDelayMs(0);
    assertThat(log.appendAsLeader(TestBatches.batch(1, T0, 10), 0).firstOffset())
        .as("the next write lands where the abandoned one would have")
        .isEqualTo(2);
  }

  @Test
  void delaysOutsideZeroToTenSecondsAreRefused() {
    disk.setDelayMs(5);
    assertThatThrownBy(() -> disk.setDelayMs(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> disk.setDelayMs(SlowDisk.MAX_DELAY_MS + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(disk.setDelayMs(SlowDisk.MAX_DELAY_MS)).isEqualTo(5);
  }
}
