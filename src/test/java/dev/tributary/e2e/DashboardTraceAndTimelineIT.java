package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard telling what happened, in headless Chromium against one cluster of three broker
 * processes shared by every test here:
 *
 * <ul>
 *   <li>the timeline grouped by cause: a SIGKILLed broker's fencing is one entry whose disclosure
 *       lists the leadership and ISR changes it caused, the {@code __consumer_offsets} ones folded
 *       (counted, not listed) until "show internal topics" is ticked, which the page then remembers
 *       across a reload;
 *   <li>"follow one record": traced from the page of a broker that does not lead the partition (so
 *       the trace is passed on to the leader), and through the HTTP endpoint that {@code
 *       ./tributary trace} calls;
 *   <li>the end of a record acknowledged with acks=1 that its leader took with it, as the page
 *       shows it.
 * </ul>
 *
 * Each test starts with every broker running and {@value #TOPIC} fully in sync. Screenshots go to
 * {@code target/screenshots/}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardTraceAndTimelineIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final String TOPIC = "traced";
  static final String TIMELINE_TOPIC = "timeline";
  static final Duration ON_SCREEN = Duration.ofSeconds(20);
  static final Duration TIMELINE_ON_SCREEN = Duration.ofSeconds(30);

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;
  static HeadlessChromium browser;
  private final JsonMapper json = JsonMapper.builder().build();

  @BeforeAll
  static void start() {
    cluster =
        new TestCluster(data, e2e.logDir(), 3, List.of("--tributary.dashboard.fault-actions=true"));
    client = new ClusterClient(cluster);
    browser = HeadlessChromium.start(1400, 1000);
    cluster.startAll();
    client.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
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

  /** A broker an earlier test killed runs again, and the traced topic is fully in sync. */
  @BeforeEach
  void everyBrokerRuns() {
    cluster.healAll();
    ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, 1, Duration.ofSeconds(60));
  }

  @Test
  @Order(1) // before the others kill a broker: its fencing must be the only one on the timeline
  void aKilledBrokerIsOneEntryThatExpandsToWhatItsFencingCausedWithInternalTopicsFolded()
      throws Exception {
    client.createTopic(TIMELINE_TOPIC, 3, 3, Map.of());
    joinAGroup(); // the group coordinator creates __consumer_offsets
    ReplicationChecks.awaitFullIsr(cluster, client, TIMELINE_TOPIC, 3, Duration.ofSeconds(60));
    await("__consumer_offsets fully in sync")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              List<ClusterClient.PartitionState> offsets = client.partitions("__consumer_offsets");
              return !offsets.isEmpty()
                  && offsets.stream().allMatch(p -> p.isr().size() == p.replicas().size());
            });
    int controller = client.controllerId();
    int victim = controller == 3 ? 2 : 3; // its fencing is one decision of a controller that lives
    browser.driver().get(cluster.get(1).url("/"));
    await("the page is live")
        .atMost(TIMELINE_ON_SCREEN)
        .until(() -> "live".equals(browser.attribute("#connection", "data-state")));
    assertThat(browser.texts("#events li"))
        .as("internal topics are folded by default")
        .noneSatisfy(e -> assertThat(e).contains("__consumer_offsets"));

    cluster.get(victim).kill();

    String fenced = "#events > li[data-type='broker_fenced'][data-broker='" + victim + "']";
    await("broker " + victim + "'s fencing on the timeline, with what it caused")
        .atMost(TIMELINE_ON_SCREEN)
        .until(() -> browser.attribute(fenced, "data-consequences") != null);
    assertThat(browser.texts(fenced)).hasSize(1);
    assertThat(browser.text(fenced)).contains("broker " + victim + " fenced");
    // It was in every ISR: each partition of the topic lost it, in this one decision.
    assertThat(Integer.parseInt(browser.attribute(fenced, "data-consequences")))
        .isGreaterThanOrEqualTo(3);
    assertThat(Integer.parseInt(browser.attribute(fenced, "data-folded")))
        .as("__consumer_offsets changes counted, not listed")
        .isPositive();
    assertThat(browser.text(fenced + " .ecount")).contains("internal-topic changes folded");
    assertThat(browser.texts("#events li"))
        .noneSatisfy(e -> assertThat(e).contains("__consumer_offsets"));
    String shrink = fenced + " ol.consequences li[data-type='isr_shrink']";
    assertThat(visible(shrink)).as("folded until clicked").isFalse();

    click(fenced + " summary");
    await("the consequences shown").atMost(TIMELINE_ON_SCREEN).until(() -> visible(shrink));
    // Every user topic of the cluster lost it: this test's and the traced one.
    assertThat(browser.texts(shrink))
        .allSatisfy(
            e ->
                assertThat(e)
                    .contains("replica " + victim + " left")
                    .containsAnyOf(TIMELINE_TOPIC + "-", TOPIC + "-0"))
        .anySatisfy(e -> assertThat(e).contains(TIMELINE_TOPIC + "-"))
        .anySatisfy(e -> assertThat(e).contains(TOPIC + "-0"));
    browser.screenshot("dashboard-timeline-grouped");

    click("#show-internal-events");
    await("the internal-topic changes listed under the fencing")
        .atMost(TIMELINE_ON_SCREEN)
        .until(() -> "0".equals(browser.attribute(fenced, "data-folded")));
    assertThat(browser.texts(fenced + " ol.consequences li"))
        .anySatisfy(e -> assertThat(e).contains("__consumer_offsets-"));
    assertThat(browser.attribute(fenced + " details", "open"))
        .as("still expanded after the redraw")
        .isNotNull();
    browser.screenshot("dashboard-timeline-internal-shown");

    browser.driver().navigate().refresh();
    await("the page is live again")
        .atMost(TIMELINE_ON_SCREEN)
        .until(() -> "live".equals(browser.attribute("#connection", "data-state")));
    assertThat(browser.driver().findElement(By.id("show-internal-events")).isSelected())
        .as("remembered")
        .isTrue();
  }

  /**
   * Whether the first element matching {@code selector} is rendered, asked in one script: the list
   * is redrawn when events arrive, so an element found in one call may be gone by the next.
   */
  private static boolean visible(String selector) {
    return Boolean.TRUE.equals(
        browser.script(
            "const e = document.querySelector(arguments[0]); return !!e && e.checkVisibility();",
            selector));
  }

  /** Clicks the first element matching {@code selector} as a user would (one script). */
  private static void click(String selector) {
    browser.script("document.querySelector(arguments[0]).click();", selector);
  }

  /** A REST consumer joins group {@code timeline-readers} on broker 1 and polls once. */
  private static void joinAGroup() throws Exception {
    BrokerProcess broker = cluster.get(1);
    String base = "/consumers/timeline-readers/instances/c1";
    expect(
        client.send(
            "POST",
            broker,
            "/consumers/timeline-readers",
            "{\"name\":\"c1\",\"format\":\"json\",\"auto.offset.reset\":\"earliest\"}"));
    expect(
        client.send(
            "POST", broker, base + "/subscription", "{\"topics\":[\"" + TIMELINE_TOPIC + "\"]}"));
    await("the consumer in its group")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions() // __consumer_offsets unknown until the group's first join
        .until(
            () -> {
              HttpResponse<String> polled =
                  client.send("GET", broker, base + "/records?timeout=2000", null);
              return polled.statusCode() == 200
                  && client.partitions("__consumer_offsets").size() > 0;
            });
  }

  private static void expect(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 204);
  }

  private static int notTheLeader() throws Exception {
    int leader = client.partition(TOPIC, 0).leader();
    return leader == 1 ? 2 : 1;
  }

  @Test
  @Order(2)
  void aRecordTracedFromThePageShowsItsStepsInTheOrderTheyHappened() throws Exception {
    int leader = client.partition(TOPIC, 0).leader();
    browser.driver().get(cluster.get(notTheLeader()).url("/"));
    await("the topic in the trace form")
        .atMost(ON_SCREEN)
        .until(
            () ->
                Boolean.TRUE.equals(
                    browser.script(
                        "return !!document.querySelector(\"#trace select[name='topic'] option[value='"
                            + TOPIC
                            + "']\");")));
    browser.script(
        """
        const form = document.getElementById('trace');
        form.elements.topic.value = arguments[0];
        form.elements.acks.value = 'all';
        form.elements.partition.value = '0';
        form.querySelector("button[type='submit']").scrollIntoView({ block: 'center' });
        form.querySelector("button[type='submit']").click();""",
        TOPIC);

    await("the trace's steps on screen").atMost(ON_SCREEN).until(() -> stepsOnScreen().size() == 5);
    List<String> steps = stepsOnScreen();
    assertThat(steps)
        .containsExactly("appended", "replicated", "replicated", "committed", "acknowledged");
    List<String> times = timesOnScreen();
    double previous = 0;
    for (String time : times) {
      assertThat(time).as("every step happened, with its time").matches("\\+\\d+\\.\\d ms");
      double ms = Double.parseDouble(time.substring(1, time.length() - 3));
      assertThat(ms).isGreaterThanOrEqualTo(previous);
      previous = ms;
    }
    assertThat(browser.attribute("#trace-result li[data-step='appended']", "data-broker"))
        .isEqualTo(String.valueOf(leader));
    assertThat(browser.attribute("#trace-result li[data-waited='true']", "data-step"))
        .isEqualTo("committed");
  }

  @Test
  @Order(3)
  void theEndpointTheLauncherCallsTracesThroughAnyBroker() throws Exception {
    int leader = client.partition(TOPIC, 0).leader();
    HttpResponse<String> answer =
        client.send(
            "POST",
            cluster.get(notTheLeader()),
            "/dashboard/actions/topics/" + TOPIC + "/trace",
            "{\"acks\":\"1\"}");

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode report = json.readTree(answer.body());
    assertThat(report.get("leader_id").asInt()).isEqualTo(leader);
    assertThat(report.get("waited_for").asString()).isEqualTo("appended");
    List<String> steps = new ArrayList<>();
    report.get("steps").forEach(step -> steps.add(step.get("step").asString()));
    assertThat(steps.get(0)).isEqualTo("appended");
    assertThat(steps).contains("acknowledged", "replicated", "committed");
    // acks=1 waits for the append only; a follower may still fetch the record before the answer
    // goes out (the append wakes its waiting fetch first, as in Kafka), so no order is asserted
    // between the answer and the followers, only that the answer came after the append.
    double appended = -1;
    double acknowledged = -1;
    for (JsonNode step : report.get("steps")) {
      if (step.get("step").asString().equals("appended")) {
        appended = step.get("at_ms").asDouble();
      } else if (step.get("step").asString().equals("acknowledged")) {
        acknowledged = step.get("at_ms").asDouble();
      }
    }
    assertThat(acknowledged).isGreaterThanOrEqualTo(appended).isGreaterThanOrEqualTo(0);

    HttpResponse<String> unknown =
        client.send(
            "POST", cluster.get(notTheLeader()), "/dashboard/actions/topics/nope/trace", "{}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json.readTree(unknown.body()).get("error_code").asInt()).isEqualTo(40401);
  }

  /**
   * Both followers stop fetching, a record is acknowledged with acks=1 by the leader alone, the
   * leader is killed (a follower takes over without the record) and started again: it drops the
   * record, and the page says so on the timeline and on the partition's row.
   */
  @Test
  @Order(4)
  void anAcksOneRecordLostWithItsLeaderShowsAsATruncationOnThePage() throws Exception {
    String topic = "lost";
    client.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "1"));
    ReplicationChecks.awaitFullIsr(cluster, client, topic, 1, Duration.ofSeconds(60));
    int leader = client.partition(topic, 0).leader();
    List<Integer> followers = List.of(1, 2, 3).stream().filter(id -> id != leader).toList();
    try {
      followers.forEach(id -> pauseFetching(id, 60));
      HttpResponse<String> produced =
          client.send(
              "POST",
              cluster.get(leader),
              "/topics/" + topic + "/partitions/0?acks=1",
              "{\"records\":[{\"value\":\"lost\"}]}");
      assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);

      cluster.get(leader).kill();
      BrokerProcess survivor = cluster.get(followers.get(0));
      await("a follower leads " + topic + "-0")
          .atMost(Duration.ofSeconds(60))
          .until(() -> followers.contains(client.partition(survivor, topic, 0).leader()));
      cluster.restart(leader);

      browser.driver().get(survivor.url("/"));
      String row = "#partitions tr[data-partition='" + topic + "-0']";
      await("the truncation on the partition's row")
          .atMost(Duration.ofSeconds(60))
          .until(() -> String.valueOf(leader).equals(browser.attribute(row, "data-truncated")));
      assertThat(browser.attribute(row + " .badge[title*='dropped']", "title"))
          .contains("replica " + leader);
      assertThat(browser.texts("#events li[data-type='replica_truncated']"))
          .anySatisfy(e -> assertThat(e).contains(topic + "-0", "replica " + leader));
      browser.screenshot("dashboard-truncation");
    } finally {
      cluster.healAll();
      followers.forEach(id -> pauseFetching(id, 1)); // a pause of 1 s ends the long one
      ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, 1, Duration.ofSeconds(60));
    }
  }

  private static void pauseFetching(int brokerId, int seconds) {
    try {
      HttpResponse<String> paused =
          client.send(
              "POST",
              cluster.get(brokerId),
              "/dashboard/actions/brokers/" + brokerId + "/pause-fetching",
              "{\"seconds\":" + seconds + "}");
      assertThat(paused.statusCode()).as(paused.body()).isEqualTo(202);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<String> stepsOnScreen() {
    return strings(
        "return [...document.querySelectorAll('#trace-result li')].map(li => li.dataset.step);");
  }

  private static List<String> timesOnScreen() {
    return strings(
        "return [...document.querySelectorAll('#trace-result li .trace-time')].map(t => t.textContent);");
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(String script) {
    Object result = browser.script(script);
    return result == null ? List.of() : (List<String>) result;
  }
}
