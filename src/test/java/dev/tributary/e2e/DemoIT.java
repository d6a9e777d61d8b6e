package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.demo.BrokerControl;
import dev.tributary.demo.DemoMain;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every guided demo ({@code ./tributary demo NAME --auto}, docs/demos.md) run in-process against
 * ONE shared cluster of three broker processes started with the launcher's demo settings: each must
 * exit 0 with a passing verdict, and its banner must reach the dashboard's state of a broker other
 * than the one the demo talks to (the runner tells every broker). A demo that kills a broker
 * restarts it itself; {@link #everyBrokerRuns} heals whatever a failed one left behind.
 *
 * <p>Adding a demo: one more {@code @Test} method calling {@link #runAndCheck(String)}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DemoIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();

  /** The settings {@code ./tributary start} gives a three-broker cluster (cmd_start). */
  static final List<String> LAUNCHER_SETTINGS =
      List.of(
          "--tributary.default-replication-factor=3",
          "--tributary.min-insync-replicas=2",
          "--tributary.replica-lag-time-max-ms=5000",
          "--tributary.leader-imbalance-check-interval-ms=10000",
          "--tributary.dashboard.fault-actions=true");

  static final Duration DEMO_TIMEOUT = Duration.ofMinutes(3);

  @TempDir static Path data;
  static TestCluster cluster;
  private static final HttpClient http = HttpClient.newHttpClient();
  private static final JsonMapper json = JsonMapper.builder().build();

  @BeforeAll
  static void start() {
    cluster = new TestCluster(data, e2e.logDir(), 3, LAUNCHER_SETTINGS);
    cluster.startAll();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void everyBrokerRuns() {
    cluster.healAll();
  }

  @Test
  void partitions() throws Exception {
    runAndCheck("partitions");
  }

  @Test
  void replication() throws Exception {
    runAndCheck("replication");
  }

  @Test
  void hw() throws Exception {
    runAndCheck("hw");
  }

  @Test
  void isr() throws Exception {
    runAndCheck("isr");
  }

  @Test
  void groups() throws Exception {
    runAndCheck("groups");
  }

  /** Crashes and restarts go to the test's own broker processes, as the launcher does them. */
  static final BrokerControl CONTROL =
      new BrokerControl() {
        @Override
        public void kill(int id) throws Exception {
          cluster.get(id).kill();
        }

        @Override
        public void start(int id) {
          cluster.restart(id);
        }

        @Override
        public boolean isRunning(int id) {
          return cluster.get(id).isAlive();
        }
      };

  /**
   * Runs demo {@code name} against broker 1 as a person at the keyboard would begin it: the runner
   * stops at step 1 and waits for Enter, having told every broker its banner. The banner must show
   * on broker 2's or 3's dashboard state then; the test then ends stdin, and the demo goes on by
   * itself (as with {@code --auto}). Asserts exit 0 and the passing RESULT line. (Sampling the
   * state while an {@code --auto} run goes missed demos that finish in a quarter of a second.)
   */
  static String runAndCheck(String name) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PipedOutputStream keyboard = new PipedOutputStream();
    PipedInputStream stdin = new PipedInputStream(keyboard);
    cluster.mark("demo " + name + " begins");
    java.util.concurrent.ExecutorService runner =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    CompletableFuture<Integer> run =
        CompletableFuture.supplyAsync(
            () ->
                DemoMain.run(
                    new String[] {name, "--lang", "en", "--url", cluster.get(1).url("")},
                    Map.of(),
                    stdin,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8),
                    CONTROL),
            runner);
    int exit;
    try {
      // Brokers 2 and 3: a demo may kill either (the controller demo kills the controller's).
      await("demo " + name + "'s banner on broker 2's or 3's dashboard state, at step 1")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  run.isDone()
                      || bannerOf(2).filter(name::equals).isPresent()
                      || bannerOf(3).filter(name::equals).isPresent());
      assertThat(run.isDone())
          .as("demo %s ended before its first step's banner showed: %s%s", name, out, err)
          .isFalse();
      keyboard.close(); // stdin ends: the demo goes on by itself
      exit = run.get(DEMO_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } finally {
      keyboard.close();
      runner.shutdownNow();
    }
    String output = out.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    System.out.println(err.toString(StandardCharsets.UTF_8));
    cluster.mark("demo " + name + " ended with exit " + exit);
    assertThat(exit).as("exit status of demo %s; its output:%n%s%s", name, output, err).isZero();
    assertThat(output).contains("RESULT demo=" + name + " verdict=pass").contains("failed=0");
    return output;
  }

  private static java.util.Optional<String> bannerOf(int id) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(cluster.get(id).url("/dashboard/state")))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode demo = json.readTree(r.body()).path("demo");
      return demo.isObject()
          ? java.util.Optional.of(demo.path("name").asString())
          : java.util.Optional.empty();
    } catch (Exception e) {
      return java.util.Optional.empty(); // the broker may be down during a demo
    }
  }

  // The demos that crash brokers run last (after every unordered test, Order.DEFAULT): each starts
  // with every partition in sync and must leave the cluster so.
  static final int CRASHING = Order.DEFAULT + 1;

  @Test
  @Order(CRASHING + 0)
  void acks() throws Exception {
    awaitEverythingInSync(); // a broker healAll just restarted is back in every ISR
    runAndCheck("acks");
    awaitEverythingInSync();
  }

  @Test
  @Order(CRASHING + 1)
  void failover() throws Exception {
    awaitEverythingInSync(); // a broker healAll just restarted is back in every ISR
    runAndCheck("failover");
    awaitEverythingInSync();
  }

  @Test
  @Order(CRASHING + 2)
  void controller() throws Exception {
    awaitEverythingInSync(); // a broker healAll just restarted is back in every ISR
    runAndCheck("controller");
    awaitEverythingInSync();
  }

  private static void awaitEverythingInSync() {
    org.awaitility.Awaitility.await("every partition with its full ISR")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              HttpResponse<String> r =
                  http.send(
                      HttpRequest.newBuilder(URI.create(cluster.get(2).url("/dashboard/state")))
                          .timeout(Duration.ofSeconds(5))
                          .build(),
                      HttpResponse.BodyHandlers.ofString());
              for (JsonNode p : json.readTree(r.body()).path("partitions")) {
                if (p.path("leader").asInt(-1) < 0
                    || p.path("isr").size() != p.path("replicas").size()) {
                  return false;
                }
              }
              return true;
            });
  }
}
