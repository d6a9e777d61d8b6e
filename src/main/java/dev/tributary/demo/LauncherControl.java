package dev.tributary.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link BrokerControl} through the launcher that started the cluster: {@code tributary --data DIR
 * kill ID} and {@code start ID}. A broker runs when its PID file ({@code DIR/broker-ID.pid}) names
 * a live process, as the launcher itself decides.
 */
final class LauncherControl implements BrokerControl {
  private static final long START_TIMEOUT_S = 180;

  private final Path launcher;
  private final Path dataDir;

  LauncherControl(Path launcher, Path dataDir) {
    this.launcher = launcher;
    this.dataDir = dataDir;
  }

  @Override
  public void kill(int id) throws Exception {
    launch("kill", id);
  }

  @Override
  public void start(int id) throws Exception {
    launch("start", id);
  }

  @Override
  public boolean isRunning(int id) {
    Path pidFile = dataDir.resolve("broker-" + id + ".pid");
    try {
      long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private void launch(String command, int id) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                List.of(
                    launcher.toString(), "--data", dataDir.toString(), command, String.valueOf(id)))
            .redirectErrorStream(true)
            .start();
    byte[] output;
    try (var in = p.getInputStream()) {
      output = in.readAllBytes();
    }
    if (!p.waitFor(START_TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new DemoException(launcher + " " + command + " " + id + " did not finish in time");
    }
    if (p.exitValue() != 0) {
      throw new DemoException(
          launcher
              + " "
              + command
              + " "
              + id
              + " failed (exit "
              + p.exitValue()
              + "): "
              + new String(output, StandardCharsets.UTF_8).trim());
    }
  }
}
