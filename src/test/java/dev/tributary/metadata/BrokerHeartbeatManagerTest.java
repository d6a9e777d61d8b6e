package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerHeartbeatManagerTest {
  private final BrokerHeartbeatManager heartbeats = new BrokerHeartbeatManager(100);

  @Test
  void aBrokerIsStaleFromTheMomentItsSessionTimeoutHasPassed() {
    heartbeats.touch(1, 1_000);
    assertThat(heartbeats.isStale(1, 1_099)).isFalse();
    assertThat(heartbeats.isStale(1, 1_100)).isTrue();
    assertThat(heartbeats.staleBrokers(1_099)).isEmpty();
    assertThat(heartbeats.staleBrokers(1_100)).containsExactly(1);
  }

  @Test
  void theNextDeadlineIsTheEarliestAmongTheGivenBrokers() {
    heartbeats.touch(1, 1_000);
    heartbeats.touch(2, 1_050);
    assertThat(heartbeats.nextDeadlineMs(List.of(1, 2))).isEqualTo(1_100);
    assertThat(heartbeats.nextDeadlineMs(List.of(2))).isEqualTo(1_150);
    assertThat(heartbeats.nextDeadlineMs(List.of(3))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void lastContactNeverMovesBackwards() {
    heartbeats.touch(1, 1_000);
    heartbeats.touch(1, 900);
    assertThat(heartbeats.sessionDeadlineMs(1)).isEqualTo(1_100);
  }

  @Test
  void resetAllForgetsOldContactAndStartsFreshSessions() {
    heartbeats.touch(1, 0);
    heartbeats.touch(9, 0);
    heartbeats.resetAll(List.of(1, 2), 5_000);
    assertThat(heartbeats.tracks(9)).isFalse();
    assertThat(heartbeats.staleBrokers(5_099)).isEmpty();
    assertThat(heartbeats.staleBrokers(5_100)).containsExactly(1, 2);
  }

  @Test
  void aSessionTimeoutMustBePositive() {
    assertThatThrownBy(() -> new BrokerHeartbeatManager(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
