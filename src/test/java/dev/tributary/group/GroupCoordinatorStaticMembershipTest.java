package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.GroupCoordinator.LeaveResult;
import dev.tributary.group.GroupCoordinator.LeavingMember;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Static membership (KIP-345, {@code group.instance.id}) and the other calls the Kafka listener
 * makes beyond the REST consumers': a restarted instance takes its old place without a rebalance,
 * the old member id is fenced, a static member outlives a rebalance it misses, leaves by instance
 * id, and the protocol a sync names is checked.
 */
class GroupCoordinatorStaticMembershipTest {
  private static final String GROUP = CoordinatorHarness.GROUP;
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  /** Below the session timeout, so that a static member can miss a rebalance and stay. */
  private static final int REBALANCE_MS = CoordinatorHarness.SESSION_MS / 2;

  private final CoordinatorHarness h = CoordinatorHarness.direct(0).lead();

  /** A static member's join, offering {@code assignors} (range if none). */
  private CompletableFuture<JoinResult> joinStatic(
      String memberId, String instanceId, String... assignors) {
    return h.coordinator.joinGroup(
        new JoinRequest(
            GROUP,
            memberId,
            "client-" + instanceId,
            "/127.0.0.1",
            CoordinatorHarness.SESSION_MS,
            REBALANCE_MS,
            ConsumerProtocol.PROTOCOL_TYPE,
            CoordinatorHarness.protocols(
                assignors.length == 0 ? new String[] {"range"} : assignors),
            "",
            instanceId));
  }

  /** Static members i1 (leader, orders-0) and i2 (orders-1), Stable; their member ids. */
  private List<String> stableStaticGroup() {
    CompletableFuture<JoinResult> first = joinStatic("", "i1");
    JoinResult one = h.now(first);
    assertEquals(GroupError.NONE, one.error(), "a static member needs no MEMBER_ID_REQUIRED");
    assertTrue(one.memberId().startsWith("i1-"));
    assertEquals(GroupError.NONE, h.now(h.sync(one.memberId(), 1, Map.of())).error());
    CompletableFuture<JoinResult> second = joinStatic("", "i2");
    CompletableFuture<JoinResult> rejoin = joinStatic(one.memberId(), "i1");
    JoinResult leader = h.now(rejoin);
    JoinResult follower = h.now(second);
    assertEquals(2, leader.generationId());
    assertEquals(one.memberId(), leader.leaderId());
    assertEquals(
        List.of("i1", "i2"), leader.members().stream().map(m -> m.groupInstanceId()).toList());
    CompletableFuture<SyncResult> followerSync = h.sync(follower.memberId(), 2);
    SyncResult synced =
        h.now(
            h.sync(
                leader.memberId(),
                2,
                Map.of(
                    leader.memberId(), CoordinatorHarness.assignment(P0),
                    follower.memberId(), CoordinatorHarness.assignment(P1))));
    assertEquals(GroupError.NONE, synced.error());
    assertEquals(ConsumerProtocol.PROTOCOL_TYPE, synced.protocolType());
    assertEquals("range", synced.protocolName());
    assertEquals(GroupError.NONE, h.now(followerSync).error());
    assertEquals(GroupState.STABLE, h.state());
    return List.of(leader.memberId(), follower.memberId());
  }

  @Test
  void aRestartedStaticMemberTakesItsOldPlaceWithoutARebalanceAndTheOldIdIsFenced() {
    List<String> ids = stableStaticGroup();
    JoinResult back = h.now(joinStatic("", "i2"));
    assertEquals(GroupError.NONE, back.error());
    assertNotEquals(ids.get(1), back.memberId());
    assertEquals(2, back.generationId(), "same generation: no rebalance");
    assertEquals(ids.get(0), back.leaderId());
    assertEquals(GroupState.STABLE, h.state());
    SyncResult sync = h.now(h.sync(back.memberId(), 2));
    assertEquals(GroupError.NONE, sync.error());
    assertArrayEquals(CoordinatorHarness.assignment(P1), sync.assignment(), "its old partitions");

    assertEquals(
        GroupError.FENCED_INSTANCE_ID,
        h.now(h.coordinator.heartbeat(GROUP, ids.get(1), "i2", 2)),
        "the old id of a restarted instance is fenced");
    assertEquals(
        GroupError.FENCED_INSTANCE_ID,
        h.now(h.coordinator.commitOffsets(GROUP, ids.get(1), "i2", 2, Map.of(P1, h.offset(5)))));
    assertEquals(
        GroupError.FENCED_INSTANCE_ID,
        h.now(
                h.coordinator.syncGroup(
                    new SyncRequest(GROUP, ids.get(1), 2, Map.of(), "i2", null, null)))
            .error());
    assertEquals(GroupError.NONE, h.now(h.coordinator.heartbeat(GROUP, back.memberId(), "i2", 2)));
    assertEquals(
        GroupError.UNKNOWN_MEMBER_ID, h.now(h.coordinator.heartbeat(GROUP, ids.get(1), null, 2)));
  }

  @Test
  void aRestartedStaticLeaderIsToldTheOldLeaderSoItSyncsAsAFollower() {
    List<String> ids = stableStaticGroup();
    JoinResult back = h.now(joinStatic("", "i1"));
    assertEquals(ids.get(0), back.leaderId(), "not itself: it must not reassign");
    assertTrue(back.members().isEmpty());
    assertEquals(GroupError.NONE, h.now(h.sync(back.memberId(), 2)).error());
    assertEquals(back.memberId(), h.describe().leaderId(), "the group's leader is the new id");
  }

  @Test
  void aStaticMemberWaitingOnARebalanceWhenItsInstanceRestartsIsFenced() {
    List<String> ids = stableStaticGroup();
    CompletableFuture<JoinResult> oldRejoin = joinStatic(ids.get(1), "i2", "range", "roundrobin");
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    CompletableFuture<JoinResult> restarted = joinStatic("", "i2");
    assertEquals(GroupError.FENCED_INSTANCE_ID, h.now(oldRejoin).error());
    assertFalse(restarted.isDone(), "the new id joins the rebalance in progress");
    CompletableFuture<JoinResult> leader = joinStatic(ids.get(0), "i1");
    assertEquals(3, h.now(restarted).generationId());
    assertEquals(3, h.now(leader).generationId());
  }

  @Test
  void aRestartedInstanceThatChangesTheGroupsProtocolRebalances() {
    JoinResult first = h.now(joinStatic("", "i1", "range", "roundrobin"));
    assertEquals("range", first.protocolName());
    h.now(h.sync(first.memberId(), 1, Map.of(first.memberId(), CoordinatorHarness.assignment(P0))));
    assertEquals(GroupState.STABLE, h.state());
    // Restarted, now preferring the other assignor: the vote changes, so a rebalance it is.
    JoinResult back = h.now(joinStatic("", "i1", "roundrobin", "range"));
    assertEquals(GroupError.NONE, back.error());
    assertEquals(2, back.generationId());
    assertEquals("roundrobin", back.protocolName());
    assertEquals(back.memberId(), back.leaderId());
  }

  @Test
  void aGroupLeftWithOnlyAbsentStaticMembersWaitsForOneOfThem() {
    List<String> ids = stableStaticGroup();
    h.now(h.coordinator.leaveGroup(GROUP, List.of(new LeavingMember(ids.get(0), "i1", ""))));
    h.advance(REBALANCE_MS);
    assertEquals(
        GroupState.PREPARING_REBALANCE, h.state(), "nobody rejoined to lead: the join waits");
    JoinResult back = h.now(joinStatic("", "i2"));
    assertEquals(GroupError.NONE, back.error());
    assertEquals(3, back.generationId());
    assertEquals(back.memberId(), back.leaderId());
  }

  @Test
  void aStaticMemberThatMissesARebalanceStaysInTheGroupUntilItsSessionEnds() {
    List<String> ids = stableStaticGroup();
    CompletableFuture<JoinResult> leaderRejoins = joinStatic(ids.get(0), "i1");
    h.advance(REBALANCE_MS - 1);
    assertFalse(leaderRejoins.isDone());
    h.advance(1);
    assertEquals(3, h.now(leaderRejoins).generationId());
    assertEquals(
        List.of("i1", "i2"),
        h.now(leaderRejoins).members().stream().map(m -> m.groupInstanceId()).toList(),
        "the absent static member is still a member, to be assigned");
    h.now(
        h.sync(
            ids.get(0),
            3,
            Map.of(
                ids.get(0), CoordinatorHarness.assignment(P0),
                ids.get(1), CoordinatorHarness.assignment(P1))));
    assertEquals(GroupState.STABLE, h.state());
    h.advance(CoordinatorHarness.SESSION_MS - 1);
    assertEquals(GroupError.NONE, h.now(h.coordinator.heartbeat(GROUP, ids.get(0), "i1", 3)));
    h.advance(1);
    assertEquals(
        List.of(ids.get(0)),
        h.describe().members().stream().map(MemberDescription::memberId).toList(),
        "its session ran out");
  }

  @Test
  void aStaticMemberIsRemovedByItsInstanceIdAloneAndAnUnknownOneIsReported() {
    List<String> ids = stableStaticGroup();
    LeaveResult r =
        h.now(
            h.coordinator.leaveGroup(
                GROUP,
                List.of(new LeavingMember("", "i2", "admin"), new LeavingMember("", "i9", ""))));
    assertEquals(GroupError.NONE, r.error());
    assertEquals(List.of(GroupError.NONE, GroupError.UNKNOWN_MEMBER_ID), r.memberErrors());
    assertEquals(GroupState.PREPARING_REBALANCE, h.state());
    assertEquals(
        List.of(ids.get(0)),
        h.describe().members().stream().map(MemberDescription::memberId).toList());
    assertEquals(
        GroupError.UNKNOWN_MEMBER_ID, h.now(joinStatic(ids.get(1), "i2")).error(), "gone for good");
  }

  @Test
  void aPendingMemberMayLeaveBeforeItJoins() {
    String told = h.now(h.rawJoin("", "a")).memberId();
    LeaveResult r =
        h.now(h.coordinator.leaveGroup(GROUP, List.of(new LeavingMember(told, null, ""))));
    assertEquals(List.of(GroupError.NONE), r.memberErrors());
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.now(h.rawJoin(told, "a")).error());
  }

  @Test
  void aLeaveFromAnUnknownGroupIsUnknownMember() {
    LeaveResult r =
        h.now(h.coordinator.leaveGroup("nobody", List.of(new LeavingMember("m", null, ""))));
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, r.error());
  }

  @Test
  void aSyncNamingAnotherProtocolIsInconsistent() {
    StableGroup g = StableGroup.of(h, 1);
    SyncResult wrongName =
        h.now(
            h.coordinator.syncGroup(
                new SyncRequest(
                    GROUP, g.member(0), g.generation(), Map.of(), null, null, "sticky")));
    assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, wrongName.error());
    SyncResult wrongType =
        h.now(
            h.coordinator.syncGroup(
                new SyncRequest(
                    GROUP, g.member(0), g.generation(), Map.of(), null, "connect", "range")));
    assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, wrongType.error());
    SyncResult right =
        h.now(
            h.coordinator.syncGroup(
                new SyncRequest(
                    GROUP, g.member(0), g.generation(), Map.of(), null, "consumer", "range")));
    assertEquals(GroupError.NONE, right.error());
  }

  @Test
  void staticMembersAndTheirIdsSurviveAFailover() {
    List<String> ids = stableStaticGroup();
    JoinResult back = h.now(joinStatic("", "i2")); // stored with the new id
    h.failOver();
    assertEquals(GroupState.STABLE, h.state());
    assertEquals(
        List.of("i1", "i2"),
        h.describe().members().stream().map(MemberDescription::groupInstanceId).toList());
    assertEquals(GroupError.NONE, h.now(h.coordinator.heartbeat(GROUP, back.memberId(), "i2", 2)));
    assertEquals(
        GroupError.FENCED_INSTANCE_ID, h.now(h.coordinator.heartbeat(GROUP, ids.get(1), "i2", 2)));
  }
}
