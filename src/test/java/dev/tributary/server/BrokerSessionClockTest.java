package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.TopicControl;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broker sessions on the active controller run on the monotonic clock (as Kafka's
 * BrokerHeartbeatManager does): a step of the controller's wall clock, either way, neither fences a
 * broker that keeps heartbeating nor keeps a silent one unfenced past its session. Drives the real
 * request path (ControllerService stamps registrations and heartbeats) and the real duty that
 * fences (ControllerDuties), over a one-member metadata quorum.
 */
class BrokerSessionClockTest {
  private static final long SESSION_TIMEOUT_MS = 3_000;
  private static final long HEARTBEAT_INTERVAL_MS = 500;
  private static final long TEN_MINUTES_MS = 600_000;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private LocalMetadataLog log;
  private ControllerService service;
  private ControllerDuties duties;
  private final Map<Integer, Long> brokerEpochs = new HashMap<>();

  @BeforeEach
  void setUp() {
    log = LocalMetadataLog.open(dir, 1); // a quorum of one: broker 1 is always the controller
    Controller controller =
        new Controller(log, new TopicControl(new Random(1)), SESSION_TIMEOUT_MS, clock);
    service = new ControllerService(controller, log, clock, (host, port) -> false);
    BrokerConfig config =
        new BrokerConfig(
            1,
            dir,
            "127.0.0.1",
            9001,
            true,
            1,
            1,
            30_000,
            5_000,
            null,
            null,
            "",
            "",
            HEARTBEAT_INTERVAL_MS,
            SESSION_TIMEOUT_MS);
    duties = new ControllerDuties(config, log, controller, clock, clock, () -> false);
    duties.check(); // becomes the active controller
    for (int id = 1; id <= 3; id++) {
      register(id);
      heartbeat(id); // caught up with the metadata: unfenced
    }
    assertThat(log.image().unfencedBrokerIds()).containsExactly(1, 2, 3);
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  private void register(int id) {
    long epoch =
        service
            .register(
                null,
                new ControllerChannel.BrokerRegistration(
                    id,
                    new Uuid(id, 1).toString(),
                    List.of(AdvertisedListener.http("localhost", 9000 + id))))
            .brokerEpoch();
    brokerEpochs.put(id, epoch);
  }

  private void heartbeat(int id) {
    service.heartbeat(
        null,
        new ControllerChannel.BrokerHeartbeat(id, brokerEpochs.get(id), log.image().lastOffset()));
  }

  /** {@code ms} of monotonic time pass; {@code alive} heartbeat every interval; duties run. */
  private void run(long ms, List<Integer> alive) {
    for (long passed = 0; passed < ms; passed += HEARTBEAT_INTERVAL_MS) {
      clock.advance(HEARTBEAT_INTERVAL_MS);
      alive.forEach(this::heartbeat);
      duties.check();
    }
  }

  @Test
  void aForwardJumpOfTheWallClockFencesNoBrokerThatKeepsHeartbeating() {
    run(2 * SESSION_TIMEOUT_MS, List.of(1, 2, 3));

    clock.jumpWallClock(TEN_MINUTES_MS);
    duties.check();
    assertThat(log.image().unfencedBrokerIds())
        .as("ten minutes of wall clock are no silence")
        .containsExactly(1, 2, 3);

    run(2 * SESSION_TIMEOUT_MS, List.of(1, 2, 3));
    assertThat(log.image().unfencedBrokerIds()).containsExactly(1, 2, 3);
  }

  @Test
  void aBackwardJumpOfTheWallClockDoesNotKeepASilentBrokerUnfencedPastItsSession() {
    run(SESSION_TIMEOUT_MS, List.of(1, 2, 3));

    clock.jumpWallClock(-TEN_MINUTES_MS);
    run(SESSION_TIMEOUT_MS - HEARTBEAT_INTERVAL_MS, List.of(1, 2));
    assertThat(log.image().unfencedBrokerIds())
        .as("broker 3 is still within its session")
        .containsExactly(1, 2, 3);

    run(HEARTBEAT_INTERVAL_MS, List.of(1, 2));
    assertThat(log.image().unfencedBrokerIds())
        .as("broker 3 fenced once silent for a whole session, whatever the wall clock says")
        .containsExactly(1, 2);
    assertThat(log.image().broker(3).orElseThrow().fenced()).isTrue();
  }

  @Test
  void theActiveControllersOwnBrokerKeepsItsSessionWhileItsHeartbeatsStall() {
    run(2 * SESSION_TIMEOUT_MS, List.of(2));

    assertThat(log.image().unfencedBrokerIds())
        .as("broker 1 hosts the controller, so it is alive; broker 3 fell silent")
        .containsExactly(1, 2);
    assertThat(log.image().broker(3).orElseThrow().fenced()).isTrue();
  }
}
