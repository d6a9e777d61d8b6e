package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's ISR lag across jumps of its wall clock (issue 20): a real {@link ReplicaManager}
 * leading orders-0 on replicas 1, 2, 3 with {@code replica.lag.time.max.ms} 10 s, its wall clock
 * stepped with {@link dev.tributary.common.ManualClock#jumpWallClock} while the monotonic clock
 * goes on. The lag is an interval, so it is measured on the monotonic clock; the replica views
 * still show wall-clock times.
 */
class IsrClockJumpTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final long LAG_MS = 10_000; // ReplicaHarness's replica.lag.time.max.ms
  private static final long TEN_MINUTES_MS = 600_000;

  @TempDir Path dir;
  private ReplicaHarness h;

  @BeforeEach
  void leadOrders0() {
    h = new ReplicaHarness(dir);
    h.placeTopic("orders", Map.of(), Placement.replicated(1, 1, 2, 3));
    h.append(ORDERS_0, batch("a", "b", "c"));
    h.followerFetch(ORDERS_0, 2, 3);
    h.followerFetch(ORDERS_0, 3, 3);
  }

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void aForwardJumpOfMinutesDoesNotDropFollowersAFewRecordsBehind() {
    h.append(ORDERS_0, batch("d", "e"));
    h.clock.advance(1_000);
    h.followerFetch(ORDERS_0, 2, 3); // behind by 2, but caught up as of its previous fetch
    h.followerFetch(ORDERS_0, 3, 3);

    h.clock.jumpWallClock(TEN_MINUTES_MS);
    h.replicaManager().maybeShrinkIsr();

    assertThat(h.alterPartitions()).as("no ISR change proposed").isEmpty();
    assertThat(h.partition(ORDERS_0).isr()).containsExactly(1, 2, 3);
    assertThat(h.partition(ORDERS_0).replicaStatuses(h.clock))
        .filteredOn(r -> !r.isLeader())
        .extracting(ReplicaStatus::outOfSyncMs)
        .as("not caught up for the 1 s since their previous fetch, not for 10 minutes")
        .containsOnly(1_000L);
  }

  @Test
  void aBackwardJumpDoesNotKeepAFollowerThatStoppedFetchingPastTheLagTime() {
    h.append(ORDERS_0, batch("d", "e")); // replica 3 stops fetching here; replica 2 keeps up
    h.followerFetch(ORDERS_0, 2, 5);
    h.clock.jumpWallClock(-TEN_MINUTES_MS);

    h.clock.advance(LAG_MS);
    h.followerFetch(ORDERS_0, 2, 5);
    h.replicaManager().maybeShrinkIsr();
    assertThat(h.alterPartitions()).as("exactly the lag time is not yet too long").isEmpty();

    h.clock.advance(1);
    h.replicaManager().maybeShrinkIsr();
    assertThat(h.alterPartitions()).hasSize(1);
    AlterPartitionRequest shrink = h.alterPartitions().get(0);
    assertThat(shrink.newIsr()).containsExactly(1, 2);
    assertThat(shrink.reason()).contains("replica 3 not caught up for " + (LAG_MS + 1) + " ms");
  }

  @Test
  void theReplicaViewsShowWallClockTimesAsOfTheWallClockNow() {
    h.clock.advance(2_000);
    h.clock.jumpWallClock(TEN_MINUTES_MS);
    long nowMs = h.clock.milliseconds();

    ReplicaStatus leader = h.partition(ORDERS_0).replicaStatuses(h.clock).get(0);
    ReplicaStatus follower = h.partition(ORDERS_0).replicaStatuses(h.clock).get(1);

    assertThat(leader.lastCaughtUpMs()).isEqualTo(nowMs);
    assertThat(follower.lastFetchMs())
        .as("the fetch 2 s ago, on the wall clock as it reads now")
        .isEqualTo(nowMs - 2_000);
    assertThat(follower.lastCaughtUpMs()).isEqualTo(nowMs - 2_000);
    assertThat(follower.outOfSyncMs()).isZero();
  }

  @Test
  void aNewEpochShowsNoFetchYetAndNeverCaughtUpForAReplicaOutsideTheIsr() {
    h.move(ORDERS_0, new Placement(List.of(1, 2, 3), List.of(1, 2), 1, 2));
    h.append(ORDERS_0, batch("d"));
    h.clock.advance(1_000);

    List<ReplicaStatus> statuses = h.partition(ORDERS_0).replicaStatuses(h.clock);

    ReplicaStatus inSync = statuses.get(1);
    assertThat(inSync.lastFetchMs()).as("no fetch yet in this epoch").isEqualTo(-1);
    assertThat(inSync.lastCaughtUpMs())
        .as("an ISR member counts as caught up when the epoch began")
        .isEqualTo(h.clock.milliseconds() - 1_000);
    ReplicaStatus outOfSync = statuses.get(2);
    assertThat(outOfSync.lastFetchMs()).isEqualTo(-1);
    assertThat(outOfSync.lastCaughtUpMs()).as("never in this epoch (Kafka's 0)").isZero();
    assertThat(outOfSync.outOfSyncMs()).isEqualTo(-1);
  }
}
