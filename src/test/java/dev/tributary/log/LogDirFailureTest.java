package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk trouble (docs/adr/0015-offline-log-dir.md): a full disk or a failing fsync takes the log
 * directory offline exactly once; the failed append never becomes visible and moves no offset;
 * reads go on; nothing more is written; a restart recovers the logs and serves them again.
 */
class LogDirFailureTest {
  static final long T0 = 1_700_000_000_000L;
  static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
  static final LogConfig CONFIG = LogConfig.fromMap(Map.of(LogConfig.SEGMENT_BYTES, "4096"));
  static final LogConfig FLUSH_EVERY_MESSAGE =
      LogConfig.fromMap(Map.of(LogConfig.FLUSH_MESSAGES, "1"));

  @TempDir Path dataDir;
  final ManualTime time = new ManualTime(T0);
  final Function<TopicPartition, Optional<LogConfig>> allTopics = tp -> Optional.of(CONFIG);
  final DiskFaults.Switchable disk = DiskFaults.switchable();
  final List<LogDirFailureChannel.OfflineLogDir> reported = new ArrayList<>();
  AutoCloseable installed;

  LogManager start() {
    installed = DiskFaults.install(dataDir, disk);
    LogDirFailureChannel failures = new LogDirFailureChannel();
    failures.addListener(reported::add);
    LogManager manager =
        new LogManager(dataDir, time, Runnable::run, LogCleaner.Config.defaults(), failures);
    manager.loadLogs(allTopics);
    return manager;
  }

  @AfterEach
  void removeFault() throws Exception {
    if (installed != null) {
      installed.close();
    }
  }

  static void append(PartitionLog log, int batches) {
    for (int i = 0; i < batches; i++) {
      log.appendAsLeader(TestBatches.batch(2, T0, 100), 0);
    }
  }

  static int recordsFrom(PartitionLog log, long offset) {
    LogReadInfo read = log.read(offset, 1 << 20, Long.MAX_VALUE, true);
    int records = 0;
    for (var batch : read.batches()) {
      records += (int) (batch.lastOffset() - batch.baseOffset() + 1);
    }
    return records;
  }

  @Test
  void diskFullMidAppendTakesTheDirectoryOfflineOnceAndTheAppendNeverBecomesVisible()
      throws IOException {
    LogManager manager = start();
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, CONFIG);
    append(log, 3);
    long sizeBefore = log.size();

    disk.diskFullAfter(40); // the next batch is torn: 40 bytes reach the file, then ENOSPC

    assertThatThrownBy(() -> append(log, 1))
        .isInstanceOf(KafkaStorageException.class)
        .hasMessageContaining("No space left on device")
        .hasMessageContaining("offline");
    assertThat(log.logEndOffset()).as("the failed append moves no offset").isEqualTo(6);
    assertThat(recordsFrom(log, 0)).as("only the appended records are visible").isEqualTo(6);
    assertThat(log.size()).as("the torn bytes were cut off").isEqualTo(sizeBefore);
    assertThat(manager.isOffline()).isTrue();
    assertThat(log.isOffline()).isTrue();
    assertThat(reported).hasSize(1);
    assertThat(reported.get(0).reason()).contains("append to orders-0", "No space left on device");

    disk.diskFullAfter(Long.MAX_VALUE - 1); // space is back, but the directory stays offline
    assertThatThrownBy(() -> append(log, 1))
        .isInstanceOf(KafkaStorageException.class)
        .hasMessageContaining("is offline");
    assertThatThrownBy(log::flush).isInstanceOf(KafkaStorageException.class);
    assertThatThrownBy(() -> log.truncateTo(2)).isInstanceOf(KafkaStorageException.class);
    assertThatThrownBy(() -> manager.getOrCreateLog(ORDERS_1, CONFIG))
        .isInstanceOf(KafkaStorageException.class);
    manager.runPeriodicTasks(); // writes nothing, fails nothing
    assertThat(recordsFrom(log, 2)).as("reads go on").isEqualTo(4);
    assertThat(log.logEndOffset()).isEqualTo(6);
    assertThat(reported).as("reported exactly once").hasSize(1);
  }

  @Test
  void failedFsyncKeepsTheAppendInvisibleAndTheRecoveryPointWhereItWas() {
    LogManager manager = start();
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, FLUSH_EVERY_MESSAGE);
    append(log, 2);
    assertThat(log.recoveryPoint()).isEqualTo(4);

    disk.fsyncFails();

    assertThatThrownBy(() -> append(log, 1))
        .isInstanceOf(KafkaStorageException.class)
        .hasMessageContaining("Input/output error");
    assertThat(log.logEndOffset()).isEqualTo(4);
    assertThat(log.recoveryPoint()).isEqualTo(4);
    assertThat(recordsFrom(log, 0)).isEqualTo(4);
    assertThat(log.read(4, 1 << 20, Long.MAX_VALUE, true).isEmpty()).isTrue();
    assertThat(reported).hasSize(1);
  }

  @Test
  void aFailedCheckpointWriteTakesTheDirectoryOfflineToo() {
    LogManager manager = start();
    append(manager.getOrCreateLog(ORDERS_0, CONFIG), 1);

    disk.diskFull();

    assertThatThrownBy(manager::runPeriodicTasks)
        .isInstanceOf(KafkaStorageException.class)
        .hasMessageContaining("checkpoints");
    assertThat(manager.isOffline()).isTrue();
    assertThat(reported).hasSize(1);
    manager.runPeriodicTasks(); // offline: nothing more to try
  }

  @Test
  void restartAfterTheDirectoryWentOfflineRecoversTheLogsAndServesThemAgain() throws Exception {
    LogManager manager = start();
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, CONFIG);
    append(log, 3);
    disk.diskFullAfter(40);
    assertThatThrownBy(() -> append(log, 1)).isInstanceOf(KafkaStorageException.class);

    manager.shutdown();
    assertThat(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE))
        .as("no clean shutdown marker: the next start must recover")
        .doesNotExist();
    // What a crash of the disk (or the process) could also have left: a torn batch at the tail.
    Path segment = dataDir.resolve(ORDERS_0.dirName()).resolve(LogSegment.fileName(0) + ".log");
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.write(
          ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 1, 0}), Files.size(segment));
    }
    installed.close(); // space is back
    installed = null;

    LogManager restarted = new LogManager(dataDir, time);
    restarted.loadLogs(allTopics);
    PartitionLog recovered = restarted.getLog(ORDERS_0).orElseThrow();

    assertThat(restarted.isOffline()).isFalse();
    assertThat(recovered.logEndOffset()).isEqualTo(6);
    assertThat(recordsFrom(recovered, 0)).isEqualTo(6);
    append(recovered, 1);
    assertThat(recovered.logEndOffset()).isEqualTo(8);
    assertThat(recordsFrom(recovered, 0)).isEqualTo(8);
    restarted.shutdown();
    assertThat(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
  }

  @Test
  void aLogInAnOfflineDirectoryClosesWithoutWriting() {
    LogManager manager = start();
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, CONFIG);
    append(log, 1);
    disk.fsyncFails();
    assertThatThrownBy(log::flush).isInstanceOf(KafkaStorageException.class);

    manager.deleteLog(ORDERS_0); // the topic was deleted meanwhile: the files stay for the restart
    assertThat(manager.getLog(ORDERS_0)).isEmpty();
    assertThat(dataDir.resolve(ORDERS_0.dirName())).exists();
    manager.shutdown();
    assertThat(reported).hasSize(1);
  }
}
