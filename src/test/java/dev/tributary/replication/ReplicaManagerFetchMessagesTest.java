package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static dev.tributary.replication.ReplicaHarness.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicaManager#fetchMessages} over many partitions: Kafka's fetch.min.bytes wait (a {@link
 * DelayedFetch} moved by appends, never polled; the manual clock proves the deadline), the byte
 * budget, the leader epoch checks of KIP-320 and the diverging epoch of KIP-595.
 */
class ReplicaManagerFetchMessagesTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final TopicPartition P2 = new TopicPartition("orders", 2);
  private static final TopicPartition LED_4 = new TopicPartition("epochs", 0);
  private static final int MAX = ReplicaHarness.MAX_BYTES;

  /** Every test batch holds one two-letter value, so every batch has this size. */
  private static final int BATCH = batch("aa").remaining();

  @TempDir Path dir;
  private ReplicaHarness harness;
  private ReplicaManager replicas;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    harness.placeTopic("orders", Map.of(), on(1), on(1), on(1));
    harness.placeTopic("epochs", Map.of(), replicated(4, 1, 2));
    replicas = harness.replicaManager();
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private CompletableFuture<List<FetchPartitionData>> consume(
      long maxWaitMs, int minBytes, int maxBytes, PartitionFetch... partitions) {
    return replicas.fetchMessages(
        FetchParams.consumer(maxWaitMs, minBytes, maxBytes), List.of(partitions));
  }

  private static PartitionFetch from(TopicPartition tp, long offset) {
    return PartitionFetch.of(tp, offset, MAX);
  }

  private static PartitionFetch inEpoch(TopicPartition tp, long offset, int currentLeaderEpoch) {
    return new PartitionFetch(tp, offset, MAX, currentLeaderEpoch, PartitionFetch.NO_EPOCH);
  }

  // ------------------------------------------------------------------------------------ min bytes

  @Test
  void minBytesWaitsUntilEnoughBytesArriveAcrossPartitions() {
    CompletableFuture<List<FetchPartitionData>> poll =
        consume(5_000, 2 * BATCH, MAX, from(P0, 0), from(P1, 0));

    harness.append(P0, batch("aa"));
    assertThat(poll).as("one batch is fewer than min.bytes").isNotDone();
    harness.append(P1, batch("bb"));

    assertThat(poll).as("no clock moved: the append completed it").isCompleted();
    assertThat(poll.join())
        .extracting(d -> values(d.records()))
        .containsExactly(List.of("aa"), List.of("bb"));
    assertThat(harness.clock.pendingTasks()).as("the deadline was cancelled").isZero();
  }

  @Test
  void atMaxWaitTheFetchAnswersWithWhatThereIs() {
    CompletableFuture<List<FetchPartitionData>> poll =
        consume(5_000, 10 * BATCH, MAX, from(P0, 0), from(P1, 0));
    harness.append(P0, batch("aa"));

    harness.clock.advance(4_999);
    assertThat(poll).isNotDone();
    harness.clock.advance(1);

    assertThat(poll).isCompleted();
    assertThat(values(poll.join().get(0).records())).containsExactly("aa");
    assertThat(poll.join().get(1).records().hasRemaining()).isFalse();
  }

  @Test
  void enoughBytesAtOnceAnswersWithoutWaiting() {
    harness.append(P0, batch("aa"));
    harness.append(P1, batch("bb"));

    assertThat(consume(5_000, 2 * BATCH, MAX, from(P0, 0), from(P1, 0))).isCompleted();
    assertThat(harness.clock.pendingTasks()).isZero();
  }

  @Test
  void aFetchForFileSlicesAnswersTheSameBatchesLeftInTheSegmentFile() throws Exception {
    harness.append(P0, batch("aa"));
    harness.append(P0, batch("bb"));
    FetchParams inFiles =
        new FetchParams(
            FetchParams.CONSUMER_REPLICA_ID, -1, 0, 1, MAX, FetchIsolation.HIGH_WATERMARK, true);

    FetchPartitionData inMemory = consume(0, 1, MAX, from(P0, 1)).join().get(0);
    FetchPartitionData sliced = replicas.fetchMessages(inFiles, List.of(from(P0, 1))).join().get(0);

    assertThat(sliced.records().hasRemaining()).isFalse();
    assertThat(sliced.sizeInBytes()).isEqualTo(inMemory.sizeInBytes()).isPositive();
    java.nio.ByteBuffer copied = java.nio.ByteBuffer.allocate(sliced.sizeInBytes());
    sliced.fileSlice().channel().read(copied, sliced.fileSlice().position());
    assertThat(copied.flip()).isEqualTo(inMemory.records());
    assertThat(sliced.fileSlice().firstOffset()).isEqualTo(1);
    assertThat(sliced.fileSlice().nextOffset()).isEqualTo(2);
    assertThat(sliced.highWatermark()).isEqualTo(inMemory.highWatermark());

    FetchPartitionData nothing =
        replicas.fetchMessages(inFiles, List.of(from(P0, 2))).join().get(0);
    assertThat(nothing.fileSlice()).as("nothing to send: no slice").isNull();
    assertThat(nothing.sizeInBytes()).isZero();
  }

  @Test
  void minBytesZeroAnswersAtOnceEvenWithNothingToRead() {
    CompletableFuture<List<FetchPartitionData>> poll = consume(5_000, 0, MAX, from(P0, 0));

    assertThat(poll).as("Kafka's fetch.min.bytes=0: no wait").isCompleted();
    assertThat(poll.join().get(0).records().hasRemaining()).isFalse();
    assertThat(harness.clock.pendingTasks()).isZero();
  }

  @Test
  void minBytesOneWaitsForAnyData() {
    CompletableFuture<List<FetchPartitionData>> poll = consume(5_000, 1, MAX, from(P0, 0));
    assertThat(poll).isNotDone();

    harness.append(P0, batch("aa"));

    assertThat(poll).isCompleted();
    assertThat(values(poll.join().get(0).records())).containsExactly("aa");
  }

  @Test
  void aFollowersLongPollWaitsForTheLogEndNotTheHighWatermark() {
    harness.append(LED_4, batch("aa"));
    harness.followerFetch(LED_4, 2, 1);
    CompletableFuture<List<FetchPartitionData>> poll =
        replicas.fetchMessages(
            FetchParams.follower(2, harness.brokerEpoch(2), 5_000, 1, MAX),
            List.of(inEpoch(LED_4, 1, 4)));
    assertThat(poll).isNotDone();

    harness.append(LED_4, batch("bb"));

    assertThat(poll).isCompleted();
    FetchPartitionData answer = poll.join().get(0);
    assertThat(values(answer.records())).containsExactly("bb");
    assertThat(answer.highWatermark())
        .as("not committed yet; a follower reads it all the same")
        .isEqualTo(1);
  }

  // ----------------------------------------------------------------------------------- byte budget

  @Test
  void theFirstPartitionWithDataReturnsAWholeBatchBeyondMaxBytesAndTheRestGetNothing() {
    harness.append(P1, batch("aa"));
    harness.append(P1, batch("bb"));
    harness.append(P2, batch("cc"));

    List<FetchPartitionData> answer =
        consume(0, 1, 1, from(P0, 0), from(P1, 0), from(P2, 0)).join();

    assertThat(answer)
        .extracting(d -> values(d.records()))
        .containsExactly(List.of(), List.of("aa"), List.of());
    assertThat(answer).extracting(FetchPartitionData::error).containsOnly(Errors.NONE);
  }

  @Test
  void laterPartitionsShareWhatIsLeftOfMaxBytes() {
    for (TopicPartition tp : List.of(P0, P1, P2)) {
      harness.append(tp, batch("aa"));
      harness.append(tp, batch("bb"));
    }

    List<FetchPartitionData> answer =
        consume(0, 1, 3 * BATCH, from(P0, 0), from(P1, 0), from(P2, 0)).join();

    assertThat(answer)
        .extracting(d -> values(d.records()))
        .containsExactly(List.of("aa", "bb"), List.of("aa"), List.of());
  }

  @Test
  void aPartitionsOwnMaxBytesCapsItsShare() {
    for (TopicPartition tp : List.of(P0, P1)) {
      harness.append(tp, batch("aa"));
      harness.append(tp, batch("bb"));
    }

    List<FetchPartitionData> answer =
        consume(0, 1, MAX, PartitionFetch.of(P0, 0, BATCH), from(P1, 0)).join();

    assertThat(answer)
        .extracting(d -> values(d.records()))
        .containsExactly(List.of("aa"), List.of("aa", "bb"));
  }

  // ------------------------------------------------------------------------------ leader epochs

  @Test
  void aFetchInAnOlderLeaderEpochIsFencedAndANewerOneUnknownNamingTheLeader() {
    harness.append(LED_4, batch("aa"));

    List<FetchPartitionData> answer =
        consume(5_000, 1, MAX, inEpoch(LED_4, 0, 3), inEpoch(LED_4, 0, 5), inEpoch(LED_4, 0, 4))
            .join();

    assertThat(answer)
        .extracting(FetchPartitionData::error)
        .containsExactly(Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH, Errors.NONE);
    assertThat(answer.get(0).leaderId()).isEqualTo(1);
    assertThat(answer.get(0).leaderEpoch()).isEqualTo(4);
    assertThat(answer.get(0).records().hasRemaining()).isFalse();
    assertThat(harness.clock.pendingTasks()).as("an error is answered at once").isZero();
  }

  @Test
  void aFollowerInAStaleEpochIsFencedAndMovesNothing() {
    harness.append(LED_4, batch("aa"));

    FetchPartitionData answer =
        replicas
            .fetchMessages(
                FetchParams.follower(2, harness.brokerEpoch(2), 0, 1, MAX),
                List.of(inEpoch(LED_4, 1, 3)))
            .join()
            .get(0);

    assertThat(answer.error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    assertThat(harness.partition(LED_4).highWatermark()).isZero();
  }

  /**
   * epochs-0 holds offsets 0-2 written in leader epoch 4 and 3-4 in epoch 6; a follower whose last
   * batch is from an epoch the leader never wrote, or whose epoch ends on the leader before its
   * fetch offset, is told where to truncate to and gets no records.
   */
  @Test
  void aFetcherWhoseLastFetchedEpochEndsBeforeItsFetchOffsetGetsTheDivergingEpoch() {
    harness.append(LED_4, batch("a", "b", "c"));
    harness.move(LED_4, new Placement(List.of(1, 2), List.of(1, 2), 1, 6));
    harness.append(LED_4, batch("d", "e"));
    long highWatermark = harness.partition(LED_4).highWatermark();

    assertThat(followerFetch(4, 5).divergingEpoch())
        .as("epoch 5 was never written here: epoch 4 ends at 3")
        .isEqualTo(new EpochEndOffset(4, 3));
    assertThat(followerFetch(4, 4).divergingEpoch())
        .as("epoch 4 ends at 3, before the fetch offset 4")
        .isEqualTo(new EpochEndOffset(4, 3));
    FetchPartitionData diverged = followerFetch(4, 5);
    assertThat(diverged.error()).isEqualTo(Errors.NONE);
    assertThat(diverged.records().hasRemaining()).isFalse();
    assertThat(diverged.logEndOffset()).isEqualTo(5);
    assertThat(harness.partition(LED_4).highWatermark())
        .as("a diverged follower's offset is not its log end")
        .isEqualTo(highWatermark);

    assertThat(followerFetch(5, 9).error())
        .as("an epoch newer than any here has no known end")
        .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);

    FetchPartitionData agreed = followerFetch(3, 4);
    assertThat(agreed.divergingEpoch()).isNull();
    assertThat(values(agreed.records())).containsExactly("d", "e");
  }

  private FetchPartitionData followerFetch(long fetchOffset, int lastFetchedEpoch) {
    CompletableFuture<List<FetchPartitionData>> answer =
        replicas.fetchMessages(
            FetchParams.follower(2, harness.brokerEpoch(2), 5_000, 1, MAX),
            List.of(new PartitionFetch(LED_4, fetchOffset, MAX, 6, lastFetchedEpoch)));
    assertThat(answer).as("a diverging epoch is answered at once").isCompleted();
    return answer.join().get(0);
  }

  @Test
  void aLeadershipChangeCompletesAWaitingFetchNamingTheNewLeaderAndEpoch() {
    CompletableFuture<List<FetchPartitionData>> poll = consume(5_000, 1, MAX, inEpoch(LED_4, 0, 4));
    assertThat(poll).isNotDone();

    harness.move(LED_4, new Placement(List.of(1, 2), List.of(1, 2), 2, 5));

    assertThat(poll).isCompleted();
    FetchPartitionData answer = poll.join().get(0);
    assertThat(answer.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(answer.leaderId()).as("where the client goes next (KIP-951)").isEqualTo(2);
    assertThat(answer.leaderEpoch()).isEqualTo(5);
    assertThat(harness.clock.pendingTasks()).isZero();
  }

  @Test
  void aPartitionLedElsewhereNamesItsLeader() {
    harness.placeTopic("remote", Map.of(), replicated(7, 3, 1));
    TopicPartition remote = new TopicPartition("remote", 0);

    FetchPartitionData answer = consume(5_000, 1, MAX, from(remote, 0)).join().get(0);

    assertThat(answer.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(answer.leaderId()).isEqualTo(3);
    assertThat(answer.leaderEpoch()).isEqualTo(7);
  }

  // -------------------------------------------------------------------------------- registrations

  @Test
  void aFollowerThatIsNotItsBrokersCurrentRegistrationIsRefusedWhole() {
    List<PartitionFetch> fetches = List.of(inEpoch(LED_4, 0, 4));

    assertThatThrownBy(
            () ->
                replicas.fetchMessages(
                    FetchParams.follower(2, harness.brokerEpoch(2) + 1, 0, 1, MAX), fetches))
        .isInstanceOf(StaleBrokerEpochException.class)
        .hasMessageContaining("Broker 2");
    assertThatThrownBy(() -> replicas.fetchMessages(FetchParams.follower(9, 0, 0, 1, MAX), fetches))
        .isInstanceOf(StaleBrokerEpochException.class);
  }
}
