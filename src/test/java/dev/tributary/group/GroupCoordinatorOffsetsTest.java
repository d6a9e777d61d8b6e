package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.InMemoryCoordinatorLog.Mode;
import dev.tributary.group.InMemoryCoordinatorLog.Stored;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Offset commit and fetch, their write path through the log, and offset retention. */
class GroupCoordinatorOffsetsTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final long HOUR_MS = 3_600_000;

  private final CoordinatorHarness h = CoordinatorHarness.direct(3_000).lead();

  @Test
  void aCommitFromTheCurrentGenerationIsStored() {
    StableGroup g = StableGroup.of(h, 1);
    assertEquals(GroupError.NONE, h.commit(g.member(0), g.generation(), P0, 42));
    assertEquals(42, h.committed().get(P0).offset());
  }

  @Test
  void aCommitWithAStaleGenerationIsRefused() {
    StableGroup g = StableGroup.of(h, 1);
    assertEquals(GroupError.ILLEGAL_GENERATION, h.commit(g.member(0), g.generation() - 1, P0, 42));
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.commit("someone-else", g.generation(), P0, 42));
    assertTrue(h.committed().isEmpty());
  }

  @Test
  void aCommitWithGenerationMinusOneIsAcceptedOnlyWhileTheGroupIsEmpty() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 10), "a group nobody has joined");
    StableGroup g = StableGroup.of(h, 1);
    assertEquals(GroupError.UNKNOWN_MEMBER_ID, h.commit("", -1, P0, 11), "the group has a member");
    assertEquals(10, h.committed().get(P0).offset());
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), ""));
    assertEquals(GroupState.EMPTY, h.state());
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 12), "empty again");
    assertEquals(12, h.committed().get(P0).offset());
  }

  @Test
  void aCommitForAnUnknownGroupWithAGenerationIsRefused() {
    assertEquals(GroupError.ILLEGAL_GENERATION, h.commit("m", 3, P0, 10));
  }

  @Test
  void aCommitWhileCompletingARebalanceIsRefused() {
    CompletableFuture<CoordinatorApi.JoinResult> a = h.join("", "a");
    h.advance(3_000);
    CoordinatorApi.JoinResult r = h.now(a);
    assertEquals(GroupState.COMPLETING_REBALANCE, h.state());
    assertEquals(GroupError.REBALANCE_IN_PROGRESS, h.commit(r.memberId(), 1, P0, 5));
  }

  @Test
  void metadataLongerThanOffsetMetadataMaxBytesIsRefused() {
    GroupError e =
        h.now(
            h.coordinator.commitOffsets(
                CoordinatorHarness.GROUP,
                "",
                -1,
                Map.of(P0, new OffsetAndMetadata(1, -1, "x".repeat(65), 0))));
    assertEquals(GroupError.OFFSET_METADATA_TOO_LARGE, e);
    assertTrue(h.log.records(0).isEmpty());
  }

  @Test
  void aCommitIsVisibleToFetchOnlyAfterItsAppendCommits() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 1));
    h.log.mode(Mode.HOLD);
    CompletableFuture<GroupError> pending = h.commitAsync("", -1, P0, 2);
    h.drain();
    assertFalse(pending.isDone(), "not answered before acks=all");
    assertEquals(1, h.committed().get(P0).offset(), "the old offset until the write commits");
    h.log.releaseAll();
    assertEquals(GroupError.NONE, h.now(pending));
    assertEquals(2, h.committed().get(P0).offset());
  }

  @Test
  void aCommitWhoseAppendFailsAsNotLeaderIsAnsweredNotCoordinatorAndChangesNothing() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 1));
    int records = h.log.records(0).size();
    h.log.mode(Mode.NOT_LEADER);
    assertEquals(GroupError.NOT_COORDINATOR, h.commit("", -1, P0, 2));
    assertEquals(1, h.committed().get(P0).offset());
    assertEquals(records, h.log.records(0).size());
  }

  @Test
  void aCommitWhoseAppendTimesOutIsAnsweredCoordinatorNotAvailableAndChangesNothing() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 1));
    h.log.mode(Mode.TIMEOUT);
    assertEquals(GroupError.COORDINATOR_NOT_AVAILABLE, h.commit("", -1, P0, 2));
    assertEquals(1, h.committed().get(P0).offset());
  }

  @Test
  void aHeldCommitThatFailsLaterChangesNothing() {
    h.log.mode(Mode.HOLD);
    CompletableFuture<GroupError> pending = h.commitAsync("", -1, P1, 7);
    h.log.failHeld(new TimeoutException("no ISR"));
    assertEquals(GroupError.COORDINATOR_NOT_AVAILABLE, h.now(pending));
    assertTrue(h.committed().isEmpty());
  }

  @Test
  void offsetsOfAGroupEmptyForTheRetentionPeriodAreRemovedWithTombstones() {
    StableGroup g = StableGroup.of(h, 1);
    h.commit(g.member(0), g.generation(), P0, 5);
    h.commit(g.member(0), g.generation(), P1, 6);
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), ""));
    int before = h.log.records(0).size();
    h.advance(CoordinatorHarness.RETENTION_MS - 1);
    h.coordinator.expireOffsets();
    assertEquals(before, h.log.records(0).size(), "not empty long enough yet");
    h.advance(CoordinatorHarness.RETENTION_CHECK_MS);
    List<Stored> written = h.log.records(0).subList(before, h.log.records(0).size());
    assertEquals(3, written.size(), "two offset tombstones and a group tombstone: " + written);
    assertTrue(written.stream().allMatch(Stored::tombstone));
    assertTrue(written.stream().anyMatch(s -> s.key() instanceof GroupRecords.GroupKey));
    assertTrue(h.committed().isEmpty());
    assertEquals(GroupState.DEAD, h.state(), "the coordinator no longer knows the group");
    h.failOver();
    assertTrue(h.committed().isEmpty(), "and neither does the next coordinator");
  }

  @Test
  void aStableGroupKeepsItsOffsetsWhateverTheirAge() {
    StableGroup g = StableGroup.of(h, 1, 300_000, 300_000);
    h.commit(g.member(0), g.generation(), P0, 5);
    for (long t = 0; t < CoordinatorHarness.RETENTION_MS + HOUR_MS; t += 200_000) {
      h.advance(200_000);
      h.heartbeat(g.member(0), g.generation());
    }
    assertEquals(5, h.committed().get(P0).offset());
  }

  /**
   * Kafka expires the offsets of a group without group management (a standalone consumer's,
   * committed with generation -1) by their commit timestamps: an offset committed an hour ago is
   * kept, however old the group is.
   */
  @Test
  void aStandaloneConsumersRecentCommitsSurviveRetention() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 1));
    h.advance(CoordinatorHarness.RETENTION_MS - HOUR_MS);
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 2), "still committing, a week later");
    h.advance(2 * HOUR_MS);
    h.coordinator.expireOffsets();
    assertEquals(
        2,
        h.committed().getOrDefault(P0, new OffsetAndMetadata(0, -1, "", 0)).offset(),
        "an offset committed an hour ago was expired");
  }

  /**
   * Kafka restores an empty group's currentStateTimestamp from its record, so failovers do not
   * postpone retention.
   */
  @Test
  void aReloadedEmptyGroupKeepsTheTimeItBecameEmpty() {
    StableGroup g = StableGroup.of(h, 1);
    h.commit(g.member(0), g.generation(), P0, 5);
    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, g.member(0), ""));
    long emptySinceMs = h.clock.milliseconds();
    h.advance(CoordinatorHarness.RETENTION_MS / 2);
    h.failOver();
    h.advance(CoordinatorHarness.RETENTION_MS / 2 + HOUR_MS);
    h.coordinator.expireOffsets();
    assertTrue(
        h.committed().isEmpty(),
        "empty for "
            + (h.clock.milliseconds() - emptySinceMs) / HOUR_MS
            + " h > retention, but the offsets are still there after a failover");
  }
}
