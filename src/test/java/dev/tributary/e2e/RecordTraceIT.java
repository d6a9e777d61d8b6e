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
 * {@code ./tributary trace} calls.
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
    cluster = new TestCluster(data, e2e.logDir(), 3);
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
