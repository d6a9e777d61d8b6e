package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static dev.tributary.replication.ReplicaHarness.values;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.LogManager;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The high watermark checkpoint ({@value LogManager#REPLICATION_OFFSET_CHECKPOINT}, Kafka's): a
 * replica manager rebuilt over the same directory starts each partition at its checkpointed high
 * watermark, clamped into [logStartOffset, logEndOffset]. {@code orders-0} is led here with broker
 * 2 in its ISR, so after a restart nothing moves the high watermark until broker 2 fetches: what it
 * is, the checkpoint made it.
 */
class ReplicaManagerHighWatermarkCheckpointTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

  @TempDir Path dir;
  private ReplicaHarness harness;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    harness.placeTopic("orders", Map.of(), replicated(0, 1, 2));
    for (String value : List.of("a", "b", "c", "d", "e")) {
      harness.append(ORDERS_0, batch(value));
    }
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private long highWatermark() {
    return harness.partition(ORDERS_0).highWatermark();
  }

  private List<String> committed() {
    return values(
        ReplicaManagerCalls.fetch(harness.replicaManager(), ORDERS_0, 0, 1 << 20, 0)
            .join()
            .records());
  }

  @Test
  void aCleanShutdownCheckpointsTheHighWatermarkAndARestartStartsThere() {
    harness.followerFetch(ORDERS_0, 2, 3);
    assertThat(highWatermark()).isEqualTo(3);

    harness.restart(true);

    assertThat(Files.exists(dir.resolve(LogManager.REPLICATION_OFFSET_CHECKPOINT))).isTrue();
    assertThat(harness.partition(ORDERS_0).isLeader()).isTrue();
    assertThat(highWatermark()).isEqualTo(3);
    assertThat(committed())
        .as("consumers see at once what they saw before the restart")
        .containsExactly("a", "b", "c");
  }

  @Test
  void aRestartWithoutShutdownStartsAtThePeriodicCheckpoint() {
    harness.followerFetch(ORDERS_0, 2, 2);
    harness.replicaManager().runPeriodicLogTasks();
    harness.followerFetch(ORDERS_0, 2, 4);
    assertThat(highWatermark()).isEqualTo(4);

    harness.restart(false);

    assertThat(highWatermark()).as("the last periodic checkpoint, not the last HW").isEqualTo(2);
  }

  @Test
  void aCheckpointBeyondTheLogEndIsClampedToTheLogEnd() {
    harness.logManager().checkpointHighWatermarks(Map.of(ORDERS_0, 100L));

    harness.restart(false);

    assertThat(highWatermark()).isEqualTo(5);
  }

  @Test
  void aCheckpointBelowTheLogStartIsClampedToTheLogStart() {
    harness.followerFetch(ORDERS_0, 2, 5);
    harness.partition(ORDERS_0).log().maybeIncrementLogStartOffset(3);
    harness.logManager().checkpointHighWatermarks(Map.of(ORDERS_0, 1L));

    harness.restart(false);

    assertThat(harness.partition(ORDERS_0).logStartOffset()).isEqualTo(3);
    assertThat(highWatermark()).isEqualTo(3);
  }

  @Test
  void aPartitionWithoutACheckpointStartsAtItsLogStart() {
    harness.followerFetch(ORDERS_0, 2, 4);
    harness.logManager().checkpointHighWatermarks(Map.of());

    harness.restart(false);

    assertThat(highWatermark()).isZero();
  }

  @Test
  void aFollowerKeepsTheHighWatermarkItLearnedAcrossARestart() {
    harness.placeTopic("copied", Map.of(), new Placement(List.of(2, 1), List.of(2, 1), 2, 0));
    TopicPartition copied = new TopicPartition("copied", 0);
    List<SimpleRecord> records =
        List.of(
            new SimpleRecord(1_000, null, "x".getBytes(StandardCharsets.UTF_8)),
            new SimpleRecord(1_000, null, "y".getBytes(StandardCharsets.UTF_8)),
            new SimpleRecord(1_000, null, "z".getBytes(StandardCharsets.UTF_8)));
    ByteBuffer fetched = RecordBatchBuilder.build(records, CompressionType.NONE, 0, 0);
    assertThat(harness.partition(copied).appendAsFollower(0, fetched, 2, 0)).isTrue();
    assertThat(harness.partition(copied).highWatermark()).isEqualTo(2);

    harness.restart(true);

    assertThat(harness.partition(copied).isLeader()).isFalse();
    assertThat(harness.partition(copied).highWatermark()).isEqualTo(2);
    assertThat(harness.partition(copied).logEndOffset()).isEqualTo(3);
  }
}
