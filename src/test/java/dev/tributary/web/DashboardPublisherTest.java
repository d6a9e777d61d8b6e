package dev.tributary.web;

import static dev.tributary.web.DashboardFixtures.group;
import static dev.tributary.web.DashboardFixtures.groupEvent;
import static dev.tributary.web.DashboardFixtures.healthy;
import static dev.tributary.web.DashboardFixtures.withGroups;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The live view's publisher with a manual clock and subscribers whose sends complete when the test
 * says: snapshot first, coalesced deltas in order, heartbeats when idle, and a slow subscriber that
 * neither holds back the others nor piles up messages.
 */
class DashboardPublisherTest {
  private static final long MIN_INTERVAL_MS = 250;
  private static final long HEARTBEAT_MS = 1_000;
  private static final long SEND_TIMEOUT_MS = 5_000;

  private final JsonMapper json = JsonMapper.builder().build();
  private final ManualClock clock = new ManualClock();
  private ClusterSnapshot current = healthy(3, 0, 0);
  private final AtomicInteger builds = new AtomicInteger();
  private final DashboardPublisher publisher =
      new DashboardPublisher(
          () -> {
            builds.incrementAndGet();
            return Optional.of(current);
          },
          json::writeValueAsString,
          clock,
          MIN_INTERVAL_MS,
          HEARTBEAT_MS,
          SEND_TIMEOUT_MS);

  @Test
  void noSubscriberMeansNoViewIsBuilt() {
    publisher.tick();
    publisher.tick();

    assertThat(builds).hasValue(0);
  }

  @Test
  void aSubscriberGetsASnapshotThenOnlyDeltasNumberedInOrder() {
    RecordingSubscriber page = subscribe();

    step(0);
    current = healthy(3, 5, 300);
    step(300);
    current = healthy(3, 9, 600);
    step(600);

    assertThat(page.types()).containsExactly("snapshot", "delta", "delta");
    assertThat(page.seqs()).containsExactly(1L, 2L, 3L);
    assertThat(
            page.message(2).get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .isEqualTo(9);
  }

  @Test
  void changesWithinTheMinimumIntervalAreCoalescedIntoOneDelta() {
    RecordingSubscriber page = subscribe();
    step(0);

    current = healthy(3, 5, 50);
    step(50);
    current = healthy(3, 6, 100);
    step(100);
    current = healthy(3, 7, 200);
    step(200);
    assertThat(page.types()).containsExactly("snapshot");

    step(250);
    assertThat(page.types()).containsExactly("snapshot", "delta");
    assertThat(page.message(1).get("partitions")).hasSize(3);
    assertThat(
            page.message(1).get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .isEqualTo(7);
  }

  @Test
  void anIdleViewSendsAHeartbeatEverySecondAndNothingElse() {
    RecordingSubscriber page = subscribe();
    step(0);
    for (long t = 100; t <= 2_000; t += 100) {
      step(t);
    }

    assertThat(page.types()).containsExactly("snapshot", "heartbeat", "heartbeat");
    assertThat(page.seqs()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void anIdleGroupSendsNothingAndARebalanceSendsItsRowAndEventOnce() {
    RecordingSubscriber page = subscribe();
    List<ClusterSnapshot.GroupEventRow> history = List.of(groupEvent(10, "gen 1"));
    current = withGroups(healthy(3, 10, 0), List.of(group("g", "Stable", 1, 10)), history);
    step(0);
    for (long t = 100; t <= 2_000; t += 100) {
      current = withGroups(healthy(3, 10, t), List.of(group("g", "Stable", 1, 10)), history);
      step(t);
    }
    assertThat(page.types()).containsExactly("snapshot", "heartbeat", "heartbeat");

    current =
        withGroups(
            healthy(3, 10, 2_100),
            List.of(group("g", "PreparingRebalance", 1, 10)),
            List.of(groupEvent(10, "gen 1"), groupEvent(2_050, "c2 joined")));
    for (long t = 2_100; t <= 2_600; t += 100) {
      step(t);
    }

    assertThat(page.types()).containsExactly("snapshot", "heartbeat", "heartbeat", "delta");
    JsonNode delta = page.message(3);
    assertThat(delta.get("partitions")).isEmpty();
    assertThat(delta.get("groups")).hasSize(1);
    assertThat(delta.get("groups").get(0).get("state").asString()).isEqualTo("PreparingRebalance");
    assertThat(delta.get("removed_groups")).isEmpty();
    assertThat(delta.get("group_events")).hasSize(1);
    assertThat(delta.get("group_events").get(0).get("text").asString()).isEqualTo("c2 joined");
  }

  @Test
  void aSlowSubscriberGetsOneCoalescedDeltaWhenItIsReadyAndDoesNotHoldBackAFastOne() {
    RecordingSubscriber slow = subscribe();
    RecordingSubscriber fast = subscribe();
    step(0);

    slow.blocked = true;
    for (int hw = 1; hw <= 15; hw++) { // 4.2 s stalled: under the send timeout
      current = healthy(3, hw, 300L * hw);
      step(300L * hw);
    }
    assertThat(fast.types())
        .hasSize(16)
        .startsWith("snapshot", "delta")
        .doesNotContain("heartbeat");
    assertThat(slow.types())
        .as("its first delta is still in flight")
        .containsExactly("snapshot", "delta");
    assertThat(slow.inFlight).as("one send in flight, nothing queued behind it").hasSize(1);

    slow.release();
    step(300L * 16);
    assertThat(slow.types()).containsExactly("snapshot", "delta", "delta");
    assertThat(
            slow.message(2).get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .as("the delta after the stall jumps straight to the latest view")
        .isEqualTo(15);
    assertThat(slow.seqs()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aSendStuckLongerThanTheTimeoutClosesThatSubscriberOnly() {
    RecordingSubscriber stuck = subscribe();
    RecordingSubscriber fine = subscribe();
    step(0);
    stuck.blocked = true;
    current = healthy(3, 1, 300);
    step(300);

    step(300 + SEND_TIMEOUT_MS + 1);

    assertThat(stuck.closed).isTrue();
    assertThat(fine.closed).isFalse();
    assertThat(publisher.subscriberCount()).isEqualTo(1);
  }

  @Test
  void aFailedSendDropsTheSubscriber() {
    RecordingSubscriber broken = subscribe();
    broken.failing = true;
    step(0);

    assertThat(broken.closed).isTrue();
    assertThat(publisher.subscriberCount()).isZero();
  }

  private RecordingSubscriber subscribe() {
    RecordingSubscriber subscriber = new RecordingSubscriber();
    publisher.subscribe(subscriber);
    return subscriber;
  }

  private void step(long nowMs) {
    clock.nowMs = nowMs;
    publisher.tick();
  }

  /**
   * Records what it is sent; while {@code blocked}, sends stay in flight until {@link #release}.
   */
  private final class RecordingSubscriber implements DashboardPublisher.Subscriber {
    final List<String> received = new ArrayList<>();
    final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
    boolean blocked;
    boolean failing;
    boolean closed;

    @Override
    public CompletionStage<Void> send(String message) {
      if (failing) {
        return CompletableFuture.failedFuture(new java.io.IOException("connection reset"));
      }
      received.add(message);
      if (blocked) {
        CompletableFuture<Void> pending = new CompletableFuture<>();
        inFlight.add(pending);
        return pending;
      }
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
      closed = true;
    }

    void release() {
      blocked = false;
      inFlight.forEach(f -> f.complete(null));
      inFlight.clear();
    }

    List<String> types() {
      return received.stream().map(m -> json.readTree(m).get("type").asString()).toList();
    }

    List<Long> seqs() {
      return received.stream().map(m -> json.readTree(m).get("seq").asLong()).toList();
    }

    JsonNode message(int i) {
      JsonNode m = json.readTree(received.get(i));
      return m.has("state") ? m.get("state") : m;
    }
  }

  private static final class ManualClock implements Time {
    long nowMs;

    @Override
    public long milliseconds() {
      return nowMs;
    }

    @Override
    public long nanoseconds() {
      return nowMs * 1_000_000;
    }
  }
}
