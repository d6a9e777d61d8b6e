package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotEnoughReplicasAfterAppendException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.LogAppendInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * How {@link ReplicaManager#appendRecords} (through {@link DelayedProduce#settled}) answers an
 * append whose acknowledgement settled before it looked: leadership can end, or the ISR shrink, on
 * another thread between the append and that look (a reassignment that removes the leader did it in
 * the e2e test), and the records then exist only here, so they must be answered as failed, never as
 * written.
 */
class AppendAcknowledgementTest {
  private static final LogAppendInfo APPENDED = new LogAppendInfo(25, 29, 5, 400, 1L, -1L, 0L);

  @Test
  void anAcknowledgedAppendIsWritten() {
    ProducePartitionResult result =
        DelayedProduce.settled(
            new Partition.AppendResult(APPENDED, CompletableFuture.completedFuture(null)));

    assertThat(result.error()).isEqualTo(Errors.NONE);
    assertThat(result.baseOffset()).isEqualTo(25);
  }

  @Test
  void anAppendWhoseLeadershipEndedBeforeTheLookFailsWithNotLeader() {
    CompletableFuture<Void> acked = new CompletableFuture<>();
    acked.completeExceptionally(
        new CompletionException(new NotLeaderOrFollowerException("Broker 1 no longer leads t-0")));

    ProducePartitionResult result =
        DelayedProduce.settled(new Partition.AppendResult(APPENDED, acked));

    assertThat(result.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(result.errorMessage()).contains("no longer leads");
  }

  @Test
  void anAppendWhoseIsrShrankBeforeTheLookFailsWithNotEnoughReplicasAfterAppend() {
    CompletableFuture<Void> acked = new CompletableFuture<>();
    acked.completeExceptionally(new NotEnoughReplicasAfterAppendException("ISR [1] < 2"));

    ProducePartitionResult result =
        DelayedProduce.settled(new Partition.AppendResult(APPENDED, acked));

    assertThat(result.error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  }

  @Test
  void anAppendStillWaitingHasNoAnswerYet() {
    assertThat(
            DelayedProduce.settled(new Partition.AppendResult(APPENDED, new CompletableFuture<>())))
        .isNull();
  }
}
