package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How long each follower has not been caught up, as its leader reports it ({@link
 * ReplicaStatus#outOfSyncMs}): the clock that {@code replica.lag.time.max.ms} bounds, read from the
 * leader's own clock at the time of the status and agreeing with the ISR shrink that acts on it.
 * Driven on {@link IsrState} by hand with a manual clock: broker 1 leads replicas 1, 2, 3.
 */
class ReplicaOutOfSyncTimeTest {
  private static final long LAG_MS = 5_000;
  private static final int LEADER_EPOCH = 4;
  private static final int PARTITION_EPOCH = 9;

  private final ManualClock clock = new ManualClock();
  private final IsrState isr = new IsrState(new TopicPartition("orders", 0), "topic-id", 1);
  private long leaderLogEndOffset;

  private void lead(List<Integer> inSync) {
    isr.onLeaderMetadata(List.of(1, 2, 3), inSync, PARTITION_EPOCH, true, clock.monotonicMs());
  }

  private void append(int records) {
    leaderLogEndOffset += records;
  }

  private void fetch(int replica, long fetchOffset) {
    isr.requireFollower(replica)
        .onFetch(fetchOffset, leaderLogEndOffset, 100 + replica, clock.monotonicMs());
  }

  private long outOfSyncMs(int replica) {
    return isr
        .replicaStatuses(clock.milliseconds(), clock.monotonicMs(), leaderLogEndOffset)
        .stream()
        .filter(r -> r.brokerId() == replica)
        .findFirst()
        .orElseThrow()
        .outOfSyncMs();
  }

  private AlterPartitionRequest shrink() {
    return isr.maybeShrink(
        clock.monotonicMs(), LAG_MS, leaderLogEndOffset, LEADER_EPOCH, PARTITION_EPOCH);
  }

  @Test
  void aCaughtUpFollowerReadsZeroHoweverLongAgoItFetched() {
    lead(List.of(1, 2, 3));
    append(10);
    fetch(2, 10);
    fetch(3, 10);
    clock.advance(60_000); // nothing new to copy meanwhile: both still have everything

    assertThat(outOfSyncMs(2)).isZero();
    assertThat(outOfSyncMs(3)).isZero();
    assertThat(outOfSyncMs(1)).as("the leader itself").isZero();
    assertThat(shrink()).isNull();
  }

  @Test
  void aFollowerThatStopsFetchingCountsUpFromItsLastCatchUpAndLeavesTheIsrJustPastTheLimit() {
    lead(List.of(1, 2, 3));
    append(10);
    fetch(2, 10);
    fetch(3, 10);
    long caughtUpMs = clock.monotonicMs();

    clock.advance(1_000);
    append(5); // replica 3 stops fetching from here; replica 2 keeps up
    fetch(2, 15);
    clock.advance(2_200);
    assertThat(outOfSyncMs(3)).isEqualTo(3_200);
    assertThat(outOfSyncMs(2)).isZero();

    clock.advance(LAG_MS - 3_200);
    assertThat(outOfSyncMs(3)).isEqualTo(clock.monotonicMs() - caughtUpMs).isEqualTo(LAG_MS);
    assertThat(shrink()).as("exactly the limit is not yet too long").isNull();

    clock.advance(1);
    assertThat(outOfSyncMs(3)).isEqualTo(LAG_MS + 1);
    AlterPartitionRequest shrink = shrink();
    assertThat(shrink.newIsr()).containsExactly(1, 2);
    assertThat(shrink.reason()).contains("replica 3 not caught up for " + (LAG_MS + 1) + " ms");
  }

  @Test
  void aFollowerBehindButReachingThePreviousEndWasCaughtUpAtItsPreviousFetch() {
    lead(List.of(1, 2, 3));
    append(10);
    fetch(2, 10);
    append(5);
    clock.advance(700);
    fetch(2, 10); // the leader's end is 15 now: behind, so not caught up now ...
    long previousFetchMs = clock.monotonicMs();
    append(5);
    clock.advance(400);
    fetch(2, 15); // ... but it asks for 15, the end at its previous fetch: caught up as of then

    clock.advance(300);
    assertThat(outOfSyncMs(2)).isEqualTo(clock.monotonicMs() - previousFetchMs).isEqualTo(700);
  }

  @Test
  void aReplicaOutOfTheIsrWhenTheEpochBeganIsUnknownUntilItCatchesUp() {
    lead(List.of(1, 2));
    append(10);
    clock.advance(3_000);

    assertThat(outOfSyncMs(3))
        .as("never caught up in this leader epoch: not since 1970")
        .isEqualTo(-1);
    assertThat(outOfSyncMs(2))
        .as("an ISR member counts from the epoch's start until its first fetch")
        .isEqualTo(3_000);

    fetch(3, 10);
    assertThat(outOfSyncMs(3)).isZero();
    append(1);
    clock.advance(1_500);
    assertThat(outOfSyncMs(3)).isEqualTo(1_500);
  }

  /**
   * The monotonic clock may read 0 when an epoch begins (a manual clock, a fresh process): that is
   * a time like any other, not Kafka's "never caught up", so the ISR members count from it.
   */
  @Test
  void anEpochBegunAtMonotonicZeroCountsItsIsrMembersFromThen() {
    long wallMs = 1_700_000_000_000L;
    IsrState fresh = new IsrState(new TopicPartition("orders", 0), "topic-id", 1);
    fresh.onLeaderMetadata(List.of(1, 2, 3), List.of(1, 2, 3), PARTITION_EPOCH, true, 0);

    ReplicaStatus two = fresh.replicaStatuses(wallMs, 3_000, 10).get(1);
    assertThat(two.outOfSyncMs()).isEqualTo(3_000);
    assertThat(two.lastCaughtUpMs()).isEqualTo(wallMs - 3_000);
    assertThat(fresh.maybeShrink(LAG_MS, LAG_MS, 10, LEADER_EPOCH, PARTITION_EPOCH)).isNull();
    assertThat(fresh.maybeShrink(LAG_MS + 1, LAG_MS, 10, LEADER_EPOCH, PARTITION_EPOCH).newIsr())
        .containsExactly(1);
  }
}
