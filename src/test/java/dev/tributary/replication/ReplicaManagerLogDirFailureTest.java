package dev.tributary.replication;

import static dev.tributary.replication.TestBatches.batch;
import static dev.tributary.replication.TestBatches.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.DiskFaults;
import dev.tributary.log.LogCleaner;
import dev.tributary.log.LogDirFailureChannel;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.TopicControl;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader whose disk fills up (docs/adr/0015-offline-log-dir.md): the produce that hit it and
 * every later one fail with KAFKA_STORAGE_ERROR, the high watermark and log end offset stay, the
 * committed records stay readable, and the broker follows the image without creating logs.
 */
class ReplicaManagerLogDirFailureTest {
  @TempDir Path dir;
  private final ManualClock scheduler = new ManualClock();
  private final TopicControl control = new TopicControl(new Random(3));
  private final DiskFaults.Switchable disk = DiskFaults.switchable();
  private final AtomicInteger offlineReports = new AtomicInteger();
  private AutoCloseable fault;
  private LogManager logManager;
  private ReplicaManager replicaManager;
  private MetadataImage image = MetadataImage.EMPTY;
  private final TopicPartition orders0 = new TopicPartition("orders", 0);

  @BeforeEach
  void setUp() {
    fault = DiskFaults.install(dir, disk);
    LogDirFailureChannel failures = new LogDirFailureChannel();
    failures.addListener(offline -> offlineReports.incrementAndGet());
    logManager =
        new LogManager(dir, scheduler, Runnable::run, LogCleaner.Config.defaults(), failures);
    logManager.loadLogs(tp -> java.util.Optional.empty());
    replicaManager = new ReplicaManager(1, logManager, scheduler, Runnable::run);
  }

  @AfterEach
  void tearDown() throws Exception {
    replicaManager.shutdown();
    logManager.shutdown();
    fault.close();
  }

  private void apply(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    replicaManager.onMetadataUpdate(image);
  }

  @Test
  void aFullDiskFailsTheProduceWithAStorageErrorAndKeepsTheCommittedRecordsReadable() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    ReplicaManagerCalls.append(replicaManager, orders0, batch("a", "b"), Acks.ALL, 30_000).join();

    disk.diskFull();

    assertThatThrownBy(
            () ->
                ReplicaManagerCalls.append(replicaManager, orders0, batch("c"), Acks.ALL, 30_000)
                    .join())
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
        .hasMessageContaining("No space left on device");
    Partition partition = replicaManager.leaderPartition(orders0);
    assertThat(partition.logEndOffset()).isEqualTo(2);
    assertThat(partition.highWatermark()).isEqualTo(2);
    assertThat(
            values(
                ReplicaManagerCalls.fetch(replicaManager, orders0, 0, 1 << 20, 0).join().records()))
        .containsExactly("a", "b");
    assertThat(offlineReports).hasValue(1);

    replicaManager.onLogDirFailure(); // what the broker runs off the failing thread
    assertThatThrownBy(
            () ->
                ReplicaManagerCalls.append(replicaManager, orders0, batch("d"), Acks.LEADER, 30_000)
                    .join())
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
        .hasMessageContaining("is offline");
    replicaManager.runPeriodicLogTasks(); // nothing to write, nothing thrown

    apply(control.createTopic(image, "later", 1, 1, Map.of(), List.of(1)));
    assertThat(replicaManager.partition(new TopicPartition("later", 0)))
        .as("no log is created in an offline directory")
        .isEmpty();
    assertThat(
            values(
                ReplicaManagerCalls.fetch(replicaManager, orders0, 1, 1 << 20, 0).join().records()))
        .as("whole batches, as ever")
        .containsExactly("a", "b");
    assertThat(offlineReports).hasValue(1);
  }
}
