package dev.tributary.web;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Cuts and heals the links of a cluster whose brokers are separate hosts ({@code ./tributary start
 * --hosts}: each in a network namespace of its own), for the dashboard's "cut off" and "heal"
 * buttons. The launcher owns the network it made, so this runs its {@code isolate} and {@code heal}
 * commands, which drop packets with nftables (never refuse them: docs/adr/0024).
 */
@Component
class NetworkFaults {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(NetworkFaults.class);

  /** nft and ip take milliseconds; a launcher that has not answered by then is stuck. */
  private static final long LAUNCHER_TIMEOUT_MS = 10_000;

  /** Long enough for the HTTP answer to leave before this broker's own links are cut. */
  private static final long SELF_CUT_DELAY_MS = 150;

  private final DashboardProperties properties;

  NetworkFaults(DashboardProperties properties) {
    this.properties = properties;
  }

  /** Whether this broker may cut links: fault actions on, and started by the launcher on hosts. */
  boolean available() {
    return properties.faultActions()
        && properties.networkFaults()
        && !properties.launcher().isBlank()
        && !properties.launcherDataDir().isBlank();
  }

  /**
   * Drops every packet between broker {@code brokerId} and the brokers in {@code from}, or between
   * it and everyone (clients included) when {@code from} is empty.
   *
   * @return the launcher's account of what it did
   * @throws LauncherFailed when the launcher failed, with its last line of output
   */
  String isolate(int brokerId, List<Integer> from) throws LauncherFailed {
    return run(isolateCommand(brokerId, from));
  }

  /**
   * The same, run after the answer has left: for this broker cutting itself off from everyone,
   * whose answer would otherwise be dropped on the way out.
   */
  void isolateSoon(int brokerId) {
    Thread thread =
        new Thread(
            () -> {
              try {
                Thread.sleep(SELF_CUT_DELAY_MS);
                logger.warn("{}", run(isolateCommand(brokerId, List.of())));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (LauncherFailed e) {
                logger.warn("Cutting broker {} off failed: {}", brokerId, e.getMessage());
              }
            },
            "tributary-network-fault");
    thread.setDaemon(true);
    thread.start();
  }

  /** Restores every link of the cluster. */
  String heal() throws LauncherFailed {
    return run(launcher("heal"));
  }

  private List<String> isolateCommand(int brokerId, List<Integer> from) {
    List<String> command = launcher("isolate", String.valueOf(brokerId));
    if (!from.isEmpty()) {
      command.add("--from");
      command.add(from.stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
    return command;
  }

  private List<String> launcher(String... args) {
    List<String> command = new ArrayList<>();
    command.add(properties.launcher());
    command.add("--data");
    command.add(properties.launcherDataDir());
    command.addAll(List.of(args));
    return command;
  }

  private static String run(List<String> command) throws LauncherFailed {
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      // Read on another thread, so that a launcher that hangs cannot hold this one past the
      // timeout.
      CompletableFuture<String> output =
          CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
      if (!process.waitFor(LAUNCHER_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new LauncherFailed(
            "the launcher did not finish within " + LAUNCHER_TIMEOUT_MS + " ms");
      }
      String last = lastLine(output.join());
      logger.info("{} exited with status {}: {}", command, process.exitValue(), last);
      if (process.exitValue() != 0) {
        throw new LauncherFailed(last.isEmpty() ? "exit status " + process.exitValue() : last);
      }
      return last;
    } catch (IOException e) {
      throw new LauncherFailed("the launcher could not be run (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LauncherFailed("interrupted while the launcher ran");
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
  }

  private static String lastLine(String output) {
    int newline = output.lastIndexOf('\n');
    return newline < 0 ? output : output.substring(newline + 1).strip();
  }

  /** The launcher did not do what it was asked; the message says why, in its words. */
  static final class LauncherFailed extends Exception {
    LauncherFailed(String message) {
      super(message);
    }
  }
}
