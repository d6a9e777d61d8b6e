package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.LogConfig;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code acks=all} produce over several partitions ({@link DelayedProduce}, through {@link
 * ReplicaManager#appendRecords}): each partition is answered when its high watermark passes its
 * records, or fails as Kafka fails it; the whole answer waits for all of them or the deadline.
 * {@code a-0} and {@code b-0} are led here with broker 2 in the ISR and {@code
 * min.insync.replicas=2}.
 */
class DelayedProduceTest {
  private static final TopicPartition A = new TopicPartition("a", 0);
  private static final TopicPartition B = new TopicPartition("b", 0);
  private static final Map<String, String> MIN_ISR_2 = Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2");

  @TempDir Path dir;
  private ReplicaHarness harness;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    harness.placeTopic("a", MIN_ISR_2, replicated(0, 1, 2));
    harness.placeTopic("b", MIN_ISR_2, replicated(0, 1, 2));
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produce(
      long timeoutMs, TopicPartition... partitions) {
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      batches.put(tp, batch("x", "y"));
    }
    return harness.replicaManager().appendRecords(batches, Acks.ALL, timeoutMs);
  }

  @Test
  void theAnswerWaitsUntilEveryPartitionsHighWatermarkPassesItsRecords() {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced = produce(30_000, A, B);

    harness.followerFetch(A, 2, 2);
    assertThat(produced).as("b-0 is not replicated yet").isNotDone();
    harness.followerFetch(B, 2, 1);
    assertThat(produced).as("b-0's high watermark is inside its records").isNotDone();
    harness.followerFetch(B, 2, 2);

    assertThat(produced).isCompleted();
    assertThat(List.copyOf(produced.join().keySet())).containsExactly(A, B);
    assertThat(produced.join().values())
        .extracting(ProducePartitionResult::error)
        .containsOnly(Errors.NONE);
    assertThat(produced.join().get(B).lastOffset()).isEqualTo(1);
    assertThat(harness.clock.pendingTasks()).as("the deadline was cancelled").isZero();
  }

  @Test
  void atTheDeadlineOnlyThePartitionsStillWaitingTimeOut() {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced = produce(1_000, A, B);
    harness.followerFetch(A, 2, 2);

    harness.clock.advance(999);
    assertThat(produced).isNotDone();
    harness.clock.advance(1);

    assertThat(produced).isCompleted();
    assertThat(produced.join().get(A).error()).isEqualTo(Errors.NONE);
    assertThat(produced.join().get(B).error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
    assertThat(produced.join().get(B).baseOffset()).isEqualTo(-1);

    harness.followerFetch(B, 2, 2);
    assertThat(produced.join().get(B).error())
        .as("a late acknowledgement changes nothing")
        .isEqualTo(Errors.REQUEST_TIMED_OUT);
  }

  @Test
  void anIsrThatShrinksBelowMinInsyncAfterTheAppendFailsItWithNotEnoughReplicasAfterAppend() {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced = produce(30_000, A, B);
    harness.followerFetch(B, 2, 2);

    harness.move(A, new Placement(List.of(1, 2), List.of(1), 1, 0));

    assertThat(produced).isCompleted();
    assertThat(produced.join().get(A).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    assertThat(produced.join().get(B).error()).isEqualTo(Errors.NONE);
  }

  @Test
  void aPartitionWhoseLeadershipMovesWhileWaitingFailsWithNotLeaderOrFollower() {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced = produce(30_000, A, B);
    harness.followerFetch(B, 2, 2);

    harness.move(A, new Placement(List.of(1, 2), List.of(1, 2), 2, 1));

    assertThat(produced).isCompleted();
    assertThat(produced.join().get(A).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(produced.join().get(B).error()).isEqualTo(Errors.NONE);
  }

  @Test
  void anIsrSmallerThanMinInsyncRefusesTheAppendUpFrontWhileTheOthersWait() {
    harness.move(A, new Placement(List.of(1, 2), List.of(1), 1, 0));

    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced = produce(30_000, A, B);

    assertThat(harness.partition(A).logEndOffset()).as("nothing appended").isZero();
    assertThat(produced).isNotDone();
    harness.followerFetch(B, 2, 2);
    assertThat(produced.join().get(A).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
    assertThat(produced.join().get(B).error()).isEqualTo(Errors.NONE);
  }

  @Test
  void acksOneIsAnsweredAtOnceWhateverTheIsr() {
    Map<TopicPartition, ByteBuffer> batches = Map.of(A, batch("x"));

    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> produced =
        harness.replicaManager().appendRecords(batches, Acks.LEADER, 30_000);

    assertThat(produced).isCompleted();
    assertThat(produced.join().get(A).error()).isEqualTo(Errors.NONE);
    assertThat(harness.clock.pendingTasks()).isZero();
  }
}
