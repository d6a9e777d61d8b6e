package dev.tributary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What every end-to-end test class registers ({@code @RegisterExtension static final E2eFixture e2e
 * = new E2eFixture();}):
 *
 * <ul>
 *   <li>{@link #logDir()}: where the brokers' logs go, kept after the run as test artifacts, so a
 *       CI failure can be read from the run alone: {@code
 *       <tributary.e2e.logs>/<TestClass>/<testMethod>/broker-N.log} for brokers started by a test,
 *       {@code <TestClass>/} for a cluster a class shares ({@code @BeforeAll}). Failsafe sets
 *       {@code tributary.e2e.logs} to {@code ${project.build.directory}/e2e-logs}. A class's
 *       directory is emptied when the class starts.
 *   <li>Leftovers killed: after each test, every broker process started during it that still runs
 *       is SIGKILLed (after the class, every one started in it), whether the test passed, failed,
 *       or never got to its own cleanup. {@link BrokerProcess}'s JVM shutdown hook covers the rest.
 *       A broker that a {@code @BeforeEach} method (re)started belongs to the class's cluster, not
 *       to the test: it counts as running before the test.
 *   <li>Networks ({@link TestNetwork}) likewise: after each test, one it opened is closed and the
 *       class's are healed; after the class, every one is closed (once its brokers are dead). A JVM
 *       shutdown hook covers the rest.
 *   <li>Test boundaries in the logs: each broker still running when a test starts or ends gets a
 *       {@code ====} line.
 * </ul>
 */
final class E2eFixture
    implements BeforeAllCallback,
        BeforeEachCallback,
        BeforeTestExecutionCallback,
        AfterEachCallback,
        AfterAllCallback {
  private Path classDir;
  private Path currentDir;
  private Set<BrokerProcess> runningBeforeTest = Set.of();
  private Set<TestNetwork> openBeforeTest = Set.of();

  /**
   * The log directory for brokers started now (in a test, or in {@code @BeforeAll} for a shared
   * cluster).
   */
  Path logDir() {
    if (currentDir == null) {
      throw new IllegalStateException(
          "E2eFixture must be registered with @RegisterExtension on a static field");
    }
    return currentDir;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    classDir =
        Path.of(System.getProperty("tributary.e2e.logs", "target/e2e-logs"))
            .resolve(context.getRequiredTestClass().getSimpleName())
            .toAbsolutePath();
    deleteRecursively(classDir);
    currentDir = classDir;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (classDir == null) {
      beforeAll(context);
    }
    String test = context.getRequiredTestMethod().getName();
    currentDir = classDir.resolve(test);
    BrokerProcess.live().forEach(broker -> broker.mark("test " + test + " begins"));
  }

  /**
   * After the {@code @BeforeEach} methods: a shared cluster's broker that one of them restarted
   * (healAll) is not the test's leftover, or every test would kill it and the next one start it
   * again.
   */
  @Override
  public void beforeTestExecution(ExtensionContext context) {
    runningBeforeTest = BrokerProcess.live();
    openBeforeTest = TestNetwork.open();
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    String test = context.getRequiredTestMethod().getName();
    boolean failed = context.getExecutionException().isPresent();
    Set<BrokerProcess> leftovers = new HashSet<>(BrokerProcess.live());
    leftovers.removeAll(runningBeforeTest);
    for (BrokerProcess broker : leftovers) {
      broker.mark("test " + test + " ended; killing the broker it left running");
      broker.close();
    }
    // A class's network outlives its tests, but no test's faults do; a test's own network goes.
    for (TestNetwork network : TestNetwork.open()) {
      if (openBeforeTest.contains(network)) {
        network.heal();
      } else {
        network.close();
      }
    }
    BrokerProcess.live()
        .forEach(broker -> broker.mark("test " + test + (failed ? " FAILED" : " passed")));
    if (failed) {
      System.out.println(
          "broker logs of the failed test " + test + ": " + currentDir + " and " + classDir);
    }
    currentDir = classDir;
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    for (BrokerProcess broker : BrokerProcess.live()) {
      broker.mark("test class ended; killing the broker it left running");
      broker.close();
    }
    TestNetwork.closeAll();
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear old logs in " + dir, e);
    }
  }
}
