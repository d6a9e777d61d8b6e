package dev.tributary.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorHarness;
import dev.tributary.group.GroupError;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Auto-commits and committed-offset lookups of a manually assigned consumer, on a manual clock. */
class OffsetCommitterTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final List<TopicPartition> BOTH = List.of(P0, P1);
  private static final long INTERVAL_MS = 5_000;

  private final CoordinatorHarness h = CoordinatorHarness.queuedCompletions(3_000).lead();
  private final SubscriptionState state = new SubscriptionState(internal -> Map.of("orders", 2));

  /** Built after any fail-over, so that it talks to the coordinator leading now. */
  private OffsetCommitter committer() {
    return new OffsetCommitter(
        CoordinatorHarness.GROUP,
        "rest-consumer-1",
        new ConsumerSettings(
            "binary",
            "earliest",
            true,
            INTERVAL_MS,
            1,
            1_000,
            10_000,
            3_000,
            List.of("range"),
            300_000),
        h.coordinator,
        state,
        h.clock,
        h.clock);
  }

  @Test
  void autoCommitRunsEveryIntervalAndSendsOnlyPositionsThatMoved() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 3L, P1, 4L));
    OffsetCommitter committer = committer();
    long startMs = h.clock.milliseconds();

    committer.maybeAutoCommit(startMs + INTERVAL_MS - 1);
    h.drain();
    assertThat(h.committed()).as("not due yet").isEmpty();

    h.clock.advance(INTERVAL_MS);
    committer.maybeAutoCommit(h.clock.milliseconds());
    h.drain();
    long firstMs = h.clock.milliseconds();
    assertThat(h.committed().get(P0).offset()).isEqualTo(3);
    assertThat(h.committed().get(P1).offset()).isEqualTo(4);

    state.seek(Map.of(P0, 5L));
    h.clock.advance(INTERVAL_MS);
    committer.maybeAutoCommit(h.clock.milliseconds());
    h.drain();
    assertThat(h.committed().get(P0).offset()).isEqualTo(5);
    assertThat(h.committed().get(P0).commitTimestampMs()).isEqualTo(h.clock.milliseconds());
    assertThat(h.committed().get(P1).commitTimestampMs())
        .as("P1 did not move, so it was not sent again")
        .isEqualTo(firstMs);
  }

  @Test
  void aNewPartitionStartsFromTheCommittedOffsetOnceTheMovingCoordinatorHasLoaded() {
    assertThat(h.commit("", -1, P0, 3)).isEqualTo(GroupError.NONE);
    h.deferLoads(true);
    h.failOver(); // the new coordinator answers "loading" until its loads run
    state.assign(BOTH);
    long epoch = state.assignment().epoch();
    OffsetCommitter committer = committer();

    CompletableFuture<Void> refreshed =
        committer.refreshCommittedOffsetsIfNeeded(BOTH, epoch, h.clock.milliseconds() + 1_000);
    h.drain();
    assertThat(refreshed).as("asks again after the backoff").isNotDone();
    assertThat(state.fetchPositions(BOTH)).isEmpty();

    h.runLoads();
    h.advance(GroupMembership.RETRY_BACKOFF_MS);
    assertThat(refreshed).isDone();
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 3L));
    assertThat(state.partitionsNeedingReset(BOTH)).isEqualTo(Map.of(P1, "earliest"));
  }

  @Test
  void withoutTimeLeftACallGoesOnWithoutTheCommittedOffsetsAndALaterCallGetsThem() {
    assertThat(h.commit("", -1, P0, 3)).isEqualTo(GroupError.NONE);
    h.deferLoads(true);
    h.failOver();
    state.assign(List.of(P0));
    long epoch = state.assignment().epoch();
    OffsetCommitter committer = committer();

    CompletableFuture<Void> refreshed =
        committer.refreshCommittedOffsetsIfNeeded(
            List.of(P0), epoch, h.clock.milliseconds() + GroupMembership.RETRY_BACKOFF_MS);
    h.drain();
    assertThat(refreshed).isDone();
    assertThat(state.initializingPartitions(List.of(P0))).isEqualTo(List.of(P0));

    h.runLoads();
    h.now(
        committer.refreshCommittedOffsetsIfNeeded(
            List.of(P0), epoch, h.clock.milliseconds() + 1_000));
    assertThat(state.fetchPositions(List.of(P0))).isEqualTo(Map.of(P0, 3L));
  }
}
