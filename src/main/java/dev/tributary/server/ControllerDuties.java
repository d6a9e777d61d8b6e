package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.MetadataQuorum;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a broker does while it is the active controller, checked on the scheduler every {@value
 * #CHECK_INTERVAL_MS} ms (cheap when it is not): give every broker a fresh session when it takes
 * over (heartbeat times were the old controller's soft state), keep the session of its own broker
 * (alive as long as this process is), fence brokers whose session lapsed, and now and then move
 * leadership back to preferred replicas ({@code auto.leader.rebalance.enable}).
 *
 * <p>Concurrency: runs only on the scheduler's thread, one check at a time.
 */
final class ControllerDuties {
  private static final Logger logger = LoggerFactory.getLogger(ControllerDuties.class);
  static final long CHECK_INTERVAL_MS = 100;

  private final BrokerConfig config;
  private final MetadataQuorum quorum;
  private final Controller controller;
  private final Time time;
  private final Scheduler scheduler;
  private final BooleanSupplier stopped;

  /**
   * The controller epoch (Raft term) this broker last took controller duties for; -1 while not the
   * controller.
   */
  private long activeControllerEpoch = -1;

  /** Monotonic; the first check after start runs at once. */
  private long nextPreferredLeaderCheckMs = Long.MIN_VALUE;

  ControllerDuties(
      BrokerConfig config,
      MetadataQuorum quorum,
      Controller controller,
      Time time,
      Scheduler scheduler,
      BooleanSupplier stopped) {
    this.config = config;
    this.quorum = quorum;
    this.controller = controller;
    this.time = time;
    this.scheduler = scheduler;
    this.stopped = stopped;
  }

  /** Checks now and then every {@value #CHECK_INTERVAL_MS} ms until {@code stopped}. */
  void start() {
    scheduler.schedule(
        CHECK_INTERVAL_MS,
        () -> {
          if (stopped.getAsBoolean()) {
            return;
          }
          try {
            check();
          } catch (RuntimeException e) {
            logger.warn("Controller duties failed; will retry", e);
          }
          start();
        });
  }

  void check() {
    boolean active = quorum.isActiveController();
    long epoch = quorum.controllerEpoch();
    // Compare terms, not a flag: losing and regaining leadership between two checks is a new term,
    // and the brokers that could not heartbeat in the gap need a fresh session again.
    if (active && epoch != activeControllerEpoch) {
      logger.info("Broker {} is now the active controller (epoch {})", config.brokerId(), epoch);
      controller.onBecomeActive(config.brokerId(), epoch, time.monotonicMs());
    }
    activeControllerEpoch = active ? epoch : -1;
    if (!active) {
      return;
    }
    // Monotonic, like the heartbeats ControllerService stamps: see BrokerHeartbeatManager.
    long nowMs = time.monotonicMs();
    controller.renewLocalSession(config.brokerId(), nowMs);
    controller.maybeFenceStaleBrokers(nowMs);
    if (config.autoLeaderRebalanceEnable() && nowMs >= nextPreferredLeaderCheckMs) {
      nextPreferredLeaderCheckMs = nowMs + config.leaderImbalanceCheckIntervalMs();
      controller.maybeElectPreferredLeaders();
    }
  }
}
