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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * "Follow one record" on three broker processes: traced from the page of a broker that does not
 * lead the partition (so the trace is passed on to the leader), and through the HTTP endpoint that
 * {@code ./tributary trace} calls; and the end of a record acknowledged with acks=1 that its leader
 * took with it, as the page shows it.
 */
class RecordTraceIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final String TOPIC = "traced";
  static final Duration ON_SCREEN = Duration.ofSeconds(20);

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
    ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, 1, Duration.ofSeconds(60));
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

  private static int notTheLeader() throws Exception {
    int leader = client.partition(TOPIC, 0).leader();
    return leader == 1 ? 2 : 1;
  }

  @Test
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
    assertThat(steps.subList(0, 2)).containsExactly("appended", "acknowledged");
    assertThat(steps).contains("replicated", "committed");

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
