package dev.tributary.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.SubscriptionState.ReadPositions;
import dev.tributary.group.OffsetAndMetadata;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The positions of a manually assigned consumer: each change of the assignment forgets what it no
 * longer covers, and answers that arrive after it (committed offsets, resets, reads) change
 * nothing.
 */
class SubscriptionStateTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final List<TopicPartition> BOTH = List.of(P0, P1);

  private final SubscriptionState state = new SubscriptionState(internal -> Map.of("orders", 2));

  @Test
  void aNewManualAssignmentKeepsThePositionsOfPartitionsThatStayAndForgetsTheRest() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 5L, P1, 7L));
    long before = state.assignment().epoch();

    state.assign(List.of(P1));

    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P1, 7L));
    assertThat(state.assignment().epoch()).isGreaterThan(before);
  }

  @Test
  void aCommittedOffsetAnsweredAfterTheAssignmentChangedIsDropped() {
    state.assign(BOTH);
    long epoch = state.assignment().epoch();
    assertThat(state.initializingPartitions(BOTH)).isEqualTo(BOTH);

    state.assign(BOTH); // the same partitions, but a new assignment
    state.maybeSeekToCommitted(
        epoch, BOTH, Map.of(P0, new OffsetAndMetadata(3, -1, "", 0)), "earliest");

    assertThat(state.fetchPositions(BOTH)).isEmpty();
    assertThat(state.partitionsNeedingReset(BOTH)).isEmpty();
  }

  @Test
  void aPartitionWithoutACommittedOffsetWaitsForItsResetStrategy() {
    state.assign(BOTH);
    long epoch = state.assignment().epoch();
    state.maybeSeekToCommitted(
        epoch, BOTH, Map.of(P0, new OffsetAndMetadata(3, -1, "", 0)), "latest");

    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 3L));
    assertThat(state.partitionsNeedingReset(BOTH)).isEqualTo(Map.of(P1, "latest"));
    assertThat(state.initializingPartitions(BOTH)).isEmpty();
  }

  @Test
  void aResetCompletesOnlyWhileItIsStillPendingWithTheSameStrategy() {
    state.assign(BOTH);
    long epoch = state.assignment().epoch();
    state.requestOffsetReset(BOTH, "earliest");
    state.seek(Map.of(P0, 9L)); // the client moved P0 itself meanwhile

    state.maybeCompleteReset(epoch, P0, "earliest", 0);
    state.maybeCompleteReset(epoch, P1, "latest", 20);
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 9L));

    state.maybeCompleteReset(epoch, P1, "earliest", 0);
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 9L, P1, 0L));
    assertThat(state.partitionsNeedingReset(BOTH)).isEmpty();
  }

  @Test
  void anOutOfRangePositionIsResetOnlyIfNoOneMovedItMeanwhile() {
    state.assign(BOTH);
    long epoch = state.assignment().epoch();
    state.seek(Map.of(P0, 50L, P1, 60L));

    assertThat(state.maybeResetOutOfRange(epoch, P0, 50, "earliest")).isTrue();
    assertThat(state.maybeResetOutOfRange(epoch, P1, 40, "earliest")).isFalse();

    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P1, 60L));
    assertThat(state.partitionsNeedingReset(BOTH)).isEqualTo(Map.of(P0, "earliest"));
  }

  @Test
  void seekingAPartitionThatIsNotAssignedIsRefusedAndMovesNothing() {
    state.assign(List.of(P0));
    state.seek(Map.of(P0, 4L));

    assertThatThrownBy(() -> state.seek(Map.of(P0, 8L, P1, 8L)))
        .isInstanceOf(IllegalConsumerStateException.class);
    assertThatThrownBy(() -> state.requestOffsetReset(List.of(P1), "earliest"))
        .isInstanceOf(IllegalConsumerStateException.class);
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 4L));
  }

  @Test
  void aReadThatStraddledAChangeOfTheAssignmentSeesNoPositionToAdvance() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 5L, P1, 7L));
    long epoch = state.assignment().epoch();

    state.assign(BOTH);

    Long seen = state.collect(epoch, (generationId, positions) -> positions.positionIfAssigned(P0));
    assertThat(seen).isNull();
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 5L, P1, 7L));
  }

  @Test
  void aReadAdvancesPositionsOnlyForwardAndOnlyWhileItHoldsTheLock() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 5L));
    long epoch = state.assignment().epoch();
    AtomicReference<ReadPositions> escaped = new AtomicReference<>();

    int generation =
        state.collect(
            epoch,
            (generationId, positions) -> {
              escaped.set(positions);
              assertThatThrownBy(() -> positions.advance(P0, 5))
                  .isInstanceOf(IllegalStateException.class);
              assertThatThrownBy(() -> positions.advance(P1, 1))
                  .isInstanceOf(IllegalStateException.class);
              positions.advance(P0, 8);
              return generationId;
            });

    assertThat(generation).as("outside a group").isEqualTo(-1);
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 8L));
    assertThatThrownBy(() -> escaped.get().advance(P0, 9))
        .isInstanceOf(IllegalStateException.class);
    assertThat(state.fetchPositions(BOTH)).isEqualTo(Map.of(P0, 8L));
  }

  @Test
  void revokingHandsOverThePositionsToCommitThenForgetsEveryPosition() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 5L, P1, 7L));
    long before = state.assignment().epoch();

    SubscriptionState.Consumed consumed = state.revoke(List.of(P1), "member-1", 3);

    assertThat(consumed.positions()).isEqualTo(Map.of(P1, 7L));
    assertThat(consumed.memberId()).isEqualTo("member-1");
    assertThat(consumed.generationId()).isEqualTo(3);
    assertThat(state.fetchPositions(BOTH)).isEmpty();
    assertThat(state.assignment().epoch()).isGreaterThan(before);
  }

  @Test
  void unsubscribingLeavesNothingAssignedAndNothingToRead() {
    state.assign(BOTH);
    state.seek(Map.of(P0, 5L));

    SubscriptionState.Unsubscribed left = state.unsubscribe();

    assertThat(left.membership()).isNull();
    assertThat(left.consumed().positions()).isEqualTo(Map.of(P0, 5L));
    assertThat(left.consumed().inGroup()).isFalse();
    assertThat(state.mode()).isEqualTo(ConsumerInstance.Mode.NONE);
    assertThat(state.assignedPartitions()).isEmpty();
    assertThat(state.fetchPositions(BOTH)).isEmpty();
  }
}
