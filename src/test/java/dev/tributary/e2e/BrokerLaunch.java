package dev.tributary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How the end-to-end tests run the broker jar: the JVM flags and the {@code -jar} target every
 * {@link BrokerProcess} uses.
 *
 * <p>The suite starts about sixty broker JVMs, most of them on the critical path of a test (a
 * restart after a kill, three brokers at once at a class's start), and a broker spends most of its
 * start loading and verifying classes. So, once per test JVM, the jar is extracted ({@code
 * -Djarmode=tools extract}: plain jars on a class path, which the JVM can archive, unlike classes
 * nested in a Spring Boot jar) and started once with {@code -XX:ArchiveClassesAtExit} and Spring's
 * {@code spring.context.exit=onRefresh} (the context is built, nothing is started or bound, the JVM
 * exits), which writes a class-data archive (AppCDS, JEP 350) of every class the start loaded.
 * Brokers then start from that archive: about 1.9 s to a started context instead of 3.7 s on an
 * idle 2-core machine, and with less CPU taken from the brokers already running.
 *
 * <p>The archive changes how classes are loaded, nothing the broker does: if making it fails the
 * brokers run the packaged jar as they are, and the reason is printed once.
 */
final class BrokerLaunch {
  /**
   * C1 only (TieredStopAtLevel=1): these brokers carry light test loads, and without C2 compiling
   * in the background a broker is ready sooner and leaves more CPU to the other brokers meanwhile.
   * Throughput figures come from ./tributary and scripts/, never from these. The training run uses
   * the same flags, as a class-data archive is only used by a JVM configured like the one that made
   * it.
   */
  private static final List<String> JVM_FLAGS =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static List<String> javaArgs;

  private BrokerLaunch() {}

  /** The JVM flags and {@code -jar ...} that start a broker, made on the first call. */
  static synchronized List<String> javaArgs() {
    if (javaArgs == null) {
      Path jar = Path.of(System.getProperty("tributary.jar", "target/tributary.jar"));
      if (!Files.exists(jar)) {
        throw new IllegalStateException(
            "broker jar not found at " + jar + "; run the tests with ./mvnw verify");
      }
      javaArgs = archived(jar);
    }
    return javaArgs;
  }

  private static List<String> archived(Path jar) {
    Path dir = jar.toAbsolutePath().getParent().resolve("e2e-launch");
    Path extractedJar = dir.resolve("app").resolve(jar.getFileName());
    Path archive = dir.resolve("broker.jsa");
    try {
      deleteRecursively(dir);
      Files.createDirectories(dir);
      run(
          dir,
          List.of(
              java(),
              "-Djarmode=tools",
              "-jar",
              jar.toAbsolutePath().toString(),
              "extract",
              "--destination",
              dir.resolve("app").toString()));
      List<String> training = new ArrayList<>();
      training.add(java());
      training.addAll(JVM_FLAGS);
      training.add("-XX:ArchiveClassesAtExit=" + archive);
      training.add("-Dspring.context.exit=onRefresh");
      training.addAll(List.of("-jar", extractedJar.toString()));
      training.add("--server.port=" + TestPorts.next());
      training.add("--tributary.kafka.port=" + TestPorts.next());
      training.add("--tributary.broker-id=1");
      training.add("--tributary.data-dir=" + dir.resolve("training-data"));
      run(dir, training);
      if (!Files.exists(archive) || !Files.exists(extractedJar)) {
        throw new IOException("no archive was written (see " + dir.resolve("launch.log") + ")");
      }
      List<String> args = new ArrayList<>(JVM_FLAGS);
      args.add("-XX:SharedArchiveFile=" + archive);
      args.addAll(List.of("-jar", extractedJar.toString()));
      return List.copyOf(args);
    } catch (IOException | RuntimeException e) {
      System.err.println(
          "[e2e] brokers start without a class-data archive: " + e.getMessage() + "");
      List<String> args = new ArrayList<>(JVM_FLAGS);
      args.addAll(List.of("-jar", jar.toString()));
      return List.copyOf(args);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while preparing the broker launch", e);
    }
  }

  private static void run(Path dir, List<String> command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("launch.log").toFile()))
            .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException("timed out: " + String.join(" ", command));
    }
    if (process.exitValue() != 0) {
      throw new IOException("exit code " + process.exitValue() + ": " + String.join(" ", command));
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
