package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.InMemoryCoordinatorLog.Mode;
import dev.tributary.log.record.SimpleRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Shards: loading a partition of __consumer_offsets back, and giving it up. */
class GroupCoordinatorLoadingTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  private final CoordinatorHarness h = CoordinatorHarness.direct(3_000).lead();

  @Test
  void loadingAShardRebuildsGroupsGenerationsAssignmentsAndOffsets() {
    StableGroup g = StableGroup.of(h, 2);
    h.commit(g.member(0), g.generation(), P0, 100);
    h.commit(g.member(1), g.generation(), P1, 200);
    h.commit(g.member(0), g.generation(), P0, 150);
    GroupDescription before = h.describe();

    h.failOver();

    GroupDescription after = h.describe();
    assertEquals(GroupState.STABLE, after.state());
    assertEquals(before.generationId(), after.generationId());
    assertEquals(before.leaderId(), after.leaderId());
    assertEquals(before.protocolName(), after.protocolName());
    assertEquals(before.members().size(), after.members().size());
    for (int i = 0; i < before.members().size(); i++) {
      MemberDescription b = before.members().get(i);
      MemberDescription a = after.members().get(i);
      assertEquals(b.memberId(), a.memberId());
      assertArrayEquals(b.assignment(), a.assignment());
      assertArrayEquals(b.metadata(), a.metadata());
    }
    assertEquals(Map.of(P0, 150L, P1, 200L), offsets(h.committed()));
    // The members carry on with the new coordinator as if nothing happened.
    assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    SyncResult resync = h.now(h.sync(g.member(1), g.generation()));
    assertArrayEquals(CoordinatorHarness.assignment(P1), resync.assignment());
  }

  @Test
  void aLoadedMemberThatNeverHeartbeatsExpiresOneSessionTimeoutAfterTheLoad() {
    StableGroup.of(h, 1);
    h.advance(5_000);
    h.failOver();
    h.advance(CoordinatorHarness.SESSION_MS - 1);
    assertEquals(GroupState.STABLE, h.state());
    h.advance(1);
    assertEquals(GroupState.EMPTY, h.state());
  }

  @Test
  void loadingAnEmptyGroupKeepsItsGenerationAndOffsets() {
    StableGroup g = StableGroup.of(h, 1);
    h.commit(g.member(0), g.generation(), P0, 7);
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), ""));
    int generation = h.describe().generationId();
    h.failOver();
    assertEquals(GroupState.EMPTY, h.state());
    assertEquals(generation, h.describe().generationId());
    assertEquals(Map.of(P0, 7L), offsets(h.committed()));
    JoinResult next = h.now(joinAlone());
    assertEquals(generation + 1, next.generationId(), "generations go on from the stored one");
  }

  @Test
  void tombstonesRemoveOffsetsAndGroupMetadataOnLoad() {
    StableGroup g = StableGroup.of(h, 1);
    h.commit(g.member(0), g.generation(), P0, 7);
    h.commit(g.member(0), g.generation(), P1, 8);
    h.log.write(
        0,
        List.of(
            new SimpleRecord(
                h.clock.milliseconds(),
                GroupRecords.offsetKey(CoordinatorHarness.GROUP, P0),
                null)));
    h.failOver();
    assertEquals(Map.of(P1, 8L), offsets(h.committed()), "the offset tombstone removed P0");

    h.log.write(
        0,
        List.of(
            new SimpleRecord(
                h.clock.milliseconds(), GroupRecords.groupKey(CoordinatorHarness.GROUP), null)));
    h.failOver();
    assertEquals(
        GroupState.EMPTY,
        h.state(),
        "the group tombstone removed its metadata (members, generation); its offsets stay, as in Kafka");
    assertEquals(Map.of(P1, 8L), offsets(h.committed()));

    h.log.write(
        0,
        List.of(
            new SimpleRecord(
                h.clock.milliseconds(),
                GroupRecords.offsetKey(CoordinatorHarness.GROUP, P1),
                null)));
    h.failOver();
    assertEquals(GroupState.DEAD, h.state(), "with its last offset gone too, the group is gone");
  }

  @Test
  void requestsDuringLoadingGetCoordinatorLoadInProgress() {
    StableGroup g = StableGroup.of(h, 1);
    h.commit(g.member(0), g.generation(), P0, 7);
    h.deferLoads(true);
    h.failOver();
    GroupError loading = GroupError.COORDINATOR_LOAD_IN_PROGRESS;
    assertEquals(loading, h.now(joinAlone()).error());
    assertEquals(loading, h.now(h.sync(g.member(0), g.generation())).error());
    assertEquals(loading, h.heartbeat(g.member(0), g.generation()));
    assertEquals(loading, h.commit(g.member(0), g.generation(), P0, 8));
    assertEquals(
        loading, h.now(h.coordinator.fetchOffsets(CoordinatorHarness.GROUP, null)).error());
    assertEquals(loading, h.now(h.coordinator.describeGroup(CoordinatorHarness.GROUP)).error());
    assertEquals(
        loading, h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), "")));
    h.runLoads();
    assertEquals(GroupError.NONE, h.heartbeat(g.member(0), g.generation()));
    assertEquals(Map.of(P0, 7L), offsets(h.committed()));
  }

  @Test
  void aLoadThatCannotReadRetriesUntilItCan() {
    h.commit("", -1, P0, 7);
    h.log.failReads(new IllegalStateException("replica not ready"));
    h.failOver();
    assertEquals(GroupError.COORDINATOR_LOAD_IN_PROGRESS, h.heartbeat("m", 1));
    h.log.failReads(null);
    h.advance(1_000);
    assertEquals(Map.of(P0, 7L), offsets(h.committed()));
  }

  @Test
  void resigningAnswersNotCoordinatorAndFailsPendingJoinsAndSyncs() {
    StableGroup g = StableGroup.of(h, 2);
    CompletableFuture<JoinResult> joining = h.join("", "newcomer");
    assertFalse(joining.isDone());
    h.coordinator.onResign(CoordinatorHarness.PARTITION);
    assertEquals(GroupError.NOT_COORDINATOR, h.now(joining).error());
    assertEquals(GroupError.NOT_COORDINATOR, h.heartbeat(g.member(0), g.generation()));
    assertEquals(GroupError.NOT_COORDINATOR, h.commit(g.member(0), g.generation(), P0, 1));
    assertEquals(
        GroupError.NOT_COORDINATOR,
        h.now(h.coordinator.fetchOffsets(CoordinatorHarness.GROUP, null)).error());
    assertTrue(h.coordinator.shardEpochs().isEmpty());
  }

  @Test
  void resigningFailsASyncWaitingForTheLeader() {
    CompletableFuture<JoinResult> a = h.join("", "a");
    CompletableFuture<JoinResult> b = h.join("", "b");
    h.advance(6_000);
    h.now(a);
    CompletableFuture<SyncResult> waiting = h.sync(h.now(b).memberId(), 1);
    h.coordinator.onResign(CoordinatorHarness.PARTITION);
    assertEquals(GroupError.NOT_COORDINATOR, h.now(waiting).error());
  }

  @Test
  void aCommitWhoseAppendCompletesAfterResigningIsAnsweredNotCoordinator() {
    h.commit("", -1, P0, 1);
    h.log.mode(Mode.HOLD);
    CompletableFuture<GroupError> pending = h.commitAsync("", -1, P0, 2);
    h.coordinator.onResign(CoordinatorHarness.PARTITION);
    h.log.releaseAll();
    assertEquals(GroupError.NOT_COORDINATOR, h.now(pending));
  }

  private CompletableFuture<JoinResult> joinAlone() {
    CompletableFuture<JoinResult> f = h.join("", "alone");
    h.advance(3_000);
    return f;
  }

  private static Map<TopicPartition, Long> offsets(Map<TopicPartition, OffsetAndMetadata> m) {
    Map<TopicPartition, Long> out = new java.util.HashMap<>();
    m.forEach((tp, o) -> out.put(tp, o.offset()));
    return out;
  }
}
