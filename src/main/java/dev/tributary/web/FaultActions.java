package dev.tributary.web;

import dev.tributary.server.BrokerConfig;
import dev.tributary.server.ReplicaStatusService;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * What the dashboard's fault buttons do to this broker, for the demo: crash (halt at once, as
 * SIGKILL does: no shutdown hooks, no controlled shutdown), shut down cleanly (as SIGTERM:
 * leadership moves first), pause replica fetching, and restart another broker through the launcher
 * that started the cluster. Only ever reached when {@code tributary.dashboard.fault-actions} is on
 * ({@link DashboardActionsController} checks).
 */
@Component
class FaultActions {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(FaultActions.class);

  /** Long enough for the HTTP answer to leave before the process goes. */
  private static final long EXIT_DELAY_MS = 150;

  private final BrokerConfig config;
  private final ReplicaStatusService replicas;
  private final DashboardProperties properties;

  FaultActions(BrokerConfig config, ReplicaStatusService replicas, DashboardProperties properties) {
    this.config = config;
    this.replicas = replicas;
    this.properties = properties;
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

  boolean canStartBrokers() {
    return !properties.launcher().isBlank() && !properties.launcherDataDir().isBlank();
  }

  /**
   * Runs {@code launcher --data DIR start ID} in the background; its output goes to {@code
   * DIR/dashboard-start-ID.log} and its exit status to this broker's log.
   */
  Path startBroker(int brokerId) throws IOException {
    Path dataDir = Path.of(properties.launcherDataDir());
    Path log = dataDir.resolve("dashboard-start-" + brokerId + ".log");
    Files.createDirectories(dataDir);
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    properties.launcher(),
                    "--data",
                    dataDir.toString(),
                    "start",
                    String.valueOf(brokerId)))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process process = builder.start();
    logger.info(
        "Starting broker {} from the dashboard: {} (output in {})",
        brokerId,
        builder.command(),
        log);
    process
        .onExit()
        .thenAccept(
            p ->
                logger.info(
                    "The launcher starting broker {} exited with status {}",
                    brokerId,
                    p.exitValue()));
    return log;
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
