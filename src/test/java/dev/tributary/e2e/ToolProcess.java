package dev.tributary.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A command-line Kafka client run as a child process of the test: kcat, or one of Kafka's tools
 * ({@code org.apache.kafka.tools.*}) in a JVM of its own on the test classpath. Its stdout and
 * stderr go to {@code <logDir>/<name>.out} and {@code .err}, beside the brokers' logs, so a failure
 * can be read from the run's artifacts.
 *
 * <p>The process itself is started (never a wrapper script), so ending it ends the client. Every
 * one still running when the test JVM exits is SIGKILLed by a shutdown hook, as brokers are.
 */
final class ToolProcess implements AutoCloseable {
  private static final JsonMapper json = JsonMapper.builder().build();
  private static final Set<Process> live = ConcurrentHashMap.newKeySet();

  /**
   * Logback for the tools' JVMs: warnings only, on stderr, so stdout carries nothing but the tool's
   * own output (the Verifiable* tools' JSON events).
   */
  private static final String LOGBACK =
      "<configuration><appender name=\"err\" class=\"ch.qos.logback.core.ConsoleAppender\">"
          + "<target>System.err</target><encoder><pattern>%d %-5level %logger - %msg%n</pattern>"
          + "</encoder></appender><root level=\"WARN\"><appender-ref ref=\"err\"/></root>"
          + "</configuration>";

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> live.forEach(Process::destroyForcibly), "e2e-tool-reaper"));
  }

  private final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;

  private ToolProcess(String name, Process process, Path stdout, Path stderr) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /**
   * Starts {@code command}, writes {@code stdin} (then closes it; an empty array closes it at
   * once).
   */
  static ToolProcess start(String name, List<String> command, byte[] stdin, Path logDir) {
    try {
      Files.createDirectories(logDir);
      Path out = logDir.resolve(name + ".out");
      Path err = logDir.resolve(name + ".err");
      Files.writeString(err, String.join(" ", command) + System.lineSeparator());
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
              .start();
      live.add(process);
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin);
      }
      return new ToolProcess(name, process, out, err);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
  }

  /** The command that runs Kafka's tool {@code mainClass} with {@code args} in its own JVM. */
  static List<String> kafkaTool(String mainClass, Path logDir, List<String> args) {
    Path logback = logDir.resolve("tools-logback.xml");
    try {
      Files.createDirectories(logDir);
      Files.writeString(logback, LOGBACK);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dlogback.configurationFile=" + logback,
            "-cp",
            System.getProperty("java.class.path"),
            mainClass));
    command.addAll(args);
    return command;
  }

  /**
   * Waits for the process to exit and returns its exit code; one that has not exited within {@code
   * timeout} is SIGKILLed and fails the test.
   */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      close();
      throw new AssertionError(
          name + " did not finish within " + timeout + "; see " + stdout + " and " + stderr);
    }
    live.remove(process);
    return process.exitValue();
  }

  /** Everything it printed on stdout so far, line by line. */
  List<String> lines() {
    try {
      return Files.readAllLines(stdout, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The JSON objects it printed on stdout, one a line (Kafka's Verifiable* tools' events). */
  List<JsonNode> events() {
    return lines().stream().filter(line -> line.startsWith("{")).map(json::readTree).toList();
  }

  /** Its events named {@code name}. */
  List<JsonNode> events(String name) {
    return events().stream().filter(e -> e.path("name").asString().equals(name)).toList();
  }

  String describe() {
    return name + " (stdout " + stdout + ", stderr " + stderr + ")";
  }

  /** SIGKILLs it if it still runs. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    live.remove(process);
  }
}
