package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import dev.tributary.kafka.KafkaListener;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The dashboard in a real headless Chromium against one in-process broker: the unit tests of its
 * pure JavaScript (snapshot and delta merging, reconnect targets, throughput history) pass in the
 * browser, the live page shows a partition and follows its high watermark over the WebSocket, and a
 * consumer group made through the REST consumer API shows with its member, committed offset and
 * lag, its coordinator's events on the timeline, and a real Kafka producer shows under its broker
 * in the Kafka clients panel while it is connected. The multi-broker story (failover, ISR changes,
 * the page reconnecting) is {@code e2e.DashboardLiveIT}. The Move replicas and Balance forms ask
 * this broker and show its answers.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "tributary.security.enabled=false")
class DashboardBrowserTest {
  private static HeadlessChromium browser;

  @LocalServerPort int port;
  @Autowired KafkaListener kafka;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-test");
    registry.add("tributary.data-dir", dir::toString);
    // The first join would otherwise wait group.initial.rebalance.delay.ms (3 s) for more members.
    registry.add("tributary.group.initial-rebalance-delay-ms", () -> "0");
  }

  @BeforeAll
  static void startBrowser() {
    browser = HeadlessChromium.start(1300, 900);
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void theJavaScriptUnitTestsPassInTheBrowser() {
    assertThat(passedOnPage("state")).isGreaterThan(20);
  }

  @Test
  void theRewindScrubbersUnitTestsPassInTheBrowser() {
    assertThat(passedOnPage("rewind")).isEqualTo(8);
  }

  @Test
  void theTracePanelsUnitTestsPassInTheBrowser() {
    assertThat(passedOnPage("trace")).isEqualTo(3);
  }

  @Test
  void theTimelineAndMemberUnitTestsPassInTheBrowser() {
    assertThat(passedOnPage("timeline")).isGreaterThanOrEqualTo(10);
  }

  @Test
  void theCatalogueUnitTestsPassInTheBrowserInBothLanguages() {
    assertThat(passedOnPage("languages")).isEqualTo(9);
    assertThat(passedOnPage("languages&lang=zh")).isEqualTo(9);
  }

  @Test
  void theMoveAndBalanceUnitTestsPassInTheBrowserInBothLanguages() {
    assertThat(passedOnPage("balance")).isEqualTo(14);
    assertThat(passedOnPage("balance&lang=zh")).isEqualTo(14);
  }

  @Test
  void theDemoBannerUnitTestsPassInTheBrowserInBothLanguages() {
    assertThat(passedOnPage("demo")).isEqualTo(9);
    assertThat(passedOnPage("demo&lang=zh")).isEqualTo(9);
  }

  /**
   * The page in Chinese through the switch, its glossary and hovers too, and in English again
   * through the switch; the choice outlives a reload.
   */
  @Test
  void thePageSpeaksChineseAfterTheSwitchAndEnglishAgainAfterSwitchingBack() {
    browser.driver().manage().deleteAllCookies();
    try {
      browser.driver().get("http://127.0.0.1:" + port + "/");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> browser.text("#glossary-heading").equals("Glossary"));
      browser.driver().findElement(By.id("lang-zh")).click();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "zh".equals(browser.script("return document.documentElement.lang")));
      assertThat(browser.driver().getCurrentUrl()).endsWith("/?lang=zh");
      assertThat(browser.text("#glossary-heading")).isEqualTo("词汇表");
      assertThat(browser.text("#partitions-heading")).startsWith("分区");
      assertThat(browser.attribute("#lang-zh", "aria-current")).isEqualTo("true");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> browser.text("#term-isr dt").contains("同步副本集合"));
      assertThat(browser.text("#term-isr dt")).startsWith("ISR");
      assertThat(browser.text("#term-hw dd")).contains("已提交");
      assertThat(browser.attribute(".legend abbr[data-term='hw']", "title"))
          .startsWith("HW（高水位，high watermark）：");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "实时 · broker 1".equals(browser.text("#connection")));
      browser.screenshot("dashboard-zh");

      browser.driver().get("http://127.0.0.1:" + port + "/");
      assertThat(browser.text("#glossary-heading")).as("remembered").isEqualTo("词汇表");

      browser.driver().findElement(By.id("lang-en")).click();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "en".equals(browser.script("return document.documentElement.lang")));
      assertThat(browser.text("#glossary-heading")).isEqualTo("Glossary");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> browser.text("#term-isr dt").equals("ISR (in-sync replicas)"));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> "live · broker 1".equals(browser.text("#connection")));
    } finally {
      browser.driver().manage().deleteAllCookies();
    }
  }

  /**
   * Runs one JavaScript unit-test suite in the page, asserts none failed, returns how many passed.
   */
  private int passedOnPage(String suite) {
    browser.driver().get("http://127.0.0.1:" + port + "/js-tests/run.html?suite=" + suite);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.attribute("#results", "data-failed") != null);
    String results = browser.text("#results");
    assertThat(browser.attribute("#results", "data-failed")).as(results).isEqualTo("0");
    return Integer.parseInt(browser.attribute("#results", "data-passed"));
  }

  @Test
  void theLivePageShowsAPartitionAndFollowsItsHighWatermark() throws Exception {
    await().atMost(Duration.ofSeconds(60)).until(() -> status("/actuator/health/readiness") == 200);
    produce("{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");

    browser.driver().get("http://127.0.0.1:" + port + "/");
    String row = "tr[data-partition='browser-0']";
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "3".equals(browser.attribute(row, "data-hw")));
    assertThat(browser.attribute(row, "data-leader")).isEqualTo("1");
    assertThat(browser.attribute(row, "data-isr")).isEqualTo("1");
    assertThat(browser.attribute(row + " [data-replica='1']", "data-leo")).isEqualTo("3");
    assertThat(browser.attribute("#connection", "data-state")).isEqualTo("live");
    assertThat(browser.text("#connection")).isEqualTo("live · broker 1");
    // Authentication is off: no one is signed in, so the page offers no sign-out.
    assertThat(browser.driver().findElements(By.id("sign-out"))).isEmpty();
    assertThat(browser.attribute("#brokers [data-broker='1']", "data-controller"))
        .isEqualTo("true");
    assertThat(browser.texts("#events li"))
        .anySatisfy(e -> assertThat(e).contains("topic browser created"));

    produce("{\"records\":[{\"value\":4},{\"value\":5}]}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "5".equals(browser.attribute(row, "data-hw")));
    assertThat(browser.attribute(row, "data-leo")).isEqualTo("5");
    browser.screenshot("dashboard-single-broker");
  }

  /**
   * A partition row's move button fills the Move replicas form with the partition and its replicas;
   * a move to a broker that does not exist shows the broker's refusal; the one-broker cluster's
   * balance plan says it is balanced, so Balance now stays off; the broker's card has its load
   * bars.
   */
  @Test
  void theMoveAndBalanceFormsAskTheBrokerAndShowItsAnswers() throws Exception {
    await().atMost(Duration.ofSeconds(60)).until(() -> status("/actuator/health/readiness") == 200);
    produce("moving", "{\"records\":[{\"value\":1}]}");

    browser.driver().get("http://127.0.0.1:" + port + "/");
    String row = "tr[data-partition='moving-0']";
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "1".equals(browser.attribute(row, "data-leader")));
    String replicasBar = "#brokers [data-broker='1'] .load-bar[data-bar='replicas']";
    assertThat(Integer.parseInt(browser.attribute(replicasBar, "data-count")))
        .isGreaterThanOrEqualTo(1);
    assertThat(
            browser.script(
                "return document.querySelector(arguments[0]).style.width",
                replicasBar + " .load-fill"))
        .as("the only broker is the most loaded")
        .isEqualTo("100%");
    for (String kind : List.of("records-in", "bytes-in")) {
      String trafficBar = "#brokers [data-broker='1'] .load-bar[data-bar='" + kind + "']";
      assertThat(Double.parseDouble(browser.attribute(trafficBar, "data-count")))
          .as(kind + " per second, whatever the moment")
          .isGreaterThanOrEqualTo(0);
      assertThat(
              browser.script(
                  "return document.querySelector(arguments[0]).style.width",
                  trafficBar + " .load-fill"))
          .as("the only broker is the busiest, or nobody is busy")
          .isIn("0%", "100%");
    }
    assertThat(browser.texts("#brokers [data-broker='1'] .load-label"))
        .containsExactly("replicas", "leaders", "records in/s", "bytes in/s");

    browser
        .driver()
        .findElement(By.cssSelector(row + " button[data-action='move-replicas']"))
        .click();
    String form = "#move-replicas";
    assertThat(
            browser.script(
                "return document.querySelector('#move-replicas select[name=topic]').value"))
        .isEqualTo("moving");
    assertThat(
            browser.script(
                "return document.querySelector('#move-replicas input[name=replicas]').value"))
        .isEqualTo("1");
    assertThat(browser.attribute(form, "data-moving")).isEqualTo("false");
    browser.script("document.querySelector('#move-replicas input[name=replicas]').value = '7'");
    browser.driver().findElement(By.cssSelector(form + " button[type='submit']")).click();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "error".equals(browser.attribute(form + " .form-result", "data-kind")));
    assertThat(browser.text(form + " .form-result")).contains("[7]").contains("not registered");

    browser.driver().findElement(By.cssSelector("#balance button[type='submit']")).click();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "balanced".equals(browser.attribute("#balance", "data-state")));
    assertThat(browser.attribute("#balance [data-balance='execute']", "disabled")).isNotNull();
    assertThat(browser.texts("#balance-result .balance-lines p"))
        .containsExactly("Balanced: nothing to move.");
    assertThat(browser.attribute("#balance-result tr[data-broker='1']", "data-broker"))
        .isEqualTo("1");
    browser.script("document.getElementById('balance').scrollIntoView()");
    browser.screenshot("dashboard-balance");
  }

  @Test
  void theLivePageShowsAConsumerGroupItsMemberAndItsCommittedOffsetAndLag() throws Exception {
    await().atMost(Duration.ofSeconds(60)).until(() -> status("/actuator/health/readiness") == 200);
    produce("grouped", "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");
    String base = "/consumers/readers/instances/c1";
    control(
        "/consumers/readers",
        "{\"name\":\"c1\",\"format\":\"json\",\"auto.offset.reset\":\"earliest\"}");
    control(base + "/subscription", "{\"topics\":[\"grouped\"]}");
    await() // the first poll joins the group; records come once it has its assignment
        .atMost(Duration.ofSeconds(30))
        .until(() -> records(base).contains("\"offset\":2"));
    control(base + "/offsets", "");

    browser.driver().get("http://127.0.0.1:" + port + "/");
    String group = "#groups section.group[data-group='readers']";
    String partition = group + " tr[data-group-partition='grouped-0']";
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "3".equals(browser.attribute(partition, "data-committed")));
    assertThat(browser.attribute(partition, "data-lag")).isEqualTo("0");
    assertThat(browser.attribute(group, "data-state")).isEqualTo("Stable");
    assertThat(browser.attribute(group, "data-coordinator")).isEqualTo("1");
    assertThat(browser.text(group + " [data-field='state']")).isEqualTo("Stable");
    String member = group + " tr[data-client-id='c1']";
    assertThat(browser.attribute(member, "data-host")).isEqualTo("broker-1");
    assertThat(browser.attribute(member, "data-via")).isEqualTo("rest");
    assertThat(browser.attribute(member, "data-partitions")).isEqualTo("grouped-0");
    String memberId = browser.attribute(member, "data-member");
    assertThat(memberId).startsWith("c1-");
    // Shown by client id and the end of its id; the whole id is the tooltip.
    String suffix = memberId.substring(memberId.length() - 4);
    assertThat(browser.text(member + " td.member-id")).startsWith("c1 (…" + suffix + ")");
    assertThat(browser.attribute(member + " td.member-id", "title")).contains(memberId);
    assertThat(browser.text(partition + " td[title]")).isEqualTo("c1 (…" + suffix + ")");
    assertThat(browser.texts("#events li[data-kind='group']"))
        .anySatisfy(e -> assertThat(e).contains("readers").contains("generation"))
        .noneSatisfy(e -> assertThat(e).contains(memberId));
    assertThat(browser.attribute("#events li[data-kind='group'] .member", "title"))
        .isEqualTo(memberId);
    assertThat(
            browser.attribute(
                "#partitions .topic[data-topic='__consumer_offsets']", "data-expanded"))
        .as("the internal topic starts collapsed")
        .isEqualTo("false");
    assertThat(
            browser.script(
                "const names = [...document.querySelectorAll('#partitions .topic')]"
                    + ".map(t => t.dataset.topic); return names[names.length - 1];"))
        .as("and comes after the user's topics")
        .isEqualTo("__consumer_offsets");

    produce("grouped", "{\"records\":[{\"value\":4},{\"value\":5}]}");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "2".equals(browser.attribute(partition, "data-lag")));
    assertThat(browser.attribute(partition, "data-committed")).isEqualTo("3");
    browser.script("document.getElementById('groups-panel').scrollIntoView()");
    browser.screenshot("dashboard-consumer-group");
  }

  @Test
  void theKafkaClientsPanelShowsAConnectedProducerWithItsClientIdUntilItLeaves() throws Exception {
    await().atMost(Duration.ofSeconds(60)).until(() -> status("/actuator/health/readiness") == 200);
    produce("kafka-clients", "{\"records\":[{\"value\":1}]}"); // the topic, made over REST

    browser.driver().get("http://127.0.0.1:" + port + "/");
    String bootstrap = "127.0.0.1:" + kafka.port();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> ("kcat -b " + bootstrap + " -L").equals(browser.text("#clients-example")));
    assertThat(browser.script("return document.getElementById('clients-empty').hidden"))
        .as("no Kafka client yet: the panel says how to connect one")
        .isEqualTo(false);
    assertThat(browser.text("#clients [data-broker='1'] [data-field='address']"))
        .isEqualTo("bootstrap server " + bootstrap);

    Properties config = new Properties();
    config.put("bootstrap.servers", bootstrap);
    config.put("client.id", "dashboard-producer");
    config.put("acks", "all");
    String row =
        "#clients section.client-broker[data-broker='1'] tr[data-client-id='dashboard-producer']";
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>("kafka-clients", "k", "v1")).get();

      String requests = "#clients tr[data-client-id='dashboard-producer'] td.requests";
      await() // its connection to the partition's leader has sent the Produce
          .atMost(Duration.ofSeconds(20))
          .until(() -> browser.texts(requests).stream().anyMatch(r -> r.contains("Produce 1")));
      assertThat(browser.attribute(row, "data-software")).startsWith("apache-kafka-java ");
      assertThat(browser.text(row + " .client-id")).isEqualTo("dashboard-producer");
      assertThat(browser.script("return document.getElementById('clients-empty').hidden"))
          .isEqualTo(true);
      assertThat(
              Integer.parseInt(
                  browser.attribute(
                      "#clients section.client-broker[data-broker='1']", "data-count")))
          .as("the bootstrap connection and the leader's (the same broker here)")
          .isGreaterThanOrEqualTo(1);

      for (int i = 2; i <= 4; i++) {
        producer.send(new ProducerRecord<>("kafka-clients", "k", "v" + i)).get();
      }
      await() // the live view follows the request counts
          .atMost(Duration.ofSeconds(10))
          .until(() -> browser.texts(requests).stream().anyMatch(r -> r.contains("Produce 4")));
      browser.script("document.getElementById('clients-panel').scrollIntoView()");
      browser.screenshot("dashboard-kafka-clients");
    }
    await() // closed: its connections leave the panel
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.attribute(row, "data-connection") == null);
    assertThat(browser.script("return document.getElementById('clients-empty').hidden"))
        .isEqualTo(false);
  }

  private int status(String path) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private void produce(String body) throws IOException, InterruptedException {
    produce("browser", body);
  }

  /** A REST consumer control call (create, subscribe, commit); any 2xx will do. */
  private void control(String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/vnd.kafka.v2+json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isBetween(200, 299);
  }

  /** One poll of the consumer's records (a long poll of up to 5 s), as JSON text. */
  private String records(String instancePath) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + instancePath + "/records?timeout=5000"))
                .header("Accept", "application/vnd.kafka.json.v2+json")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  private void produce(String topic, String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/" + topic))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }
}
