package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import dev.tributary.e2e.ClusterClient.PartitionState;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import tools.jackson.databind.JsonNode;

/**
 * The live dashboard in headless Chromium against three real broker processes: the page shows each
 * partition's leader, ISR and high watermark as the API does; a SIGSTOPped follower leaves the ISR
 * on screen and comes back; the page's forms create a topic, produce to it, run a steady load,
 * browse it and delete it; its fault buttons pause and crash brokers (a follower whose fetching is
 * paused shows its time not caught up counting up against replica.lag.time.max.ms, then out of the
 * ISR); when the broker that served the page freezes (SIGSTOP) or dies (SIGKILL) the page moves to
 * another broker and shows the new leaders. It also measures how long a produce takes to reach the
 * screen and how long the page takes to notice its broker died (printed, and written to {@code
 * target/dashboard-latency.txt}; docs/benchmarks.md has the figures). Screenshots go to {@code
 * target/screenshots/}.
 *
 * <p>Near the 700-line limit for tests: the next scenario goes into a new class. Nothing shares a
 * running cluster between IT classes (E2eFixture gives each class its own, started in
 * {@code @BeforeAll} as {@link #start} does, logged under {@code e2e-logs/<Class>/} and killed
 * after the class), so the new class starts one with these settings and its own browser; the page
 * helpers both need (signIn, row, pill, fill, submit, clickOn) move into a package-private helper
 * class, as {@link ReplicationChecks} serves the replication ITs, not a copy.
 */
@TestMethodOrder(
    MethodOrderer.OrderAnnotation
        .class) // the two that end a broker last: fewer restarts (~15 s each)
class DashboardLiveIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final long REPLICA_LAG_TIME_MAX_MS = 2_000;
  static final Duration ON_SCREEN = Duration.ofSeconds(20);
  static final String TOPIC = "live";
  static final int PARTITIONS = 3;
  static final int LATENCY_SAMPLES = 15;

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() {
    cluster =
        new TestCluster(
            data,
            e2e.logDir(),
            3,
            Stream.concat(
                    TestCluster.SECURITY_ON.stream(),
                    Stream.of(
                        "--tributary.replica-lag-time-max-ms=" + REPLICA_LAG_TIME_MAX_MS,
                        "--tributary.request-timeout-ms=5000",
                        "--tributary.dashboard.fault-actions=true",
                        "--tributary.leader-imbalance-check-interval-ms=1000"))
                .toList());
    client = new ClusterClient(cluster, TestCluster.ADMIN_TOKEN);
    browser = HeadlessChromium.start(1400, 1000);
    cluster.startAll();
    signIn();
    client.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (browser != null) {
      browser.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Every broker runs, every partition has its full ISR and its preferred leader (so each broker
   * leads one: the preferred-leader check runs every second here), and the page is freshly opened
   * on broker 1.
   */
  @BeforeEach
  void everyBrokerRunsAndThePageIsOpen() {
    cluster.healAll();
    ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, PARTITIONS, Duration.ofSeconds(60));
    await("preferred leaders")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                client.partitions(TOPIC).stream().allMatch(p -> p.leader() == p.replicas().get(0)));
    browser.driver().get(cluster.get(1).url("/"));
    await("the page is live").atMost(ON_SCREEN).until(() -> "live".equals(pill("data-state")));
  }

  @Test
  @Order(1)
  void thePageShowsWhatTheApiShowsAndAProduceReachesTheScreenWellWithinASecond() throws Exception {
    for (PartitionState p : client.partitions(TOPIC)) {
      String row = row(p.partition());
      await("partition " + p.partition() + " as the API shows it")
          .atMost(ON_SCREEN)
          .until(
              () ->
                  String.valueOf(p.leader()).equals(browser.attribute(row, "data-leader"))
                      && csv(p.isr()).equals(sortedCsv(browser.attribute(row, "data-isr")))
                      && "".equals(browser.attribute(row, "data-osr")));
    }
    long hw = highWatermark(0);

    // Note when the row's HW attribute moves (by the page's clock: the same machine's).
    browser.script(
        """
        window.__hwSeen = {};
        const watch = () => {
          const row = document.querySelector(arguments[0]);
          if (row) { const hw = row.getAttribute('data-hw'); if (!(hw in window.__hwSeen)) window.__hwSeen[hw] = Date.now(); }
        };
        new MutationObserver(watch).observe(document.getElementById('partitions'),
            { subtree: true, childList: true, attributes: true, attributeFilter: ['data-hw'] });
        watch();""",
        row(0));
    List<Long> latenciesMs = new ArrayList<>();
    Random random = new Random(7);
    for (int i = 0; i < LATENCY_SAMPLES; i++) {
      Thread.sleep(
          200 + random.nextInt(500)); // land at a random phase of the polling and coalescing
      produce(0, 1);
      long ackedMs =
          System.currentTimeMillis(); // acks=all: the leader's HW covers the record by now
      long expected = ++hw;
      await("HW " + expected + " on screen")
          .atMost(ON_SCREEN)
          .until(() -> seenAt(expected) != null);
      latenciesMs.add(Math.max(0, seenAt(expected) - ackedMs));
    }
    assertThat(browser.attribute(row(0) + " [data-replica]", "data-leo")).isNotEmpty();
    report("produce acknowledged (acks=all) -> new high watermark on screen", latenciesMs);
    browser.screenshot("dashboard");
  }

  @Test
  @Order(2)
  void aPausedFollowerLeavesTheIsrOnScreenAndComesBack() throws Exception {
    PartitionState p0 = client.partition(TOPIC, 0);
    int controller = client.controllerId();
    int follower =
        p0.replicas().stream()
            .filter(id -> id != p0.leader() && id != 1 && id != controller)
            .findFirst()
            .orElseGet(
                () ->
                    p0.replicas().stream()
                        .filter(id -> id != p0.leader() && id != 1)
                        .findFirst()
                        .orElseThrow());
    String replica = row(0) + " [data-replica='" + follower + "']";

    cluster.get(follower).pause();
    produce(0, 5); // the follower falls behind, so the leader's lag rule applies
    await("broker " + follower + " out of the ISR on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                !List.of(browser.attribute(row(0), "data-isr").split(","))
                        .contains(String.valueOf(follower))
                    && "false".equals(browser.attribute(replica, "data-in-sync"))
                    && browser.attribute(row(0), "data-osr").equals(String.valueOf(follower)));
    assertThat(client.partition(TOPIC, 0).isr()).doesNotContain(follower);
    assertThat(browser.texts("#events li[data-type='isr_shrink']"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains(
                        TOPIC + "-0", "replica " + follower + " left", "replica.lag.time.max.ms"));
    browser.screenshot("dashboard-follower-paused");

    cluster.get(follower).resume();
    await("broker " + follower + " back in the ISR on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                sortedCsv(browser.attribute(row(0), "data-isr")).equals("1,2,3")
                    && "true".equals(browser.attribute(replica, "data-in-sync")));
    assertThat(browser.texts("#events li[data-type='isr_expand']"))
        .anySatisfy(e -> assertThat(e).contains(TOPIC + "-0", "replica " + follower + " joined"));
  }

  @Test
  @Order(5)
  void whenTheBrokerServingThePageFreezesThePageNoticesWithinSecondsAndMovesOn() throws Exception {
    watchThePill();

    long pausedMs = System.currentTimeMillis();
    cluster.get(1).pause(); // SIGSTOP: the TCP connection stays open, only the heartbeats stop
    awaitLiveOnAnotherBrokerThan(1);
    report(
        "SIGSTOP of the serving broker -> page says it lost it",
        List.of(pillChange("reconnecting") - pausedMs));
    report(
        "SIGSTOP of the serving broker -> page live again on another broker",
        List.of(pillChange("live") - pausedMs));
    await("broker 1 shown as not answering")
        .atMost(ON_SCREEN)
        .until(
            () ->
                "false".equals(browser.attribute("#brokers [data-broker='1']", "data-reachable")));
    cluster.get(1).resume();
  }

  @Test
  @Order(6)
  void whenTheBrokerServingThePageIsKilledThePageMovesToAnotherAndShowsTheNewLeader()
      throws Exception {
    int led = settledPartitionLedBy1();
    watchThePill();

    long killedMs = System.currentTimeMillis(); // the page may know before kill() returns
    cluster.get(1).kill();
    awaitLiveOnAnotherBrokerThan(1);
    long noticedMs = pillChange("reconnecting");
    long liveAgainMs = pillChange("live");
    int newLeader = awaitNewLeader(led);
    await("broker 1 fenced and the new leader of " + TOPIC + "-" + led + " on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                "fenced".equals(browser.attribute("#brokers [data-broker='1']", "data-state"))
                    && String.valueOf(newLeader)
                        .equals(browser.attribute(row(led), "data-leader")));
    long newLeaderOnScreenMs = System.currentTimeMillis();
    assertThat(browser.texts("#events li[data-type='leader_changed']"))
        .anySatisfy(e -> assertThat(e).contains(TOPIC + "-" + led, "leader 1 → " + newLeader));
    report("SIGKILL of the serving broker -> page says it lost it", List.of(noticedMs - killedMs));
    report(
        "SIGKILL of the serving broker -> page live again on another broker",
        List.of(liveAgainMs - killedMs));
    browser.screenshot("dashboard-failover");

    produce(led, 3); // and the view keeps moving without a reload
    long hw = highWatermark(led);
    await("HW after failover on screen")
        .atMost(ON_SCREEN)
        .until(() -> String.valueOf(hw).equals(browser.attribute(row(led), "data-hw")));

    // The brokers still running kept the history: the page rewinds to before the kill, replays.
    RewindChecks rewind = new RewindChecks(browser, ON_SCREEN);
    double[] scrubMs =
        rewind.oldAndNewLeaderOnRewind(row(led), 1, newLeader, killedMs, newLeaderOnScreenMs);
    report(
        "rewind: drag the scrubber -> past state drawn",
        List.of(Math.round(scrubMs[0]), Math.round(scrubMs[1])));
    rewind.replayShowsTheOldLeaderThenReturnsLive(row(led), 1, newLeader);
  }

  /**
   * A partition broker 1 leads with a full ISR once leadership has settled after the freeze before
   * (its partitions moved away, then came back by preferred election), as the views brokers 2 and 3
   * record every 250 ms show it, for a second: the rewind goes back to 500 ms before the kill.
   */
  private int settledPartitionLedBy1() {
    int[] led = {-1};
    await("broker 1 leading a partition of " + TOPIC + " in every view, for a second")
        .during(Duration.ofSeconds(1))
        .atMost(ON_SCREEN)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              led[0] = -1;
              for (PartitionState p : client.partitions(TOPIC)) {
                int id = p.partition();
                if (led[0] < 0 && p.leader() == 1 && p.isr().size() == 3) {
                  led[0] = viewedLeader(2, id) == 1 && viewedLeader(3, id) == 1 ? id : -1;
                }
              }
              return led[0] >= 0;
            });
    return led[0];
  }

  /** The leader of {@code TOPIC-partition} in the cluster view broker {@code via} builds. */
  private int viewedLeader(int via, int partition) throws Exception {
    for (JsonNode p : client.getJson(cluster.get(via), "/dashboard/state").path("partitions")) {
      if (p.path("topic").asString().equals(TOPIC) && p.path("partition").asInt() == partition) {
        return p.path("leader").asInt();
      }
    }
    return -1;
  }

  @Test
  @Order(3)
  void theFormsCreateATopicProduceRunALoadBrowseAndDeleteIt() throws Exception {
    String topic = "from-the-page";
    fill(
        "#create-topic",
        Map.of(
            "name",
            topic,
            "partitions",
            "2",
            "replication_factor",
            "3",
            "min_insync_replicas",
            "2"));
    submit("#create-topic");
    await("topic " + topic + " on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                browser.attribute("#partitions tr[data-partition='" + topic + "-1']", "data-leader")
                    != null);
    assertThat(client.partitions(topic))
        .hasSize(2)
        .allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
    assertThat(browser.texts("#events li[data-type='topic_created']"))
        .anySatisfy(e -> assertThat(e).contains("topic " + topic + " created"));

    // Produce 6 records with one key: one partition gets them all (murmur2 of the key).
    await("the topic in the produce form")
        .atMost(ON_SCREEN)
        .until(() -> optionPresent("#produce", topic));
    fill(
        "#produce",
        Map.of(
            "topic",
            topic,
            "count",
            "6",
            "key",
            "same-key",
            "value",
            "hello from the page",
            "acks",
            "1"));
    submit("#produce");
    await("6 records on screen").atMost(ON_SCREEN).until(() -> totalHighWatermark(topic) == 6);
    await("the form says it produced with acks=1")
        .atMost(ON_SCREEN)
        .until(() -> browser.text("#action-status").contains("with acks=1"));
    int partition =
        client.partitions(topic).stream()
            .filter(p -> highWatermarkOf(topic, p.partition()) == 6)
            .findFirst()
            .orElseThrow()
            .partition();

    fill("#browse", Map.of("topic", topic, "partition", String.valueOf(partition), "offset", "0"));
    submit("#browse");
    await("the records in the browse table")
        .atMost(ON_SCREEN)
        .until(() -> browser.texts("#browse-results tr[data-offset]").size() == 6);
    assertThat(browser.texts("#browse-results tr[data-offset]"))
        .allSatisfy(row -> assertThat(row).contains("same-key", "hello from the page"));

    fill("#load", Map.of("topic", topic, "rate", "50"));
    submit("#load");
    await("the steady load acknowledged and its records on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                Integer.parseInt(browser.text("#load [data-count='acked']").trim()) >= 50
                    && totalHighWatermark(topic) >= 56);
    submit("#load"); // the same button stops it
    await("the load stopped")
        .atMost(ON_SCREEN)
        .until(() -> "false".equals(browser.attribute("#load", "data-running")));
    assertThat(browser.text("#load [data-count='errors']").trim()).isEqualTo("0");

    String delete = "#partitions button[data-action='delete-topic'][data-topic='" + topic + "']";
    clickOn(delete);
    clickOn(delete); // the second click confirms
    await("topic " + topic + " gone from the page")
        .atMost(ON_SCREEN)
        .until(
            () ->
                browser.attribute("#partitions tr[data-partition='" + topic + "-0']", "data-leader")
                    == null);
    assertThat(client.getJson(client.anyLive(), "/topics").toString()).doesNotContain(topic);
  }

  /**
   * Also the lag timer: while the paused follower is still in the ISR its time not caught up counts
   * up on screen against replica.lag.time.max.ms, and once past it the follower shows out of the
   * ISR.
   */
  @Test
  @Order(4)
  void theFaultButtonsPauseFetchingAndCrashABroker() throws Exception {
    int victim = 3;
    PartitionState followed =
        client.partitions(TOPIC).stream()
            .filter(p -> p.leader() != victim)
            .findFirst()
            .orElseThrow();
    String victimLine = row(followed.partition()) + " [data-replica='" + victim + "']";
    watchTheLagTimer(victimLine);
    browser.script(
        "document.querySelector(arguments[0]).value = '6';",
        "#brokers [data-broker='" + victim + "'] input[name='seconds']");
    click("pause-fetching", victim);
    // Produce as soon as the broker has paused (its answer), so that most of the lag time is left
    // to watch: the timer counts from the follower's last fetch, which was just before the pause.
    await("broker " + victim + " paused")
        .atMost(ON_SCREEN)
        .until(() -> browser.text("#action-status").contains("pauses replica fetching"));
    produce(followed.partition(), 5); // acks=all: answered once the follower has left the ISR
    await("the page says fetching is paused")
        .atMost(ON_SCREEN)
        .until(
            () ->
                "true"
                    .equals(
                        browser.attribute(
                            "#brokers [data-broker='" + victim + "']", "data-fetch-paused")));
    await("broker " + victim + " out of the ISR on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                browser
                        .attribute(row(followed.partition()), "data-osr")
                        .equals(String.valueOf(victim))
                    && "out".equals(browser.attribute(victimLine, "data-lag-state")));
    assertThat(browser.text(victimLine + " .lag-text")).startsWith("out of ISR");
    List<LagReading> counted = lagTimerReadings();
    assertThat(counted)
        .as("broker " + victim + "'s timer while it was still in the ISR")
        .hasSizeGreaterThanOrEqualTo(2);
    assertThat(counted.get(counted.size() - 1).ms())
        .as("it counted up: " + counted)
        .isGreaterThan(counted.get(0).ms());
    assertThat(counted)
        .allSatisfy(
            r ->
                assertThat(r.text())
                    .as("against the leader's replica.lag.time.max.ms")
                    .matches("\\d+\\.\\d s of " + REPLICA_LAG_TIME_MAX_MS / 1000 + " s"));
    await("broker " + victim + " back after the pause")
        .atMost(ON_SCREEN)
        .until(() -> "".equals(browser.attribute(row(followed.partition()), "data-osr")));

    click("crash", victim);
    await("broker " + victim + "'s process is gone")
        .atMost(ON_SCREEN)
        .until(() -> !cluster.get(victim).isAlive());
    assertThat(cluster.get(victim).exitValue()).as("halted like a crash").isEqualTo(137);
    await("broker " + victim + " fenced on screen")
        .atMost(ON_SCREEN)
        .until(
            () ->
                "fenced"
                    .equals(
                        browser.attribute(
                            "#brokers [data-broker='" + victim + "']", "data-state")));
    assertThat(browser.text("#action-status")).contains("crashes");
  }

  // ------------------------------------------------------------------------------------------------ helpers

  /** One reading of a follower's lag timer while it counted: the time shown and its text. */
  private record LagReading(long ms, String text) {}

  /**
   * Notes every redraw of the lag timer of the replica line {@code selector} while it counts (in
   * the ISR, not caught up), for {@link #lagTimerReadings}: the page redraws it every 100 ms.
   */
  private static void watchTheLagTimer(String selector) {
    browser.script(
        """
        window.__lagTimer = [];
        const note = () => {
          const line = document.querySelector(arguments[0]);
          if (line && line.dataset.lagState === 'counting') {
            window.__lagTimer.push([Number(line.dataset.outOfSyncMs), line.querySelector('.lag-text').textContent]);
          }
        };
        new MutationObserver(note).observe(document.getElementById('partitions'), { subtree: true,
            childList: true, attributes: true, attributeFilter: ['data-out-of-sync-ms', 'data-lag-state'] });""",
        selector);
  }

  private static List<LagReading> lagTimerReadings() {
    List<?> readings = (List<?>) browser.script("return window.__lagTimer;");
    return readings.stream()
        .map(r -> (List<?>) r)
        .map(r -> new LagReading(((Number) r.get(0)).longValue(), String.valueOf(r.get(1))))
        .toList();
  }

  private static String row(int partition) {
    return "#partitions tr[data-partition='" + TOPIC + "-" + partition + "']";
  }

  private static String pill(String attribute) {
    String value = browser.attribute("#connection", attribute);
    return value == null ? "" : value;
  }

  /**
   * Client authentication is on, as in the Docker image: sign in once with the admin key; the
   * cookie then serves every broker's page and socket, also after a failover.
   */
  private static void signIn() {
    browser.driver().get(cluster.get(1).url("/"));
    await("sent to the sign-in page")
        .atMost(ON_SCREEN)
        .until(() -> browser.driver().getCurrentUrl().endsWith("/login"));
    String token = TestCluster.ADMIN_TOKEN;
    browser.driver().findElement(By.id("key-id")).sendKeys(token.substring(0, token.indexOf('.')));
    browser.driver().findElement(By.id("secret")).sendKeys(token.substring(token.indexOf('.') + 1));
    browser.driver().findElement(By.id("sign-in")).click();
    await("signed in")
        .atMost(ON_SCREEN)
        .until(() -> !browser.driver().findElements(By.id("principal")).isEmpty());
    assertThat(browser.driver().findElement(By.id("principal")).getText()).isEqualTo("User:admin");
  }

  private static void awaitLiveOnAnotherBrokerThan(int lost) {
    String lostId = String.valueOf(lost);
    await("the page live on another broker than " + lost)
        .atMost(ON_SCREEN)
        .until(
            () ->
                "live".equals(pill("data-state"))
                    && !lostId.equals(pill("data-broker"))
                    && !pill("data-broker").isEmpty());
  }

  /** Notes (page clock) each change of the connection pill's state, for {@link #pillChange}. */
  private static void watchThePill() {
    browser.script(
        """
        window.__pill = [];
        const pill = document.getElementById('connection');
        new MutationObserver(() => window.__pill.push([pill.getAttribute('data-state'), Date.now()]))
            .observe(pill, { attributes: true, attributeFilter: ['data-state'] });""");
  }

  /** Sets the named fields of a form (inputs and selects) as a user would, with input events. */
  private static void fill(String form, Map<String, String> values) {
    values.forEach(
        (name, value) ->
            browser.script(
                """
        const field = document.querySelector(arguments[0]).elements[arguments[1]];
        field.value = arguments[2];
        field.dispatchEvent(new Event('input', { bubbles: true }));
        field.dispatchEvent(new Event('change', { bubbles: true }));""",
                form,
                name,
                value));
  }

  private static void submit(String form) {
    clickOn(form + " button[type='submit']");
  }

  /**
   * Scrolls the element to the middle of the window (clear of the sticky header), then clicks it.
   */
  private static void clickOn(String selector) {
    browser.script(
        "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' });", selector);
    browser.driver().findElement(By.cssSelector(selector)).click();
  }

  private static boolean optionPresent(String form, String value) {
    return Boolean.TRUE.equals(
        browser.script(
            "return [...document.querySelector(arguments[0]).elements['topic'].options].some(o => o.value === arguments[1]);",
            form,
            value));
  }

  private static long highWatermarkOf(String topic, int partition) {
    String hw =
        browser.attribute(
            "#partitions tr[data-partition='" + topic + "-" + partition + "']", "data-hw");
    return hw == null || hw.isEmpty() ? 0 : Long.parseLong(hw);
  }

  private static long totalHighWatermark(String topic) {
    return highWatermarkOf(topic, 0) + highWatermarkOf(topic, 1);
  }

  private static void click(String action, int brokerId) {
    clickOn("#brokers button[data-action='" + action + "'][data-broker='" + brokerId + "']");
  }

  private static Long seenAt(long hw) {
    Object at = browser.script("return window.__hwSeen[arguments[0]] ?? null;", String.valueOf(hw));
    return at == null ? null : ((Number) at).longValue();
  }

  /** When the pill first took {@code state} since the observer was installed. */
  private static long pillChange(String state) {
    Object at =
        browser.script(
            "const e = window.__pill.find(c => c[0] === arguments[0]); return e ? e[1] : null;",
            state);
    assertThat(at).as("the pill went " + state).isNotNull();
    return ((Number) at).longValue();
  }

  private static int awaitNewLeader(int partition) {
    int[] leader = {-1};
    await("a new leader for " + TOPIC + "-" + partition)
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              leader[0] = client.partition(TOPIC, partition).leader();
              return leader[0] >= 0 && leader[0] != 1;
            });
    return leader[0];
  }

  private static long highWatermark(int partition) throws IOException, InterruptedException {
    return client
        .getJson(client.anyLive(), "/topics/" + TOPIC + "/partitions/" + partition + "/offsets")
        .path("end_offset")
        .asLong();
  }

  private static void produce(int partition, int records) throws IOException, InterruptedException {
    String body =
        "{\"records\":["
            + Collections.nCopies(records, "{\"value\":1}").stream()
                .collect(Collectors.joining(","))
            + "]}";
    HttpResponse<String> response =
        client.send(
            "POST",
            client.anyLive(),
            "/topics/" + TOPIC + "/partitions/" + partition + "?acks=all",
            body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static String csv(List<Integer> ids) {
    return ids.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static String sortedCsv(String csv) {
    if (csv == null || csv.isEmpty()) {
      return "";
    }
    return List.of(csv.split(",")).stream()
        .map(Integer::parseInt)
        .sorted()
        .map(String::valueOf)
        .collect(Collectors.joining(","));
  }

  /**
   * Prints a measurement and appends it to target/dashboard-latency.txt (benchmarks, never
   * asserted).
   */
  private static void report(String what, List<Long> samplesMs) throws IOException {
    List<Long> sorted = samplesMs.stream().sorted().toList();
    String line =
        String.format(
            "%s: n=%d median=%d ms max=%d ms min=%d ms samples=%s%n",
            what,
            sorted.size(),
            sorted.get(sorted.size() / 2),
            sorted.get(sorted.size() - 1),
            sorted.get(0),
            samplesMs);
    System.out.print(line);
    Path file = Path.of("target", "dashboard-latency.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        line,
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
  }
}
