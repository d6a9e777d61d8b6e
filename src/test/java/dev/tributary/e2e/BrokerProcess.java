package dev.tributary.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real broker: the packaged jar ({@code -Dtributary.jar}, set by Failsafe) started as its own JVM on a free
 * loopback port, with its output in a file beside the data directory.
 */
final class BrokerProcess implements AutoCloseable {
  private final Path dataDir;
  private final int port;
  private final int brokerId;
  private final List<String> extraArgs;
  private Process process;

  BrokerProcess(Path dataDir, int brokerId) throws IOException {
    this(dataDir, brokerId, freePort(), List.of());
  }

  /** A broker on a given port with extra {@code --name=value} arguments (cluster settings). */
  BrokerProcess(Path dataDir, int brokerId, int port, List<String> extraArgs) {
    this.dataDir = dataDir;
    this.brokerId = brokerId;
    this.port = port;
    this.extraArgs = List.copyOf(extraArgs);
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Starts the process and waits (bounded) until its readiness probe says UP. */
  BrokerProcess start() throws IOException {
    launch();
    awaitReady();
    return this;
  }

  /** Starts the process without waiting for it. */
  BrokerProcess launch() throws IOException {
    String jar = System.getProperty("tributary.jar", "target/tributary.jar");
    if (!Files.exists(Path.of(jar))) {
      throw new IllegalStateException("broker jar not found at " + jar + "; run the tests with ./mvnw verify");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC", "-jar", jar));
    command.add("--server.port=" + port);
    command.add("--tributary.broker-id=" + brokerId);
    command.add("--tributary.data-dir=" + dataDir);
    command.addAll(extraArgs);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
            .start();
    return this;
  }

  Path logFile() {
    return dataDir.resolveSibling(dataDir.getFileName() + ".log");
  }

  int brokerId() {
    return brokerId;
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Waits (bounded) until the readiness probe says UP. */
  BrokerProcess awaitReady() {
    Path logFile = logFile();
    HttpClient client = HttpClient.newHttpClient();
    await("broker ready on port " + port + " (log: " + logFile + ")")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("broker exited with " + process.exitValue() + "; see " + logFile);
              }
              try {
                return client
                        .send(
                            HttpRequest.newBuilder(URI.create(url("/actuator/health/readiness"))).build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200;
              } catch (IOException e) {
                return false;
              }
            });
    return this;
  }

  /** SIGKILL: no shutdown hooks, no flush, no clean-shutdown marker. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM: Spring's graceful shutdown. Returns the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    return process.waitFor();
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      kill();
    }
  }
}
