package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.log.DiskFaults;
import dev.tributary.log.LogManager;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.replication.Acks;
import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicaManagerCalls;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole broker, in process, single-broker mode (its own controller; no HTTP): the disk under
 * its logs fills up. The produce fails with the storage error and appends nothing; the broker
 * reports the directory offline in its next heartbeat; the controller fences it (the partition,
 * with no other replica, goes offline); nothing more is written. Then a restart with space back
 * recovers the log and serves it again (docs/adr/0015-offline-log-dir.md).
 */
class BrokerServerLogDirFailureTest {
  @TempDir Path dataDir;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private final Scheduler scheduler =
      (delayMs, task) -> {
        var future = executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
      };
  private final List<BrokerServer> started = new ArrayList<>();
  private final TopicPartition orders0 = new TopicPartition("orders", 0);

  @AfterEach
  void tearDown() {
    started.forEach(BrokerServer::close);
    executor.shutdownNow();
  }

  private BrokerServer start() throws InterruptedException {
    BrokerConfig config =
        new BrokerConfig(
            1, dataDir, "127.0.0.1", 0, true, 1, 1, 5_000, 60_000, null, null, "", "", 100, 3_000);
    BrokerServer broker =
        new BrokerServer(
            config,
            Time.SYSTEM,
            new Random(1),
            scheduler,
            Runnable::run,
            c -> LocalMetadataLog.open(c.metadataDir(), c.brokerId()),
            null,
            LeaderEndpoint.NONE);
    started.add(broker);
    broker.startup(18_081);
    return broker;
  }

  private static ByteBuffer batch(String value) {
    return RecordBatchBuilder.build(
        List.of(new SimpleRecord(1000L, null, value.getBytes(StandardCharsets.UTF_8), List.of())),
        CompressionType.NONE,
        0L,
        -1);
  }

  private static List<String> values(ByteBuffer records) {
    List<String> values = new ArrayList<>();
    for (RecordBatch batch : BatchIterator.strict(records)) {
      batch.records().forEach(r -> values.add(StandardCharsets.UTF_8.decode(r.value()).toString()));
    }
    return values;
  }

  private PartitionImage placement(BrokerServer broker) {
    return broker.metadata().topic("orders").orElseThrow().requirePartition(0);
  }

  @Test
  void aFullDiskFencesTheBrokerAndARestartWithSpaceBackServesTheLogAgain() throws Exception {
    BrokerServer broker = start();
    DiskFaults.Switchable disk = DiskFaults.switchable();
    try (AutoCloseable fault = DiskFaults.install(broker.config().logDir(), disk)) {
      BrokerAdmin.createTopic(broker, "orders", 1, 1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> broker.replicaManager().partition(orders0).isPresent());
      ReplicaManagerCalls.append(broker.replicaManager(), orders0, batch("kept"), Acks.ALL, 5_000)
          .join();

      disk.diskFull();
      assertThatThrownBy(
              () ->
                  ReplicaManagerCalls.append(
                      broker.replicaManager(), orders0, batch("lost"), Acks.ALL, 5_000))
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));

      assertThat(broker.offlineLogDir()).isPresent();
      assertThat(broker.offlineLogDir().get().reason()).contains("No space left on device");
      await("the controller fences the broker")
          .atMost(Duration.ofSeconds(10))
          .until(() -> broker.metadata().broker(1).orElseThrow().fenced());
      assertThat(placement(broker).leader()).as("no other replica to lead").isEqualTo(-1);
      assertThat(placement(broker).isr()).containsExactly(1);
      assertThatThrownBy(() -> broker.replicaManager().leaderPartition(orders0))
          .isInstanceOf(LeaderNotAvailableException.class);
      assertThat(broker.replicaManager().partition(orders0).orElseThrow().logEndOffset())
          .isEqualTo(1);
      broker.runPeriodicLogTasks(); // nothing written, nothing thrown
      broker.close();
      started.remove(broker);
    }
    assertThat(broker.config().logDir().resolve(LogManager.CLEAN_SHUTDOWN_FILE))
        .as("the next start recovers")
        .doesNotExist();

    BrokerServer restarted = start();
    assertThat(restarted.offlineLogDir()).isEmpty();
    assertThat(placement(restarted).leader()).isEqualTo(1);
    assertThat(
            values(
                ReplicaManagerCalls.fetch(restarted.replicaManager(), orders0, 0, 1 << 20, 0)
                    .join()
                    .records()))
        .containsExactly("kept");
    long offset =
        ReplicaManagerCalls.append(
                restarted.replicaManager(), orders0, batch("after"), Acks.ALL, 5_000)
            .join()
            .baseOffset();
    assertThat(offset).isEqualTo(1);
    assertThat(
            values(
                ReplicaManagerCalls.fetch(restarted.replicaManager(), orders0, 1, 1 << 20, 0)
                    .join()
                    .records()))
        .containsExactly("after");
  }

  @Test
  void aStartOnADataDirectoryThatCannotBeWrittenFailsWithOneClearMessage() throws Exception {
    Files.delete(dataDir);
    Files.writeString(dataDir, "not a directory"); // what a read-only or broken mount looks like
    assertThatThrownBy(this::start)
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
        .hasMessageContaining("data directory " + dataDir.toAbsolutePath() + " is not writable")
        .hasMessageContaining("start the broker again");
  }

  @Test
  void aStartOnAFullDiskFailsBeforeWritingAnything() throws Exception {
    try (AutoCloseable fault = DiskFaults.install(dataDir, DiskFaults.switchable().diskFull())) {
      assertThatThrownBy(this::start)
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
          .hasMessageContaining("No space left on device");
    }
    assertThat(dataDir.resolve("meta.properties")).doesNotExist();
  }
}
