package dev.tributary.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real broker: the packaged jar ({@code -Dtributary.jar}, set by Failsafe) started as its own JVM
 * (as {@link BrokerLaunch} says) on a loopback port from {@link TestPorts} (or on a host of a
 * {@link TestNetwork}, in its network namespace), with its stdout and stderr appended straight to
 * {@link #logFile()} (one file across restarts; the fixture writes a line before each start).
 *
 * <p>Every process started here is registered until it has exited; a JVM shutdown hook SIGKILLs
 * whatever is still registered, so no broker outlives the test run, whatever way the run ends
 * (short of SIGKILL of the test JVM itself). {@link E2eFixture} kills a test's leftovers after each
 * test.
 */
final class BrokerProcess implements AutoCloseable {
  /** How long a SIGTERM may take: above the broker's own 25 s halt timer (TributaryApplication). */
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(40);

  static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private static final Set<BrokerProcess> live = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(BrokerProcess::killAllLive, "e2e-broker-reaper"));
  }

  private final Path dataDir;
  private final int port;

  /** Where its Kafka listener serves (a fixed test port, kept across restarts). */
  private final int kafkaPort;

  private final int brokerId;
  private final Path logFile;
  private final List<String> extraArgs;

  /** Where it listens and what it advertises; loopback unless it runs on a {@link TestNetwork}. */
  private final String host;

  /** The network namespace it runs in ({@code ip netns exec}); null: the test JVM's own. */
  private final String netns;

  private volatile Process process;
  private volatile boolean paused;

  /** A single broker (no quorum) on a fresh port, logging to {@code logFile}. */
  BrokerProcess(Path dataDir, int brokerId, Path logFile) {
    this(dataDir, brokerId, TestPorts.next(), logFile, List.of());
  }

  /** A broker on a given port with extra {@code --name=value} arguments (cluster settings). */
  BrokerProcess(Path dataDir, int brokerId, int port, Path logFile, List<String> extraArgs) {
    this(dataDir, brokerId, port, logFile, extraArgs, "127.0.0.1", null);
  }

  /**
   * A broker on host {@code host} of a {@link TestNetwork}, run in namespace {@code netns}: it
   * binds HTTP, Kafka and Raft to that address and advertises it.
   */
  BrokerProcess(
      Path dataDir,
      int brokerId,
      int port,
      Path logFile,
      List<String> extraArgs,
      String host,
      String netns) {
    this.host = host;
    this.netns = netns;
    this.dataDir = dataDir;
    this.brokerId = brokerId;
    this.port = port;
    this.kafkaPort = TestPorts.next();
    this.logFile = logFile;
    this.extraArgs = List.copyOf(extraArgs);
  }

  /** The port of its Kafka listener: {@code host():kafkaPort()} bootstraps a Kafka client. */
  int kafkaPort() {
    return kafkaPort;
  }

  /** The address it listens on and advertises. */
  String host() {
    return host;
  }

  /** Its network namespace, or null when it runs in the test JVM's. */
  String netns() {
    return netns;
  }

  /** Every broker process started in this JVM that has not been seen to exit. */
  static Set<BrokerProcess> live() {
    live.removeIf(broker -> !broker.isAlive());
    return Set.copyOf(live);
  }

  static void killAllLive() {
    for (BrokerProcess broker : live) {
      Process p = broker.process;
      if (p != null) {
        p.destroyForcibly();
      }
    }
  }

  /** Starts the process and waits (bounded) until its readiness probe says UP. */
  BrokerProcess start() {
    launch();
    awaitReady();
    return this;
  }

  /** Starts the process without waiting for it. */
  synchronized BrokerProcess launch() {
    if (isAlive()) {
      throw new IllegalStateException(
          "broker " + brokerId + " is already running (pid " + process.pid() + ")");
    }
    List<String> command = new ArrayList<>();
    if (netns != null) {
      // ip netns exec execs the command (no fork), so the process (and its PID) stays java's:
      // destroy, SIGSTOP and SIGCONT reach the broker itself.
      command.addAll(List.of("ip", "netns", "exec", netns));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(BrokerLaunch.javaArgs());
    command.add("--server.port=" + port);
    command.add("--tributary.broker-id=" + brokerId);
    command.add("--tributary.data-dir=" + dataDir);
    command.add("--tributary.kafka.port=" + kafkaPort);
    if (netns != null) {
      command.add("--server.address=" + host);
      command.add("--tributary.advertised-host=" + host);
      command.add("--tributary.kafka.host=" + host);
    }
    // Most end-to-end tests exercise replication, not access control (SecurityApiTest does that).
    if (extraArgs.stream().noneMatch(a -> a.startsWith("--tributary.security.enabled="))) {
      command.add("--tributary.security.enabled=false");
    }
    command.addAll(extraArgs);
    try {
      Files.createDirectories(logFile.getParent());
      mark("starting broker " + brokerId + ": " + String.join(" ", command));
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start broker " + brokerId, e);
    }
    live.add(this);
    paused = false;
    return this;
  }

  /**
   * Appends a line (prefixed {@code ====}) to this broker's log, to tie what the test did to what
   * the broker logged.
   */
  void mark(String what) {
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "==== " + Instant.now() + " [test] " + what + System.lineSeparator(),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path logFile() {
    return logFile;
  }

  Path dataDir() {
    return dataDir;
  }

  int brokerId() {
    return brokerId;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** Running and not SIGSTOPped: it will answer. */
  boolean isServing() {
    return isAlive() && !paused;
  }

  boolean isPaused() {
    return paused && isAlive();
  }

  /** The exit code once it has exited. */
  int exitValue() {
    return process.exitValue();
  }

  /** Waits (bounded) until the readiness probe says UP; fails at once if the process exits. */
  BrokerProcess awaitReady() {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    Process p = process;
    await("broker " + brokerId + " ready on port " + port + " (log: " + logFile + ")")
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!p.isAlive()) {
                throw new IllegalStateException(
                    "broker "
                        + brokerId
                        + " exited with "
                        + p.exitValue()
                        + " before it was ready; see "
                        + logFile);
              }
              try {
                return client
                        .send(
                            HttpRequest.newBuilder(URI.create(url("/actuator/health/readiness")))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200;
              } catch (IOException e) {
                return false;
              }
            });
    return this;
  }

  /**
   * SIGKILL: no shutdown hooks, no flush, no clean-shutdown marker. Waits until the process is
   * gone.
   */
  void kill() throws InterruptedException {
    Process p = process;
    if (p == null) {
      return;
    }
    mark("SIGKILL broker " + brokerId);
    p.destroyForcibly();
    if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "broker " + brokerId + " (pid " + p.pid() + ") survived SIGKILL");
    }
    live.remove(this);
  }

  /**
   * SIGTERM: Spring's graceful shutdown. Returns the exit code; fails (after a SIGKILL) if the
   * broker has not exited within {@link #STOP_TIMEOUT}, since a broker must always obey SIGTERM.
   */
  int stop() throws InterruptedException {
    Process p = process;
    mark("SIGTERM broker " + brokerId);
    p.destroy();
    if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      live.remove(this);
      throw new AssertionError(
          "broker "
              + brokerId
              + " (pid "
              + p.pid()
              + ") ignored SIGTERM for "
              + STOP_TIMEOUT.toSeconds()
              + " s and was SIGKILLed; see "
              + logFile);
    }
    live.remove(this);
    return p.exitValue();
  }

  /**
   * SIGSTOP: the process freezes (no heartbeats, no fetches, no answers) until {@link #resume()}.
   */
  void pause() {
    mark("SIGSTOP broker " + brokerId);
    paused = true; // first: from now on nobody sends it requests that would hang
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  void resume() {
    mark("SIGCONT broker " + brokerId);
    signal("CONT");
    paused = false;
  }

  private void signal(String name) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  String url(String path) {
    return "http://" + host + ":" + port + path;
  }

  /** SIGKILLs the process if it still runs (a SIGSTOPped one too). */
  @Override
  public void close() throws InterruptedException {
    if (isAlive()) {
      kill();
    }
    live.remove(this);
  }
}
