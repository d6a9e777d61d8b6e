package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.DiskFaults;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.replication.Acks;
import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicaManagerCalls;
import dev.tributary.server.BrokerAdmin;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.BrokerServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** Readiness goes DOWN, with the reason, once the log directory is offline (docs/adr/0015). */
class BrokerHealthIndicatorTest {
  @TempDir Path dataDir;

  @Test
  void anOfflineLogDirectoryTurnsTheBrokerDownWithTheDirectoryAndTheError() throws Exception {
    DiskFaults.Switchable disk = DiskFaults.switchable();
    try (ExecutorScheduler scheduler = new ExecutorScheduler("test-scheduler");
        AutoCloseable fault = DiskFaults.install(dataDir.resolve("logs"), disk)) {
      BrokerServer broker =
          new BrokerServer(
              new BrokerConfig(
                  1,
                  dataDir,
                  "127.0.0.1",
                  0,
                  true,
                  1,
                  1,
                  5_000,
                  60_000,
                  null,
                  null,
                  "",
                  "",
                  100,
                  3_000),
              Time.SYSTEM,
              new Random(1),
              scheduler,
              Runnable::run,
              c -> LocalMetadataLog.open(c.metadataDir(), c.brokerId()),
              null,
              LeaderEndpoint.NONE);
      try {
        broker.startup(18_082);
        BrokerHealthIndicator health = new BrokerHealthIndicator(broker);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        TopicPartition tp = new TopicPartition("orders", 0);
        BrokerAdmin.createTopic(broker, "orders", 1, 1);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> broker.replicaManager().partition(tp).isPresent());

        disk.diskFull();
        assertThatThrownBy(
                () ->
                    ReplicaManagerCalls.append(
                        broker.replicaManager(),
                        tp,
                        RecordBatchBuilder.build(
                            List.of(new SimpleRecord(1L, null, new byte[] {1}, List.of())),
                            CompressionType.NONE,
                            0L,
                            -1),
                        Acks.LEADER,
                        5_000))
            .isInstanceOfSatisfying(
                ApiException.class,
                e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));

        Health down = health.health();
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails().get("reason").toString())
            .contains(dataDir.resolve("logs").toString(), "is offline", "No space left on device")
            .contains("restart the broker");
      } finally {
        broker.close();
      }
    }
  }
}
