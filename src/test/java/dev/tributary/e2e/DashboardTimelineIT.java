package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The dashboard's timeline grouped by cause, in headless Chromium against three real broker
 * processes: a SIGKILLed broker's fencing is one entry whose disclosure lists the leadership and
 * ISR changes it caused, the {@code __consumer_offsets} ones folded (counted, not listed) until
 * "show internal topics" is ticked, which the page then remembers across a reload. Screenshots go
 * to {@code target/screenshots/}.
 */
class DashboardTimelineIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final Duration ON_SCREEN = Duration.ofSeconds(30);
  static final String TOPIC = "timeline";

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() {
    cluster = new TestCluster(data, e2e.logDir(), 3);
    client = new ClusterClient(cluster);
    browser = HeadlessChromium.start(1400, 1000);
    cluster.startAll();
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

  @Test
  void aKilledBrokerIsOneEntryThatExpandsToWhatItsFencingCausedWithInternalTopicsFolded()
      throws Exception {
    client.createTopic(TOPIC, 3, 3, Map.of());
    joinAGroup(); // the group coordinator creates __consumer_offsets
    ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, 3, Duration.ofSeconds(60));
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
        .atMost(ON_SCREEN)
        .until(() -> "live".equals(browser.attribute("#connection", "data-state")));
    assertThat(browser.texts("#events li"))
        .as("internal topics are folded by default")
        .noneSatisfy(e -> assertThat(e).contains("__consumer_offsets"));

    cluster.get(victim).kill();

    String fenced = "#events > li[data-type='broker_fenced'][data-broker='" + victim + "']";
    await("broker " + victim + "'s fencing on the timeline, with what it caused")
        .atMost(ON_SCREEN)
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
    await("the consequences shown").atMost(ON_SCREEN).until(() -> visible(shrink));
    assertThat(browser.texts(shrink))
        .allSatisfy(e -> assertThat(e).contains(TOPIC + "-", "replica " + victim + " left"));
    browser.screenshot("dashboard-timeline-grouped");

    click("#show-internal-events");
    await("the internal-topic changes listed under the fencing")
        .atMost(ON_SCREEN)
        .until(() -> "0".equals(browser.attribute(fenced, "data-folded")));
    assertThat(browser.texts(fenced + " ol.consequences li"))
        .anySatisfy(e -> assertThat(e).contains("__consumer_offsets-"));
    assertThat(browser.attribute(fenced + " details", "open"))
        .as("still expanded after the redraw")
        .isNotNull();
    browser.screenshot("dashboard-timeline-internal-shown");

    browser.driver().navigate().refresh();
    await("the page is live again")
        .atMost(ON_SCREEN)
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
    expect(client.send("POST", broker, base + "/subscription", "{\"topics\":[\"" + TOPIC + "\"]}"));
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
}
