package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.InMemoryCoordinatorLog.Mode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** DeleteGroups on the coordinator: only an Empty group goes, with its offsets, for good. */
class GroupCoordinatorDeleteTest {
  private static final String GROUP = CoordinatorHarness.GROUP;
  private static final TopicPartition P0 = new TopicPartition("orders", 0);

  private final CoordinatorHarness h = CoordinatorHarness.direct(0).lead();

  @Test
  void anEmptyGroupIsDeletedWithItsOffsetsAndStaysDeletedAfterAFailover() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 42));
    assertEquals(GroupState.EMPTY, h.state());
    assertEquals(GroupError.NONE, h.now(h.coordinator.deleteGroup(GROUP)));
    assertEquals(GroupState.DEAD, h.state(), "the coordinator no longer knows it");
    assertTrue(h.committed().isEmpty());
    assertTrue(h.now(h.coordinator.listGroups()).isEmpty());
    h.failOver();
    assertEquals(GroupState.DEAD, h.state(), "the tombstones are replayed");
    assertTrue(h.committed().isEmpty());
  }

  @Test
  void aGroupWithMembersIsNotDeleted() {
    StableGroup g = StableGroup.of(h, 1);
    assertEquals(GroupError.NON_EMPTY_GROUP, h.now(h.coordinator.deleteGroup(GROUP)));
    h.now(h.coordinator.leaveGroup(GROUP, g.member(0), ""));
    assertEquals(GroupState.EMPTY, h.state());
    assertEquals(GroupError.NONE, h.now(h.coordinator.deleteGroup(GROUP)));
  }

  @Test
  void anUnknownGroupIsNotFoundAndABlankIdIsInvalid() {
    assertEquals(GroupError.GROUP_ID_NOT_FOUND, h.now(h.coordinator.deleteGroup("nobody")));
    assertEquals(GroupError.INVALID_GROUP_ID, h.now(h.coordinator.deleteGroup(" ")));
    h.coordinator.onResign(CoordinatorHarness.PARTITION);
    assertEquals(GroupError.NOT_COORDINATOR, h.now(h.coordinator.deleteGroup(GROUP)));
  }

  @Test
  void aDeletionWhoseTombstonesFailChangesNothing() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 42));
    h.log.mode(Mode.NOT_LEADER);
    assertEquals(GroupError.NOT_COORDINATOR, h.now(h.coordinator.deleteGroup(GROUP)));
    h.log.mode(Mode.COMMIT);
    assertEquals(GroupState.EMPTY, h.state());
    assertEquals(42, h.committed().get(P0).offset());
  }

  @Test
  void aCommitThatLandsAfterTheTombstonesKeepsTheGroup() {
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 42));
    h.log.mode(Mode.HOLD);
    CompletableFuture<GroupError> deleted = h.coordinator.deleteGroup(GROUP);
    CompletableFuture<GroupError> committed =
        h.coordinator.commitOffsets(
            GROUP, "", -1, Map.of(new TopicPartition("orders", 1), h.offset(7)));
    assertFalse(deleted.isDone());
    h.log.releaseAll();
    h.log.mode(Mode.COMMIT);
    assertEquals(GroupError.NONE, h.now(deleted));
    assertEquals(GroupError.NONE, h.now(committed));
    assertEquals(GroupState.EMPTY, h.state(), "the later commit's group is still there");
    assertEquals(List.of(new TopicPartition("orders", 1)), List.copyOf(h.committed().keySet()));
    h.failOver();
    assertEquals(List.of(new TopicPartition("orders", 1)), List.copyOf(h.committed().keySet()));
  }
}
