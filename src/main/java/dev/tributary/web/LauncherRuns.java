package dev.tributary.web;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Runs the launcher that started this cluster ({@code launcher --data DIR ARGS...}, {@code
 * ./tributary}) in the background, for the dashboard buttons that need a process this broker cannot
 * be: start a stopped broker, add one, decommission one. The launcher's output is appended to
 * {@code DIR/dashboard-NAME.log} (the page has only the answer's message to show, so that is where
 * the whole story is); its exit status goes to this broker's log.
 *
 * <p>One run per name at a time: while the run a button started is still going, the same button is
 * refused rather than run again, so that a double click does not add two brokers. Runs are
 * remembered by this broker only, in memory.
 *
 * <p>Thread-safety: {@link #start} is synchronized, so two requests cannot both find no run going.
 */
@Component
class LauncherRuns {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(LauncherRuns.class);

  private final DashboardProperties properties;
  private final Map<String, Process> running = new HashMap<>();

  LauncherRuns(DashboardProperties properties) {
    this.properties = properties;
  }

  /** Whether this broker knows the launcher that started it, and the cluster's data directory. */
  boolean configured() {
    return !properties.launcher().isBlank() && !properties.launcherDataDir().isBlank();
  }

  /**
   * A run: where its output goes, and whether this call started it ({@code false}: one by the same
   * name was still running, and nothing was started).
   */
  record Run(Path log, boolean started) {}

  /**
   * Runs {@code launcher --data DIR args...} unless the run called {@code name} still runs.
   *
   * @param name names the run and its log, {@code dashboard-NAME.log}, e.g. {@code start-3}
   * @throws IOException when the launcher could not be run at all
   */
  synchronized Run start(String name, List<String> args) throws IOException {
    Path dataDir = Path.of(properties.launcherDataDir());
    Path log = dataDir.resolve("dashboard-" + name + ".log");
    Process previous = running.get(name);
    if (previous != null && previous.isAlive()) {
      return new Run(log, false);
    }
    Files.createDirectories(dataDir);
    List<String> command = new ArrayList<>();
    command.add(properties.launcher());
    command.add("--data");
    command.add(dataDir.toString());
    command.addAll(args);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    running.put(name, process);
    logger.info("Running the launcher from the dashboard: {} (output in {})", command, log);
    process
        .onExit()
        .thenAccept(
            p -> {
              forget(name, p);
              logger.info("The launcher's {} run exited with status {}", name, p.exitValue());
            });
    return new Run(log, true);
  }

  private synchronized void forget(String name, Process process) {
    running.remove(name, process);
  }
}
