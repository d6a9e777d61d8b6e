package dev.tributary.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.GroupState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** GroupMembership against a real GroupCoordinator, through direct calls on a manual clock. */
class GroupMembershipTest {
  private final MemberCluster cluster = new MemberCluster();

  @Test
  void threeMembersSplitSixPartitionsWithNoOverlap() {
    SimulatedMember a = cluster.add();
    SimulatedMember b = cluster.add();
    SimulatedMember c = cluster.add();
    cluster.runUntilSettled(List.of(a, b, c), 30_000);
    Set<TopicPartition> all = new HashSet<>();
    for (SimulatedMember m : List.of(a, b, c)) {
      assertEquals(2, m.owned().size(), cluster.status());
      all.addAll(m.owned());
    }
    assertEquals(6, all.size());
    assertEquals(1, a.membership.generationId(), "one rebalance for members that came together");
  }

  @Test
  void aMemberWhoseClientStopsPollingLeavesAfterTheSessionTimeoutAndTheOthersGetItsPartitions() {
    SimulatedMember a = cluster.add();
    SimulatedMember b = cluster.add();
    SimulatedMember c = cluster.add();
    cluster.runUntilSettled(List.of(a, b, c), 30_000);
    c.polling = false;
    long pausedAtMs = cluster.h.clock.milliseconds();
    while (cluster.h.clock.milliseconds() < pausedAtMs + 10_000 - MemberCluster.STEP_MS) {
      cluster.step();
      assertEquals(2, c.owned().size(), "still a member: " + cluster.status());
    }
    cluster.run(2 * MemberCluster.STEP_MS);
    assertTrue(c.owned().isEmpty());
    assertEquals(2, cluster.h.describe().members().size(), "it left the group");
    cluster.runUntilSettled(List.of(a, b), 30_000);
    assertEquals(3, a.owned().size());
    assertEquals(3, b.owned().size());
  }

  @Test
  void aFourthMemberJoiningRebalances() {
    List<SimulatedMember> live =
        new java.util.ArrayList<>(List.of(cluster.add(), cluster.add(), cluster.add()));
    cluster.runUntilSettled(live, 30_000);
    int generation = live.get(0).membership.generationId();
    live.add(cluster.add());
    cluster.runUntilSettled(live, 30_000);
    assertEquals(generation + 1, live.get(0).membership.generationId());
    assertEquals(List.of(1, 1, 2, 2), live.stream().map(m -> m.owned().size()).sorted().toList());
  }

  @Test
  void aMemberFencedByTheCoordinatorStopsServingBeforeTheOthersGetItsPartitions() {
    cutOffMemberStopsServingBeforeTheOthersGetItsPartitions(() -> {});
    assertEquals(GroupState.STABLE, cluster.h.state());
  }

  /**
   * After the broker's wall clock steps back ten minutes, a member whose heartbeats stop is still
   * removed after its session, and stops serving before the others take its partitions: both the
   * coordinator's session and the member's own count on the monotonic clock.
   */
  @Test
  void aBackwardJumpOfTheWallClockDoesNotLetACutOffMemberServeOn() {
    cutOffMemberStopsServingBeforeTheOthersGetItsPartitions(
        () -> cluster.h.clock.jumpWallClock(-600_000));
  }

  /**
   * Three members settle; then, after {@code beforeCut}, member c's heartbeats no longer reach the
   * coordinator: a and b end up with its partitions, and no partition is owned twice at any step.
   */
  private void cutOffMemberStopsServingBeforeTheOthersGetItsPartitions(Runnable beforeCut) {
    SimulatedMember a = cluster.add();
    SimulatedMember b = cluster.add();
    SimulatedMember c = cluster.add();
    cluster.runUntilSettled(List.of(a, b, c), 30_000);
    List<TopicPartition> cHad = c.owned();
    beforeCut.run();
    c.cutUntilMs = Long.MAX_VALUE;
    cluster.runUntilSettled(List.of(a, b), 40_000); // the invariant is checked at every step
    assertTrue(c.owned().isEmpty());
    Set<TopicPartition> ab = new HashSet<>(a.owned());
    ab.addAll(b.owned());
    assertTrue(ab.containsAll(cHad));
  }

  /**
   * The leader's SyncGroup takes 4 s to arrive; the follower synced at once and waited. Once it has
   * its assignment, its heartbeats stop arriving: it serves until session.timeout.ms after its
   * assignment arrived, so the coordinator must not count its session from its sync request.
   */
  @Test
  void aFollowerWhoseAssignmentCameLateIsNotRemovedWhileItStillServes() {
    SimulatedMember a = cluster.add(); // the leader: first to join
    a.syncDelayMs = 4_000;
    SimulatedMember b = cluster.add();
    cluster.runUntilSettled(List.of(a, b), 30_000);
    a.syncDelayMs = 0;
    b.cutUntilMs = Long.MAX_VALUE;
    cluster.runUntilSettled(List.of(a), 40_000);
    assertFalse(b.owned().size() > 0);
  }

  /**
   * A heartbeat answered late (a slow network, or the member's broker paused after the coordinator
   * answered) confirms the member only as of when it was sent: the coordinator counts the session
   * from when it received the heartbeat.
   */
  @Test
  void aLateHeartbeatAnswerDoesNotExtendTheMembersOwnership() {
    SimulatedMember a = cluster.add();
    SimulatedMember b = cluster.add();
    cluster.runUntilSettled(List.of(a, b), 30_000);
    b.heartbeatAnswerDelayMs = 2_500; // answers arrive 2.5 s late...
    cluster.run(3_100); // ...and one heartbeat went out (and was answered late)
    b.cutUntilMs = Long.MAX_VALUE; // then nothing more reaches the coordinator
    cluster.runUntilSettled(List.of(a), 40_000);
    assertTrue(b.owned().isEmpty());
  }
}
