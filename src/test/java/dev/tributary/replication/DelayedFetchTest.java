package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.EpochEndOffset;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * {@link DelayedFetch} alone, with partitions whose watches the test fires and reads it scripts: it
 * watches each partition from the bound its last read found, reads again once per round of watches,
 * answers when the read satisfies min.bytes (or errs, or diverges), and at the deadline answers
 * whatever one more read finds.
 */
class DelayedFetchTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final List<PartitionFetch> FETCHES =
      List.of(PartitionFetch.of(P0, 3, 1_000), PartitionFetch.of(P1, 7, 1_000));

  private final ManualClock clock = new ManualClock();
  private final Map<TopicPartition, List<Long>> watchedAbove = new HashMap<>();
  private final Map<TopicPartition, List<CompletableFuture<Void>>> watches = new HashMap<>();
  private final Queue<List<FetchPartitionData>> reads = new ArrayDeque<>();
  private int readCount;

  private DelayedFetch.Watchable watchable(PartitionFetch fetch) {
    return offset -> {
      CompletableFuture<Void> watch = new CompletableFuture<>();
      watchedAbove.computeIfAbsent(fetch.topicPartition(), tp -> new ArrayList<>()).add(offset);
      watches.computeIfAbsent(fetch.topicPartition(), tp -> new ArrayList<>()).add(watch);
      return watch;
    };
  }

  private List<FetchPartitionData> read() {
    readCount++;
    return reads.remove();
  }

  private CompletableFuture<List<FetchPartitionData>> start(
      FetchParams params, List<FetchPartitionData> firstRead) {
    return new DelayedFetch(params, FETCHES, this::watchable, this::read, Runnable::run)
        .start(firstRead, clock);
  }

  private static FetchParams consumer(int minBytes) {
    return FetchParams.consumer(5_000, minBytes, 1 << 20);
  }

  /** One partition's read: {@code bytes} of records, the high watermark and log end given. */
  private static FetchPartitionData data(
      TopicPartition tp, int bytes, long highWatermark, long logEndOffset) {
    return new FetchPartitionData(
        tp,
        Errors.NONE,
        null,
        highWatermark,
        highWatermark,
        0,
        logEndOffset,
        null,
        1,
        0,
        ByteBuffer.allocate(bytes));
  }

  private CompletableFuture<Void> lastWatch(TopicPartition tp) {
    List<CompletableFuture<Void>> all = watches.get(tp);
    return all.get(all.size() - 1);
  }

  @Test
  void aConsumerWatchesEachPartitionsHighWatermarkFromWhereItsReadFoundIt() {
    start(consumer(10), List.of(data(P0, 0, 5, 9), data(P1, 0, 0, 9)));

    assertThat(watchedAbove.get(P0)).as("the high watermark it read, 5").containsExactly(5L);
    assertThat(watchedAbove.get(P1)).as("its fetch offset, 7").containsExactly(7L);
  }

  @Test
  void aFollowerWatchesTheLogEnd() {
    start(
        FetchParams.follower(2, 0, 5_000, 10, 1 << 20),
        List.of(data(P0, 0, 1, 9), data(P1, 0, 1, 7)));

    assertThat(watchedAbove.get(P0)).containsExactly(9L);
    assertThat(watchedAbove.get(P1)).containsExactly(7L);
  }

  @Test
  void aFiredWatchReadsAgainOnceAndWatchesAgainWhileTheBytesAreTooFew() {
    CompletableFuture<List<FetchPartitionData>> answer =
        start(consumer(10), List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)));
    reads.add(List.of(data(P0, 4, 4, 9), data(P1, 0, 7, 9)));

    lastWatch(P0).complete(null);

    assertThat(readCount).as("the released watch of p1 read nothing").isEqualTo(1);
    assertThat(answer).isNotDone();
    assertThat(watchedAbove.get(P0)).containsExactly(3L, 4L);
    assertThat(watchedAbove.get(P1)).containsExactly(7L, 7L);
    assertThat(watches.get(P1).get(0)).as("the old round's watch was released").isDone();

    List<FetchPartitionData> enough = List.of(data(P0, 4, 4, 9), data(P1, 6, 8, 9));
    reads.add(enough);
    lastWatch(P1).complete(null);

    assertThat(answer).isCompletedWithValue(enough);
    assertThat(readCount).isEqualTo(2);
    assertThat(clock.pendingTasks()).as("the deadline was cancelled").isZero();
    assertThat(lastWatch(P0)).as("released on completion").isDone();
  }

  @Test
  void atTheDeadlineOneMoreReadIsTheAnswerAndLaterWatchesReadNothing() {
    CompletableFuture<List<FetchPartitionData>> answer =
        start(consumer(10), List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)));
    List<FetchPartitionData> short1 = List.of(data(P0, 2, 4, 9), data(P1, 0, 7, 9));
    reads.add(short1);

    clock.advance(4_999);
    assertThat(readCount).isZero();
    clock.advance(1);

    assertThat(answer).isCompletedWithValue(short1);
    assertThat(readCount).isEqualTo(1);
    assertThat(watches.values()).allSatisfy(ws -> assertThat(ws).allMatch(w -> w.isDone()));
  }

  @Test
  void anErrorOrADivergingEpochNeedsNoMoreWaiting() {
    CompletableFuture<List<FetchPartitionData>> failed =
        start(consumer(10), List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)));
    List<FetchPartitionData> notLeader =
        List.of(
            data(P0, 0, 3, 9),
            FetchPartitionData.error(P1, Errors.NOT_LEADER_OR_FOLLOWER, "moved", 2, 5));
    reads.add(notLeader);
    lastWatch(P1).completeExceptionally(new NotLeaderOrFollowerException("moved"));
    assertThat(failed)
        .as("a failed watch is a reason to read again")
        .isCompletedWithValue(notLeader);

    List<FetchPartitionData> diverged =
        List.of(
            new FetchPartitionData(
                P0,
                Errors.NONE,
                null,
                3,
                3,
                0,
                9,
                new EpochEndOffset(1, 2),
                1,
                2,
                ByteBuffer.allocate(0)),
            data(P1, 0, 7, 9));
    assertThat(DelayedFetch.satisfies(consumer(10), diverged)).isTrue();
    assertThat(DelayedFetch.satisfies(consumer(10), List.of(data(P0, 9, 3, 9)))).isFalse();
    assertThat(DelayedFetch.satisfies(consumer(10), List.of(data(P0, 10, 3, 9)))).isTrue();
  }

  @Test
  void aReadThatFailsFailsTheFetch() {
    CompletableFuture<List<FetchPartitionData>> answer =
        new DelayedFetch(
                consumer(10),
                FETCHES,
                this::watchable,
                () -> {
                  throw new IllegalStateException("log closed");
                },
                Runnable::run)
            .start(List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)), clock);

    lastWatch(P0).complete(null);

    assertThatThrownBy(answer::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void aPartitionThatIsNotHereIsNotWatchedAndTheDeadlineStillAnswers() {
    CompletableFuture<List<FetchPartitionData>> answer =
        new DelayedFetch(
                consumer(10),
                FETCHES,
                fetch -> fetch.topicPartition().equals(P0) ? null : watchable(fetch),
                this::read,
                Runnable::run)
            .start(List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)), clock);
    reads.add(List.of(data(P0, 0, 3, 9), data(P1, 0, 7, 9)));

    assertThat(watchedAbove).containsOnlyKeys(P1);
    clock.advance(5_000);
    assertThat(answer).isCompleted();
  }
}
