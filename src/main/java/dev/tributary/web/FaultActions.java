package dev.tributary.web;

import dev.tributary.server.BrokerConfig;
import dev.tributary.server.ReplicaStatusService;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * What the dashboard's fault buttons do to this broker, for the demo: crash (halt at once, as
 * SIGKILL does: no shutdown hooks, no controlled shutdown), shut down cleanly (as SIGTERM:
 * leadership moves first), pause replica fetching; and, through the launcher that started the
 * cluster ({@link LauncherRuns}), restart a stopped broker, add a broker and decommission one. Only
 * ever reached when {@code tributary.dashboard.fault-actions} is on ({@link
 * DashboardActionsController} checks).
 */
@Component
class FaultActions {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(FaultActions.class);

  /** Long enough for the HTTP answer to leave before the process goes. */
  private static final long EXIT_DELAY_MS = 150;

  private final BrokerConfig config;
  private final ReplicaStatusService replicas;
  private final LauncherRuns launcher;

  FaultActions(BrokerConfig config, ReplicaStatusService replicas, LauncherRuns launcher) {
    this.config = config;
    this.replicas = replicas;
    this.launcher = launcher;
  }

  void crashSoon() {
    logger.warn(
        "Broker {} crashes now, as asked from the dashboard (halt, no shutdown)",
        config.brokerId());
    later(() -> Runtime.getRuntime().halt(137));
  }

  void shutDownSoon() {
    logger.info("Broker {} shuts down cleanly, as asked from the dashboard", config.brokerId());
    later(() -> System.exit(0)); // runs the shutdown hooks, as SIGTERM does: a controlled shutdown
  }

  void pauseFetching(long durationMs) {
    replicas.pauseReplicaFetching(durationMs);
  }

  /** Whether this broker can run the launcher that started it (start, decommission, add-broker). */
  boolean canRunLauncher() {
    return launcher.configured();
  }

  /** {@code launcher start ID}: restarts a stopped broker on its data. */
  LauncherRuns.Run startBroker(int brokerId) throws IOException {
    return launcher.start("start-" + brokerId, List.of("start", String.valueOf(brokerId)));
  }

  /**
   * {@code launcher decommission ID}: balances with the broker excluded, so that its replicas move
   * to the others, then stops it and unregisters it.
   */
  LauncherRuns.Run decommission(int brokerId) throws IOException {
    return launcher.start(
        "decommission-" + brokerId, List.of("decommission", String.valueOf(brokerId)));
  }

  /**
   * {@code launcher add-broker [--rack RACK]}: starts the next broker, which follows the metadata
   * quorum without voting and registers holding no partitions.
   */
  LauncherRuns.Run addBroker(Optional<String> rack) throws IOException {
    List<String> args = new ArrayList<>(List.of("add-broker"));
    rack.ifPresent(
        r -> {
          args.add("--rack");
          args.add(r);
        });
    return launcher.start("add-broker", args);
  }

  private static void later(Runnable action) {
    Thread thread =
        new Thread(
            () -> {
              try {
                Thread.sleep(EXIT_DELAY_MS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              action.run();
            },
            "tributary-dashboard-fault");
    thread.setDaemon(false);
    thread.start();
  }
}
