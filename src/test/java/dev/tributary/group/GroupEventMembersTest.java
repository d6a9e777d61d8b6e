package dev.tributary.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Group events name the client id of each member they mention, so the page can show {@code
 * consumer-1} rather than {@code consumer-1-} and a UUID; also for a member already gone from the
 * group when the rebalance its departure started is recorded.
 */
class GroupEventMembersTest {
  private final CoordinatorHarness h = CoordinatorHarness.direct(3_000).lead();

  @Test
  void aCompletedGenerationNamesEveryMembersClientId() {
    StableGroup g = StableGroup.of(h, 2);

    GroupEvent completed = last(GroupEvent.Type.REBALANCE_COMPLETED);

    assertThat(completed.members())
        .containsOnlyKeys(g.member(0), g.member(1))
        .allSatisfy((memberId, clientId) -> assertThat(memberId).startsWith(clientId + "-"));
  }

  @Test
  void aMemberThatLeftIsNamedByClientIdInItsRemovalAndInTheRebalanceItStarted() {
    StableGroup g = StableGroup.of(h, 2);
    String leaving = g.member(1);
    String clientId =
        h.describe().members().stream()
            .filter(m -> m.memberId().equals(leaving))
            .findFirst()
            .orElseThrow()
            .clientId();

    h.now(h.coordinator.leaveGroup(CoordinatorHarness.GROUP, leaving, "shutting down"));

    assertThat(last(GroupEvent.Type.MEMBER_REMOVED).members())
        .containsExactly(Map.entry(leaving, clientId));
    GroupEvent started = last(GroupEvent.Type.REBALANCE_STARTED);
    assertThat(started.description()).contains(leaving);
    assertThat(started.members()).containsEntry(leaving, clientId);
  }

  private GroupEvent last(GroupEvent.Type type) {
    List<GroupEvent> events = h.coordinator.recentEvents();
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i).type() == type) {
        return events.get(i);
      }
    }
    throw new AssertionError("no " + type + " event in " + events);
  }
}
