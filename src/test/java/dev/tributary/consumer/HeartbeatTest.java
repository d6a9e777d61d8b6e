package dev.tributary.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A member's timers, each decision a function of the time it is given. */
class HeartbeatTest {
  private static final long SESSION_MS = 10_000;
  private static final long INTERVAL_MS = 3_000;
  private static final long T0 = 1_000_000;

  private final Heartbeat heartbeat =
      new Heartbeat(
          new ConsumerSettings(
              "binary",
              "earliest",
              false,
              5_000,
              1,
              1_000,
              (int) SESSION_MS,
              (int) INTERVAL_MS,
              List.of("range"),
              300_000),
          100,
          T0);

  @Test
  void theSessionCountsFromWhenTheConfirmingRequestWasSentNotFromItsAnswer() {
    heartbeat.joined(T0);
    heartbeat.synced(T0 + 100, T0 + 2_000); // the sync waited 1.9 s for the leader
    assertThat(heartbeat.sessionTimeoutExpired(T0 + 100 + SESSION_MS - 1)).isFalse();
    assertThat(heartbeat.sessionTimeoutExpired(T0 + 100 + SESSION_MS)).isTrue();
  }

  @Test
  void aHeartbeatAnsweredOutOfOrderNeverMovesTheSessionBack() {
    heartbeat.joined(T0);
    heartbeat.synced(T0, T0);
    heartbeat.receiveHeartbeat(T0 + 6_000);
    heartbeat.receiveHeartbeat(T0 + 3_000); // an older heartbeat's answer, arriving last
    assertThat(heartbeat.sessionTimeoutExpired(T0 + 6_000 + SESSION_MS - 1)).isFalse();
  }

  @Test
  void heartbeatsFallDueOneIntervalAfterTheAssignmentAndAfterEachAnswer() {
    heartbeat.synced(T0, T0 + 500);
    assertThat(heartbeat.shouldHeartbeat(T0 + 500 + INTERVAL_MS - 1)).isFalse();
    assertThat(heartbeat.shouldHeartbeat(T0 + 500 + INTERVAL_MS)).isTrue();
    heartbeat.resetHeartbeatTimer(T0 + 4_000);
    assertThat(heartbeat.shouldHeartbeat(T0 + 4_000 + INTERVAL_MS - 1)).isFalse();
  }

  @Test
  void aRecordsCallInProgressKeepsTheClientAliveAndItsEndRestartsThePollTimeout() {
    heartbeat.poll(T0);
    heartbeat.pollStarted();
    assertThat(heartbeat.pollTimeoutExpired(T0 + 5 * SESSION_MS)).isFalse();
    heartbeat.pollFinished(T0 + 5 * SESSION_MS);
    assertThat(heartbeat.pollTimeoutExpired(T0 + 6 * SESSION_MS - 1)).isFalse();
    assertThat(heartbeat.pollTimeoutExpired(T0 + 6 * SESSION_MS)).isTrue();
  }

  @Test
  void moreFinishedThanStartedRecordsCallsDoNotKeepTheClientAliveLater() {
    heartbeat.pollFinished(T0); // e.g. a call that began before the membership existed
    heartbeat.pollStarted();
    heartbeat.pollFinished(T0);
    assertThat(heartbeat.pollTimeoutExpired(T0 + SESSION_MS)).isTrue();
  }

  @Test
  void afterAnErrorNothingIsSentBeforeTheBackoff() {
    heartbeat.backOff(T0);
    assertThat(heartbeat.inBackoff(T0 + 99)).isTrue();
    assertThat(heartbeat.inBackoff(T0 + 100)).isFalse();
  }
}
