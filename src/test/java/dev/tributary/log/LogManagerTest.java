package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {
  static final long T0 = 1_700_000_000_000L;
  static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
  static final TopicPartition CLICKS_0 = new TopicPartition("page-clicks", 0);
  static final LogConfig SMALL = LogConfig.fromMap(Map.of(LogConfig.SEGMENT_BYTES, "1024"));

  @TempDir Path dataDir;
  final ManualTime time = new ManualTime(T0);
  final Function<TopicPartition, Optional<LogConfig>> allTopics = tp -> Optional.of(SMALL);

  static void append(PartitionLog log, int batches) {
    for (int i = 0; i < batches; i++) {
      log.appendAsLeader(TestBatches.batch(2, T0, 100), 0);
    }
  }

  @Test
  void checkpointFileRoundTripsAtomicallyInKafkasFormat() throws IOException {
    OffsetCheckpointFile file = new OffsetCheckpointFile(dataDir.resolve("cp"));
    assertThat(file.read()).isEmpty();
    file.write(Map.of(ORDERS_0, 120L, CLICKS_0, 7L));

    assertThat(file.read()).isEqualTo(Map.of(ORDERS_0, 120L, CLICKS_0, 7L));
    assertThat(Files.readAllLines(dataDir.resolve("cp")))
        .startsWith("0", "2")
        .contains("orders 0 120", "page-clicks 0 7");
    assertThat(dataDir.resolve("cp.tmp")).doesNotExist();
    file.write(Map.of());
    assertThat(file.read()).isEmpty();
  }

  @Test
  void corruptCheckpointFilesAreReportedAsSuch() throws IOException {
    OffsetCheckpointFile file = new OffsetCheckpointFile(dataDir.resolve("cp"));
    for (String content :
        new String[] {
          "", "1\n0\n", "0\n2\norders 0 1\n", "0\n1\norders x 1\n", "0\n1\norders 0\n"
        }) {
      Files.writeString(dataDir.resolve("cp"), content);
      assertThatThrownBy(file::read).as(content).isInstanceOf(IOException.class);
    }
  }

  @Test
  void shutdownAndLoadRoundTripWithoutRecovery() throws IOException {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    append(manager.getOrCreateLog(ORDERS_0, SMALL), 20);
    append(manager.getOrCreateLog(CLICKS_0, SMALL), 3);
    manager.getOrCreateLog(ORDERS_0, SMALL).maybeIncrementLogStartOffset(11);
    manager.shutdown();
    assertThat(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT)))
        .contains("orders 0 40");

    LogManager restarted = new LogManager(dataDir, time);
    Map<TopicPartition, PartitionLog> logs = restarted.loadLogs(allTopics);

    assertThat(logs).containsOnlyKeys(ORDERS_0, CLICKS_0);
    assertThat(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE))
        .as("deleted at load")
        .doesNotExist();
    PartitionLog orders = restarted.getLog(ORDERS_0).orElseThrow();
    assertThat(orders.logEndOffset()).isEqualTo(40);
    assertThat(orders.logStartOffset()).isEqualTo(11);
    assertThat(orders.recoveryPoint()).isEqualTo(40);
    assertThat(restarted.getLog(CLICKS_0).orElseThrow().logEndOffset()).isEqualTo(6);
    restarted.shutdown();
  }

  @Test
  void aCrashRecoversFromTheCheckpointedRecoveryPoint() throws IOException {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, SMALL);
    append(log, 20);
    manager.checkpointRecoveryPointsAndLogStartOffsets();
    Path active =
        log.dir()
            .resolve(
                LogSegment.fileName(log.segmentBaseOffsets().get(log.numberOfSegments() - 1))
                    + LogSegment.LOG_SUFFIX);
    Files.write(
        active, new byte[40], java.nio.file.StandardOpenOption.APPEND); // a torn write; no shutdown

    LogManager restarted = new LogManager(dataDir, time);
    PartitionLog recovered = restarted.loadLogs(allTopics).get(ORDERS_0);

    assertThat(recovered.logEndOffset()).isEqualTo(40);
    assertThat(recovered.recoveryPoint()).isEqualTo(40);
    restarted.shutdown();
  }

  @Test
  void aCorruptCheckpointMeansFullRecoveryNotFailure() throws IOException {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    append(manager.getOrCreateLog(ORDERS_0, SMALL), 10);
    manager.shutdown();
    Files.writeString(dataDir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT), "0\n5\ngarbage");
    Files.delete(dataDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));

    LogManager restarted = new LogManager(dataDir, time);
    PartitionLog log = restarted.loadLogs(allTopics).get(ORDERS_0);

    assertThat(log.logEndOffset()).isEqualTo(20);
    restarted.checkpointRecoveryPointsAndLogStartOffsets();
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT)))
        .contains("orders 0 20");
    restarted.shutdown();
  }

  @Test
  void directoriesOfDeletedTopicsAreRemovedAtLoad() throws IOException {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    append(manager.getOrCreateLog(ORDERS_0, SMALL), 1);
    append(manager.getOrCreateLog(CLICKS_0, SMALL), 1);
    manager.shutdown();
    Files.createDirectories(dataDir.resolve("not a partition"));

    LogManager restarted = new LogManager(dataDir, time);
    Map<TopicPartition, PartitionLog> logs =
        restarted.loadLogs(
            tp -> tp.topic().equals("orders") ? Optional.of(SMALL) : Optional.empty());

    assertThat(logs).containsOnlyKeys(ORDERS_0);
    assertThat(dataDir.resolve(CLICKS_0.dirName())).doesNotExist();
    assertThat(dataDir.resolve("not a partition")).exists();
    restarted.shutdown();
  }

  @Test
  void getOrCreateReturnsOneLogPerPartitionAndDeleteRemovesIt() {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    PartitionLog first = manager.getOrCreateLog(ORDERS_0, SMALL);
    assertThat(manager.getOrCreateLog(ORDERS_0, LogConfig.defaults())).isSameAs(first);
    manager.getOrCreateLog(ORDERS_1, SMALL);
    assertThat(manager.allLogs()).hasSize(2);

    manager.deleteLog(ORDERS_0);

    assertThat(manager.getLog(ORDERS_0)).isEmpty();
    assertThat(dataDir.resolve(ORDERS_0.dirName())).doesNotExist();
    assertThat(manager.allLogs())
        .extracting(PartitionLog::topicPartition)
        .containsExactly(ORDERS_1);
    manager.shutdown();
  }

  @Test
  void periodicTasksFlushByTimeApplyRetentionAndCheckpoint() throws IOException {
    LogConfig config =
        LogConfig.fromMap(
            Map.of(
                LogConfig.SEGMENT_BYTES,
                "1024",
                LogConfig.RETENTION_MS,
                "60000",
                LogConfig.FLUSH_MS,
                "5000"));
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(tp -> Optional.of(config));
    PartitionLog log = manager.getOrCreateLog(ORDERS_0, config);
    append(log, 3); // one segment, not flushed
    assertThat(log.recoveryPoint()).isZero();

    time.sleep(5000);
    manager.runPeriodicTasks();
    assertThat(log.recoveryPoint()).isEqualTo(6);
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.RECOVERY_POINT_CHECKPOINT)))
        .contains("orders 0 6");

    time.sleep(60_000);
    manager.runPeriodicTasks();
    assertThat(log.logStartOffset()).isEqualTo(6);
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.LOG_START_OFFSET_CHECKPOINT)))
        .contains("orders 0 6");
    manager.shutdown();
  }

  @Test
  void aTopicRecreatedUnderTheSameNameKeepsItsOwnRecordsAfterACrash() {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    PartitionLog old = manager.getOrCreateLog(ORDERS_0, SMALL, "old-id");
    append(old, 15);
    old.maybeIncrementLogStartOffset(20);
    manager
        .checkpointRecoveryPointsAndLogStartOffsets(); // the old topic's log start offset (20) is
    // on disk
    manager.deleteLog(ORDERS_0);

    PartitionLog recreated = manager.getOrCreateLog(ORDERS_0, SMALL, "new-id");
    append(recreated, 3);
    recreated.flush();
    // crash: no shutdown, no checkpoint after the re-creation

    LogManager restarted = new LogManager(dataDir, time);
    PartitionLog recovered =
        restarted.loadLogs(allTopics, tp -> Optional.of("new-id")).get(ORDERS_0);
    assertThat(recovered.logStartOffset()).isZero();
    assertThat(recovered.logEndOffset()).isEqualTo(6);
  }

  @Test
  void aLogOfAnEarlierTopicWithTheSameNameIsDeletedAtLoad() {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    append(manager.getOrCreateLog(ORDERS_0, SMALL, "old-id"), 3);
    manager.shutdown();

    LogManager restarted = new LogManager(dataDir, time);
    Map<TopicPartition, PartitionLog> logs =
        restarted.loadLogs(allTopics, tp -> Optional.of("new-id"));
    assertThat(logs).doesNotContainKey(ORDERS_0);
    assertThat(restarted.getOrCreateLog(ORDERS_0, SMALL, "new-id").logEndOffset()).isZero();
  }

  @Test
  void gettingALogForAnotherTopicIdReplacesTheOldOne() {
    LogManager manager = new LogManager(dataDir, time);
    manager.loadLogs(allTopics);
    append(manager.getOrCreateLog(ORDERS_0, SMALL, "old-id"), 3);
    assertThat(manager.getOrCreateLog(ORDERS_0, SMALL, "old-id").logEndOffset()).isEqualTo(6);
    assertThat(manager.getOrCreateLog(ORDERS_0, SMALL, "new-id").logEndOffset()).isZero();
    try (var dirs = java.nio.file.Files.list(dataDir)) {
      assertThat(dirs.map(d -> d.getFileName().toString()))
          .noneMatch(name -> name.endsWith("-delete"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
