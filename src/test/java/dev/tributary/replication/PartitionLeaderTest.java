package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.NotEnoughReplicasAfterAppendException;
import dev.tributary.common.errors.NotEnoughReplicasException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader half of {@link Partition}, driven by hand: follower fetches are calls to {@link
 * Partition#fetchRecords}, ISR changes are captured from a fake {@link AlterPartitionSender} and
 * committed by calling {@link Partition#becomeLeader} again in the same leader epoch, as replaying
 * the metadata would.
 */
class PartitionLeaderTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final String TOPIC_ID = "topic-id-1";
  private static final int LEADER_EPOCH = 5;
  private static final int PARTITION_EPOCH = 10;
  private static final long LAG_MS = 10_000;
  private static final Map<Integer, Long> BROKER_EPOCHS = Map.of(2, 102L, 3, 103L);

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private final List<SentAlter> sent = new ArrayList<>();
  private PartitionLog log;
  private Partition partition;

  private record SentAlter(AlterPartitionRequest request, CompletableFuture<Void> outcome) {}

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  /** Broker 1 leads {@code replicas} with {@code isr} in epoch 5 (partition epoch 10). */
  private Partition leader(List<Integer> replicas, List<Integer> isr, int minInSyncReplicas) {
    log =
        PartitionLog.open(
            dir.resolve(TP.dirName()),
            TP,
            LogConfig.fromMap(
                Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, String.valueOf(minInSyncReplicas))),
            0,
            true,
            clock);
    partition =
        new Partition(
            TP,
            TOPIC_ID,
            log,
            1,
            request -> {
              CompletableFuture<Void> outcome = new CompletableFuture<>();
              sent.add(new SentAlter(request, outcome));
              return outcome;
            },
            0);
    assertThat(
            partition.becomeLeader(
                LEADER_EPOCH, PARTITION_EPOCH, replicas, isr, clock.monotonicMs()))
        .isTrue();
    return partition;
  }

  private static ByteBuffer batch(int records) {
    List<SimpleRecord> list = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      list.add(
          new SimpleRecord(1000L, null, ("v" + i).getBytes(StandardCharsets.UTF_8), List.of()));
    }
    return RecordBatchBuilder.build(list, CompressionType.NONE, 0L, -1);
  }

  private FetchPartitionData fetch(int replicaId, long fetchOffset) {
    return FollowerFetches.fetch(
        partition,
        replicaId,
        BROKER_EPOCHS.get(replicaId),
        true,
        LEADER_EPOCH,
        fetchOffset,
        1 << 20,
        clock.monotonicMs());
  }

  /** Commits {@code isr} as the metadata would: the same leader epoch, the next partition epoch. */
  private void commitIsr(List<Integer> replicas, List<Integer> isr, int partitionEpoch) {
    assertThat(
            partition.becomeLeader(
                LEADER_EPOCH, partitionEpoch, replicas, isr, clock.monotonicMs()))
        .isFalse();
  }

  // -------------------------------------------------------------------------------------------
  // acks

  @Test
  void acksAllCompletesOnlyOnceEveryIsrMemberHasFetchedPastTheRecords() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 2);
    CompletableFuture<Void> acked = partition.appendRecordsAsLeader(batch(3), Acks.ALL).acked();
    assertThat(acked).isNotDone();
    fetch(2, 0);
    fetch(2, 3);
    assertThat(acked).as("replica 3 has not fetched yet").isNotDone();
    assertThat(partition.highWatermark()).isZero();
    fetch(3, 0);
    assertThat(acked).isNotDone();
    fetch(3, 2); // still lacks the last record
    assertThat(partition.highWatermark()).isEqualTo(2);
    assertThat(acked).isNotDone();
    fetch(3, 3);
    assertThat(partition.highWatermark()).isEqualTo(3);
    assertThat(acked).isCompleted();
  }

  @Test
  void anIdempotentRetryIsAcknowledgedOnlyOnceTheOriginalIsCommitted() {
    leader(List.of(1, 2), List.of(1, 2), 2);
    List<SimpleRecord> records =
        List.of(new SimpleRecord(1000L, null, "a".getBytes(StandardCharsets.UTF_8), List.of()));
    ByteBuffer request =
        RecordBatchBuilder.build(records, CompressionType.NONE, 0L, -1, 42L, (short) 0, 0);
    ByteBuffer retry = ByteBuffer.allocate(request.remaining()).put(request.duplicate()).flip();
    Partition.AppendResult original = partition.appendRecordsAsLeader(request, Acks.ALL);

    Partition.AppendResult retried = partition.appendRecordsAsLeader(retry, Acks.ALL);

    assertThat(retried.info().firstOffset()).isEqualTo(original.info().firstOffset()).isZero();
    assertThat(retried.info().recordCount()).isZero();
    assertThat(partition.logEndOffset()).isEqualTo(1);
    assertThat(retried.acked()).as("the original is not on the follower yet").isNotDone();
    fetch(2, 0);
    fetch(2, 1);
    assertThat(original.acked()).isCompleted();
    assertThat(retried.acked()).isCompleted();
  }

  @Test
  void acksLeaderCompletesAtOnceWhileTheHighWatermarkWaitsForTheFollowers() {
    leader(List.of(1, 2), List.of(1, 2), 2);
    Partition.AppendResult result = partition.appendRecordsAsLeader(batch(2), Acks.LEADER);
    assertThat(result.acked()).isCompleted();
    assertThat(result.info().lastOffset()).isEqualTo(1);
    assertThat(partition.highWatermark()).isZero();
  }

  @Test
  void acksAllIsRefusedWithNothingAppendedWhileTheIsrIsSmallerThanMinInsyncReplicas() {
    leader(List.of(1, 2, 3), List.of(1), 2);
    assertThatThrownBy(() -> partition.appendRecordsAsLeader(batch(3), Acks.ALL))
        .isInstanceOf(NotEnoughReplicasException.class);
    assertThat(partition.logEndOffset()).isZero();
    assertThat(log.epochEntries()).containsExactly(Map.entry(LEADER_EPOCH, 0L));
    // acks=1 does not need the ISR, and the single in-sync replica commits it at once.
    assertThat(partition.appendRecordsAsLeader(batch(3), Acks.LEADER).acked()).isCompleted();
    assertThat(partition.logEndOffset()).isEqualTo(3);
    assertThat(partition.highWatermark()).isEqualTo(3);
  }

  @Test
  void anAppendedProduceFailsWithNotEnoughReplicasAfterAppendWhenTheIsrShrinksBelowMinIsrFirst() {
    leader(List.of(1, 2), List.of(1, 2), 2);
    CompletableFuture<Void> acked = partition.appendRecordsAsLeader(batch(2), Acks.ALL).acked();
    CompletableFuture<Void> consumerPoll = partition.awaitHighWatermarkAbove(0);
    commitIsr(
        List.of(1, 2), List.of(1), PARTITION_EPOCH + 1); // replica 2 was dropped before it fetched
    assertThat(partition.highWatermark()).isEqualTo(2);
    assertThat(acked).isCompletedExceptionally();
    assertThatThrownBy(acked::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(NotEnoughReplicasAfterAppendException.class);
    assertThat(consumerPoll).as("consumers may read what is committed").isCompleted();
    assertThat(partition.logEndOffset()).as("the records stay appended").isEqualTo(2);
  }

  @Test
  void becomingFollowerFailsWaitingProducesAndPollsWithNotLeaderOrFollower() {
    leader(List.of(1, 2), List.of(1, 2), 1);
    CompletableFuture<Void> acked = partition.appendRecordsAsLeader(batch(2), Acks.ALL).acked();
    CompletableFuture<Void> consumerPoll = partition.awaitHighWatermarkAbove(5);
    assertThat(
            partition.becomeFollower(
                2, LEADER_EPOCH + 1, PARTITION_EPOCH + 1, List.of(1, 2), List.of(2)))
        .isTrue();
    for (CompletableFuture<Void> waiter : List.of(acked, consumerPoll)) {
      assertThatThrownBy(waiter::join)
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(NotLeaderOrFollowerException.class);
    }
    assertThat(partition.pendingWaiters()).isZero();
    assertThatThrownBy(() -> partition.appendRecordsAsLeader(batch(1), Acks.LEADER))
        .isInstanceOf(NotLeaderOrFollowerException.class);
    assertThatThrownBy(() -> fetch(2, 0)).isInstanceOf(NotLeaderOrFollowerException.class);
  }

  // ------------------------------------------------------------------------------------------- ISR

  @Test
  void followerThatStopsFetchingIsProposedOutOfTheIsrAfterTheLagTimeAndNotBefore() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    clock.advance(1_000);
    fetch(2, 0);
    fetch(3, 0); // both caught up now (nothing to fetch yet); replica 3 then stops fetching
    long caughtUpMs = clock.monotonicMs();
    for (int i = 0; i < 10; i++) {
      clock.advance(1_000);
      partition.appendRecordsAsLeader(batch(1), Acks.LEADER);
      fetch(2, partition.logEndOffset()); // replica 2 keeps up
    }
    assertThat(clock.monotonicMs()).isEqualTo(caughtUpMs + LAG_MS);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).as("exactly replica.lag.time.max.ms is not yet too long").isEmpty();
    clock.advance(1);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).hasSize(1);
    AlterPartitionRequest shrink = sent.get(0).request();
    assertThat(shrink.newIsr()).containsExactly(1, 2);
    assertThat(shrink.leaderId()).isEqualTo(1);
    assertThat(shrink.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(shrink.partitionEpoch()).isEqualTo(PARTITION_EPOCH);
    assertThat(shrink.topicId()).isEqualTo(TOPIC_ID);
    assertThat(shrink.brokerEpochs()).isEmpty();
    // At most one change in flight: the next check proposes nothing more.
    partition.maybeShrinkIsr(clock.monotonicMs() + LAG_MS, LAG_MS);
    assertThat(sent).hasSize(1);
  }

  @Test
  void aCaughtUpFollowerThatStopsFetchingStaysInTheIsrUntilThereIsSomethingNewToCopy() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition.appendRecordsAsLeader(batch(1), Acks.LEADER);
    fetch(2, 1);
    fetch(3, 1); // both have everything; then neither fetches again
    clock.advance(3 * LAG_MS);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent)
        .as("Kafka's rule: a replica at the leader's log end is in sync, however idle")
        .isEmpty();
    partition.appendRecordsAsLeader(batch(1), Acks.LEADER);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).singleElement().extracting(s -> s.request().newIsr()).isEqualTo(List.of(1));
  }

  @Test
  void aFollowerOnAFencedBrokerKeepsFetchingButIsNotProposedIntoTheIsr() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(5), Acks.LEADER);
    fetch(2, 5);
    FollowerFetches.fetch(partition, 3, 103, false, LEADER_EPOCH, 5, 1 << 20, clock.monotonicMs());
    assertThat(sent).as("KIP-841: the controller would refuse it").isEmpty();
    FollowerFetches.fetch(partition, 3, 103, true, LEADER_EPOCH, 5, 1 << 20, clock.monotonicMs());
    assertThat(sent)
        .singleElement()
        .extracting(s -> s.request().newIsr())
        .isEqualTo(List.of(1, 2, 3));
  }

  @Test
  void isrMembersCountAsCaughtUpWhenTheLeaderEpochBegins() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition.maybeShrinkIsr(clock.monotonicMs() + LAG_MS, LAG_MS);
    assertThat(sent).isEmpty();
    partition.maybeShrinkIsr(clock.monotonicMs() + LAG_MS + 1, LAG_MS);
    assertThat(sent).singleElement().extracting(s -> s.request().newIsr()).isEqualTo(List.of(1));
  }

  @Test
  void aCaughtUpFollowerIsProposedBackIntoTheIsrWithTheBrokerEpochItFetchedIn() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(5), Acks.LEADER);
    fetch(2, 5);
    assertThat(partition.highWatermark()).isEqualTo(5);
    fetch(3, 0);
    fetch(3, 4);
    assertThat(sent).as("not yet at the high watermark").isEmpty();
    fetch(3, 5);
    assertThat(sent).hasSize(1);
    AlterPartitionRequest expansion = sent.get(0).request();
    assertThat(expansion.newIsr()).containsExactly(1, 2, 3);
    assertThat(expansion.brokerEpochs()).containsExactly(Map.entry(3, 103L));
    assertThat(expansion.partitionEpoch()).isEqualTo(PARTITION_EPOCH);
    assertThat(partition.statusLine()).contains("pending-isr=[1, 2, 3]");
  }

  @Test
  void theHighWatermarkCoversThePendingAdditionUntilItIsCommitted() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(5), Acks.LEADER);
    fetch(2, 5);
    fetch(3, 5); // proposes [1, 2, 3]
    partition.appendRecordsAsLeader(batch(5), Acks.LEADER);
    fetch(2, 10);
    assertThat(partition.highWatermark()).as("replica 3 may already be in the ISR").isEqualTo(5);
    fetch(3, 8);
    assertThat(partition.highWatermark()).isEqualTo(8);
    commitIsr(List.of(1, 2, 3), List.of(1, 2, 3), PARTITION_EPOCH + 1);
    assertThat(partition.isr()).containsExactly(1, 2, 3);
    assertThat(partition.statusLine()).doesNotContain("pending-isr");
    fetch(3, 10);
    assertThat(partition.highWatermark()).isEqualTo(10);
  }

  @Test
  void aPendingShrinkHoldsTheHighWatermarkAtTheDroppedMemberUntilItIsCommitted() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition.appendRecordsAsLeader(batch(4), Acks.LEADER);
    fetch(2, 4);
    fetch(3, 1);
    clock.advance(LAG_MS + 1);
    fetch(2, 4);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).singleElement().extracting(s -> s.request().newIsr()).isEqualTo(List.of(1, 2));
    assertThat(partition.highWatermark()).isEqualTo(1);
    commitIsr(List.of(1, 2, 3), List.of(1, 2), PARTITION_EPOCH + 1);
    assertThat(partition.highWatermark()).isEqualTo(4);
  }

  @Test
  void theHighWatermarkNeverDecreases() {
    leader(List.of(1, 2), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(6), Acks.LEADER);
    fetch(2, 6);
    assertThat(partition.highWatermark()).isEqualTo(6);
    fetch(2, 2); // the follower truncated and fetches from lower down
    assertThat(partition.highWatermark()).isEqualTo(6);
    // A new leader epoch here forgets every follower's progress, but not the high watermark.
    assertThat(
            partition.becomeLeader(
                LEADER_EPOCH + 1,
                PARTITION_EPOCH + 1,
                List.of(1, 2),
                List.of(1, 2),
                clock.monotonicMs()))
        .isTrue();
    assertThat(partition.highWatermark()).isEqualTo(6);
    partition.appendRecordsAsLeader(batch(1), Acks.LEADER);
    assertThat(partition.highWatermark()).isEqualTo(6);
  }

  @Test
  void anIsrChangeTheControllerRefusesOutrightIsClearedSoTheNextFetchProposesAfresh() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    fetch(2, 0);
    fetch(3, 0);
    assertThat(sent).hasSize(1);
    fetch(3, 0);
    assertThat(sent).as("one change in flight at a time").hasSize(1);
    sent.get(0)
        .outcome()
        .completeExceptionally(new IneligibleReplicaException("replica 3 is fenced"));
    assertThat(partition.statusLine()).doesNotContain("pending-isr");
    fetch(3, 0);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).request().newIsr()).containsExactly(1, 2, 3);
  }

  /**
   * A resend after a lost answer meets a controller that already committed the change, and it
   * answers INVALID_UPDATE_VERSION (the partition epoch moved on). Dropping the expansion then
   * would let the high watermark pass replica 3, which the controller already counts in the ISR and
   * may elect; so it stays pending, counted for the high watermark, until the image arrives.
   */
  @Test
  void anIsrChangeRefusedForAStaleEpochStaysPendingUntilTheMetadataShowsTheOutcome() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    fetch(2, 0);
    fetch(3, 0);
    assertThat(sent).hasSize(1);
    sent.get(0)
        .outcome()
        .completeExceptionally(new InvalidUpdateVersionException("stale partition epoch"));
    assertThat(partition.statusLine()).contains("pending-isr=[1, 2, 3]");

    partition.appendRecordsAsLeader(batch(2), Acks.LEADER);
    fetch(2, 2);
    assertThat(partition.highWatermark())
        .as("replica 3 still counts: the controller may have it in the ISR")
        .isZero();
    fetch(3, 0);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).as("resending cannot help; the metadata will tell").hasSize(1);

    commitIsr(List.of(1, 2, 3), List.of(1, 2, 3), PARTITION_EPOCH + 1);
    assertThat(partition.statusLine()).doesNotContain("pending-isr");
    fetch(3, 2);
    assertThat(partition.highWatermark()).isEqualTo(2);
  }

  @Test
  void anIsrChangeWithAnUnknownOutcomeIsResentOnTheNextCheck() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition.maybeShrinkIsr(clock.monotonicMs() + LAG_MS + 1, LAG_MS);
    assertThat(sent).hasSize(1);
    sent.get(0)
        .outcome()
        .completeExceptionally(new CompletionException(new java.io.IOException("timed out")));
    assertThat(partition.statusLine()).as("it may have been committed").contains("pending-isr=[1]");
    fetch(2, 0);
    assertThat(sent).hasSize(1);
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).request()).isEqualTo(sent.get(0).request());
  }

  /**
   * Regression (failed on 7646179, fixed in ef2110a): the resend of an expansion whose outcome was
   * unknown dropped the broker epochs ({@code requestFor(newIsr, Map.of())}), and {@link
   * dev.tributary.metadata.IsrControl} skips the KIP-903 check when no epoch is given, so a replica
   * whose broker restarted since it caught up could join the ISR.
   */
  @Test
  void aResentExpansionStillCarriesTheBrokerEpochItWasBasedOn() {
    leader(List.of(1, 2, 3), List.of(1, 2), 1);
    fetch(2, 0);
    fetch(3, 0);
    assertThat(sent).hasSize(1);
    sent.get(0)
        .outcome()
        .completeExceptionally(new java.io.UncheckedIOException(new java.io.IOException("lost")));
    partition.maybeShrinkIsr(clock.monotonicMs(), LAG_MS);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).request().newIsr()).containsExactly(1, 2, 3);
    assertThat(sent.get(1).request().brokerEpochs())
        .isEqualTo(sent.get(0).request().brokerEpochs())
        .containsExactly(Map.entry(3, 103L));
  }

  // -------------------------------------------------------------------------------------------
  // fetch checks

  @Test
  void aFetchInAnOlderLeaderEpochIsFencedAndInANewerOneUnknown() {
    leader(List.of(1, 2), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(3), Acks.LEADER);
    assertThatThrownBy(
            () -> FollowerFetches.fetch(partition, 2, 102, true, LEADER_EPOCH - 1, 3, 1 << 20, 0))
        .isInstanceOf(FencedLeaderEpochException.class);
    assertThatThrownBy(
            () -> FollowerFetches.fetch(partition, 2, 102, true, LEADER_EPOCH + 1, 3, 1 << 20, 0))
        .isInstanceOf(UnknownLeaderEpochException.class);
    assertThat(partition.highWatermark()).as("neither fetch counted as progress").isZero();
    assertThatThrownBy(() -> partition.endOffsetForEpoch(LEADER_EPOCH - 1, 0))
        .isInstanceOf(FencedLeaderEpochException.class);
    assertThatThrownBy(() -> partition.endOffsetForEpoch(LEADER_EPOCH + 1, 0))
        .isInstanceOf(UnknownLeaderEpochException.class);
    fetch(2, 3);
    assertThat(partition.highWatermark()).isEqualTo(3);
  }

  @Test
  void aFetchFromABrokerWithoutAReplicaIsRefused() {
    leader(List.of(1, 2), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(3), Acks.LEADER);
    assertThatThrownBy(
            () -> FollowerFetches.fetch(partition, 7, 107, true, LEADER_EPOCH, 3, 1 << 20, 0))
        .isInstanceOf(NotLeaderOrFollowerException.class);
    assertThat(sent).isEmpty();
    assertThat(partition.replicaStatuses(clock))
        .extracting(ReplicaStatus::brokerId)
        .containsExactly(1, 2);
  }

  @Test
  void aFetchOutsideTheLeadersLogIsOutOfRangeAndRecordsNothing() {
    leader(List.of(1, 2), List.of(1, 2), 1);
    partition.appendRecordsAsLeader(batch(3), Acks.LEADER);
    assertThatThrownBy(() -> fetch(2, 4)).isInstanceOf(OffsetOutOfRangeException.class);
    assertThat(partition.replicaStatuses(clock).get(1).logEndOffset()).isEqualTo(-1);
    assertThat(partition.highWatermark()).isZero();
  }

  @Test
  void aFollowerFetchReadsPastTheHighWatermarkAndReportsTheLeadersOffsets() {
    leader(List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition.appendRecordsAsLeader(batch(3), Acks.LEADER);
    FetchPartitionData read = fetch(2, 0);
    assertThat(read.records().remaining()).isPositive();
    assertThat(read.highWatermark()).isZero();
    assertThat(read.logEndOffset()).isEqualTo(3);
    assertThat(read.logStartOffset()).isZero();
    assertThat(read.leaderEpoch()).isEqualTo(LEADER_EPOCH);
  }
}
