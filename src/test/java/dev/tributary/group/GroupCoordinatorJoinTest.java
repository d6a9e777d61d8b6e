package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.JoinedMember;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.InMemoryCoordinatorLog.Mode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Join and sync on the coordinator: Kafka's classic rebalance, step by step on a manual clock. */
class GroupCoordinatorJoinTest {
  private final CoordinatorHarness h = CoordinatorHarness.direct(3_000).lead();

  @Test
  void aJoinWithoutAMemberIdIsToldItsIdAndAddsNobodyUntilItJoinsWithIt() {
    JoinResult told = h.now(h.rawJoin("", "a"));
    assertEquals(GroupError.MEMBER_ID_REQUIRED, told.error());
    assertTrue(told.memberId().startsWith("a-"));
    assertTrue(h.describe().members().isEmpty(), "a lost answer leaves no member behind");

    CompletableFuture<JoinResult> joined = h.rawJoin(told.memberId(), "a");
    h.advance(3_000);
    assertEquals(GroupError.NONE, h.now(joined).error());
    assertEquals(told.memberId(), h.now(joined).memberId());
    assertEquals(1, h.describe().members().size());
  }

  @Test
  void aMemberIdNeverHandedOutOrForgottenAfterTheSessionTimeoutIsUnknown() {
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.now(h.rawJoin("a-made-up", "a")).error());
    JoinResult told = h.now(h.rawJoin("", "a"));
    h.advance(CoordinatorHarness.SESSION_MS);
    assertEquals(
        GroupError.UNKNOWN_MEMBER_ID,
        h.now(h.rawJoin(told.memberId(), "a")).error(),
        "an id handed out but not joined with within the session timeout is forgotten");
  }

  @Test
  void aFirstJoinAloneCompletesExactlyAtTheInitialRebalanceDelay() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    h.advance(2_999);
    assertFalse(a.isDone());
    h.advance(1);
    JoinResult r = h.now(a);
    assertEquals(GroupError.NONE, r.error());
    assertEquals(1, r.generationId());
  }

  @Test
  void firstJoinWaitsTheInitialRebalanceDelayAndExtendsWhileMembersKeepArriving() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    h.advance(2_000);
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(1_000); // the first delay is over, but b arrived during it: wait another delay
    assertFalse(a.isDone() || b.isDone());
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    h.advance(2_999);
    assertFalse(a.isDone() || b.isDone());
    h.advance(1);
    assertEquals(1, h.now(a).generationId());
    assertEquals(1, h.now(b).generationId());
  }

  /** Kafka sets newMemberAdded only at generation 0 (GroupCoordinator.addMemberAndRebalance). */
  @Test
  void anEmptyGroupWithEarlierGenerationsWaitsOneInitialDelayUnextended() {
    StableGroup g = StableGroup.of(h, 1);
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), ""));
    assertEquals(GroupState.EMPTY, h.state());
    CompletableFuture<JoinResult> a = h.join("", "a");
    h.advance(2_000);
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(999);
    assertFalse(a.isDone() || b.isDone());
    h.advance(1); // one delay after a's join, although b arrived during it
    assertEquals(g.generation() + 2, h.now(a).generationId());
    assertEquals(2, h.now(a).members().size());
  }

  @Test
  void theInitialDelayNeverExtendsPastTheRebalanceTimeout() {
    CompletableFuture<JoinResult> a = h.join("", "a", 10_000, 5_000, "range");
    h.advance(2_000);
    CompletableFuture<JoinResult> b = h.join("", "b", 10_000, 5_000, "range");
    h.advance(2_000);
    CompletableFuture<JoinResult> c = h.join("", "c", 10_000, 5_000, "range");
    h.advance(999); // t = 4999: still waiting
    assertFalse(a.isDone() || b.isDone() || c.isDone());
    h.advance(1); // t = 5000 = the rebalance timeout, although c arrived in the last delay
    assertEquals(3, h.now(a).members().size());
    assertTrue(h.now(c).error() == GroupError.NONE);
  }

  @Test
  void allMembersJoiningCompletesTheJoinWithTheNextGenerationALeaderAndTheProtocolVotedFor() {
    CompletableFuture<JoinResult> a = h.join("", "a", "range", "sticky");
    CompletableFuture<JoinResult> b = h.join("", "b", "sticky", "range");
    CompletableFuture<JoinResult> c = h.join("", "c", "sticky", "range");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    JoinResult ra = h.now(a);
    JoinResult rb = h.now(b);
    JoinResult rc = h.now(c);
    for (JoinResult r : List.of(ra, rb, rc)) {
      assertEquals(GroupError.NONE, r.error());
      assertEquals(1, r.generationId());
      assertEquals("sticky", r.protocolName(), "two votes for sticky, one for range");
      assertEquals(ra.memberId(), r.leaderId(), "the first member to join leads");
    }
    assertEquals(
        Set.of(ra.memberId(), rb.memberId(), rc.memberId()),
        ra.members().stream().map(JoinedMember::memberId).collect(Collectors.toSet()),
        "the leader sees every member");
    for (JoinedMember m : ra.members()) {
      assertArrayEquals(CoordinatorHarness.subscription("orders"), m.metadata());
    }
    assertTrue(rb.members().isEmpty() && rc.members().isEmpty(), "followers see no members");
    assertEquals(GroupState.COMPLETING_REBALANCE, h.state());

    h.now(h.sync(ra.memberId(), 1, Map.of()));
    h.now(h.sync(rb.memberId(), 1));
    h.now(h.sync(rc.memberId(), 1));
    // b changes its preference: a rebalance, which completes as soon as all three have rejoined.
    CompletableFuture<JoinResult> b2 = h.join(rb.memberId(), "b", "range", "sticky");
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    assertEquals(GroupError.REBALANCE_IN_PROGRESS, h.heartbeat(ra.memberId(), 1));
    CompletableFuture<JoinResult> a2 = h.join(ra.memberId(), "a", "range", "sticky");
    assertFalse(b2.isDone());
    CompletableFuture<JoinResult> c2 = h.join(rc.memberId(), "c", "sticky", "range");
    for (CompletableFuture<JoinResult> f : List.of(a2, b2, c2)) {
      JoinResult r = h.now(f);
      assertEquals(2, r.generationId());
      assertEquals("range", r.protocolName(), "now two votes for range");
      assertEquals(ra.memberId(), r.leaderId(), "the leader stays the leader");
    }
  }

  @Test
  void aTiedVoteGoesToTheProtocolNameFirstInSortOrder() {
    CompletableFuture<JoinResult> a = h.join("", "a", "sticky", "range");
    CompletableFuture<JoinResult> b = h.join("", "b", "range", "sticky");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    assertEquals("range", h.now(a).protocolName());
    assertEquals("range", h.now(b).protocolName());
  }

  @Test
  void aMemberSharingNoAssignorWithTheGroupIsRefused() {
    h.join("", "a", "range", "sticky");
    JoinResult r = h.now(h.join("", "d", "roundrobin"));
    assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, r.error());
  }

  @Test
  void syncFromTheLeaderStoresTheGroupMetadataAndOnlyThenAnswersEveryMember() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    String leader = h.now(a).memberId();
    String follower = h.now(b).memberId();
    byte[] forA = CoordinatorHarness.assignment(new TopicPartition("orders", 0));
    byte[] forB = CoordinatorHarness.assignment(new TopicPartition("orders", 1));

    h.log.mode(Mode.HOLD);
    CompletableFuture<SyncResult> syncB = h.sync(follower, 1);
    CompletableFuture<SyncResult> syncA = h.sync(leader, 1, Map.of(leader, forA, follower, forB));
    assertEquals(1, h.log.held().size(), "the leader's sync writes the group's metadata");
    GroupRecords.StoredGroup stored = last(h.log.groupRecords(0, CoordinatorHarness.GROUP));
    assertEquals(1, stored.generationId());
    assertEquals(leader, stored.leaderId());
    assertEquals("range", stored.protocolName());
    assertEquals(2, stored.members().size());
    for (GroupRecords.StoredMember m : stored.members()) {
      assertArrayEquals(m.memberId().equals(leader) ? forA : forB, m.assignment());
    }
    assertFalse(syncA.isDone() || syncB.isDone(), "nobody is answered before the write commits");
    assertEquals(GroupState.COMPLETING_REBALANCE, h.state());

    h.log.releaseAll();
    assertArrayEquals(forA, h.now(syncA).assignment());
    assertArrayEquals(forB, h.now(syncB).assignment());
    assertEquals(GroupState.STABLE, h.state());
  }

  @Test
  void aFollowerSyncingBeforeTheLeaderWaitsForTheLeader() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    String leader = h.now(a).memberId();
    String follower = h.now(b).memberId();
    CompletableFuture<SyncResult> syncB = h.sync(follower, 1);
    h.advance(5_000);
    assertFalse(syncB.isDone());
    byte[] forB = CoordinatorHarness.assignment(new TopicPartition("orders", 1));
    h.now(h.sync(leader, 1, Map.of(follower, forB)));
    assertArrayEquals(forB, h.now(syncB).assignment());
  }

  @Test
  void aLeaderSyncWhoseWriteFailsAnswersEveryoneTheErrorAndRebalances() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    CompletableFuture<SyncResult> syncB = h.sync(h.now(b).memberId(), 1);
    h.log.mode(Mode.NOT_LEADER);
    SyncResult syncA = h.now(h.sync(h.now(a).memberId(), 1, Map.of()));
    assertEquals(GroupError.NOT_COORDINATOR, syncA.error());
    assertEquals(GroupError.NOT_COORDINATOR, h.now(syncB).error());
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
  }

  @Test
  void aHeartbeatFromAnOldGenerationIsAnIllegalGeneration() {
    StableGroup g = StableGroup.of(h, 2);
    assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    assertEquals(GroupError.ILLEGAL_GENERATION, h.heartbeat(g.member(0), g.generation() - 1));
  }

  @Test
  void aHeartbeatFromAnUnknownMemberIsAnUnknownMemberId() {
    StableGroup.of(h, 2);
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.heartbeat("client-9-stranger", 1));
  }

  @Test
  void aHeartbeatWhilePreparingARebalanceSaysRebalanceInProgress() {
    StableGroup g = StableGroup.of(h, 2);
    h.join("", "newcomer");
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    assertEquals(GroupError.REBALANCE_IN_PROGRESS, h.heartbeat(g.member(1), g.generation()));
  }

  @Test
  void sessionExpiryRemovesAMemberExactlyAfterTheSessionTimeoutWithoutHeartbeats() {
    StableGroup g = StableGroup.of(h, 2); // both last heard from at their syncs
    for (int t = 3_000; t <= 9_000; t += 3_000) {
      h.advance(3_000);
      assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    }
    h.advance(999); // 9999 ms without a heartbeat from member 1
    assertEquals(2, h.describe().members().size());
    assertEquals(GroupState.STABLE, h.state());
    h.advance(1);
    assertEquals(List.of(g.member(0)), memberIds());
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.heartbeat(g.member(1), g.generation()));
  }

  @Test
  void aHeartbeatRestartsTheSessionTimeout() {
    StableGroup g = StableGroup.of(h, 1);
    h.advance(9_999);
    assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    h.advance(9_999);
    assertEquals(GroupState.STABLE, h.state());
    h.advance(1);
    assertEquals(GroupState.EMPTY, h.state());
  }

  /**
   * Sessions are measured on the monotonic clock: a step of the coordinator's wall clock (NTP, a
   * skewed host) neither expires a member that heartbeats nor keeps a silent one for the jump.
   */
  @Test
  void aJumpOfTheWallClockNeitherExpiresALiveMemberNorKeepsASilentOne() {
    StableGroup g = StableGroup.of(h, 2); // both last heard from at their syncs
    h.clock.jumpWallClock(600_000);
    h.advance(3_000);
    assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    h.clock.jumpWallClock(-1_200_000); // ten minutes behind where it started
    for (int t = 6_000; t <= 9_000; t += 3_000) {
      h.advance(3_000);
      assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    }
    h.advance(999);
    assertEquals(2, h.describe().members().size());
    h.advance(1); // 10 s of silence from member 1, by the monotonic clock
    assertEquals(List.of(g.member(0)), memberIds());
  }

  /**
   * Kafka resets a member's session when it propagates the assignment to it (propagateAssignment →
   * completeAndScheduleNextHeartbeatExpiration). A follower that synced early and waited for the
   * leader starts its session when its assignment arrives, which is when it starts serving.
   */
  @Test
  void aFollowerThatWaitedForTheLeadersSyncStartsItsSessionWhenItsAssignmentArrives() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(6_000); // the initial delay, extended once for the members that joined in it
    String leader = h.now(a).memberId();
    String follower = h.now(b).memberId();
    CompletableFuture<SyncResult> syncB = h.sync(follower, 1);
    h.advance(4_000);
    h.now(h.sync(leader, 1, Map.of()));
    assertTrue(syncB.isDone(), "the follower has its assignment now, 4 s after it asked");
    for (int i = 0; i < 3; i++) {
      h.advance(3_000);
      h.heartbeat(leader, 1);
    }
    h.advance(999); // 9999 ms since the follower got its assignment, 13999 since it asked
    assertTrue(
        memberIds().contains(follower),
        "the follower's session was counted from its sync request, not from its assignment");
    h.advance(1);
    assertFalse(memberIds().contains(follower));
  }

  @Test
  void aMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsDropped() {
    StableGroup g = StableGroup.of(h, 2, 30_000, 20_000);
    CompletableFuture<JoinResult> c = h.join("", "c", 30_000, 20_000, "range");
    CompletableFuture<JoinResult> a = h.join(g.member(0), "client-0", 30_000, 20_000, "range");
    for (int t = 0; t < 18_000; t += 3_000) {
      h.advance(3_000); // member 1 stays alive but never rejoins
      assertEquals(GroupError.REBALANCE_IN_PROGRESS, h.heartbeat(g.member(1), g.generation()));
    }
    h.advance(1_999);
    assertFalse(a.isDone() || c.isDone());
    h.advance(1);
    JoinResult ra = h.now(a);
    assertEquals(g.generation() + 1, ra.generationId());
    assertEquals(2, ra.members().size());
    assertFalse(memberIds().contains(g.member(1)));
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.heartbeat(g.member(1), g.generation()));
    assertEquals(GroupError.NONE, h.now(c).error());
  }

  @Test
  void aLeaveTriggersARebalanceOfTheOthers() {
    StableGroup g = StableGroup.of(h, 2);
    assertEquals(
        GroupError.NONE,
        h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(1), "")));
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    assertEquals(GroupError.REBALANCE_IN_PROGRESS, h.heartbeat(g.member(0), g.generation()));
    JoinResult r = h.now(h.join(g.member(0), "client-0"));
    assertEquals(g.generation() + 1, r.generationId());
    assertEquals(List.of(g.member(0)), memberIds());
  }

  @Test
  void theLastMemberLeavingMakesTheGroupEmptyAndStoresThat() {
    StableGroup g = StableGroup.of(h, 1);
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), "closing"));
    assertEquals(GroupState.EMPTY, h.state());
    GroupRecords.StoredGroup stored = last(h.log.groupRecords(0, CoordinatorHarness.GROUP));
    assertEquals(g.generation() + 1, stored.generationId());
    assertTrue(stored.members().isEmpty());
    assertNull(stored.leaderId());
    assertNull(stored.protocolName());
    assertEquals(ConsumerProtocol.PROTOCOL_TYPE, stored.protocolType());
  }

  private List<String> memberIds() {
    return h.describe().members().stream().map(CoordinatorApi.MemberDescription::memberId).toList();
  }

  static <T> T last(List<T> list) {
    assertFalse(list.isEmpty());
    return list.get(list.size() - 1);
  }
}
