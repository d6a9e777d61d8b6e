package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The dashboard in a real headless Chromium against one in-process broker: the unit tests of its
 * pure JavaScript (snapshot and delta merging, reconnect targets, throughput history) pass in the
 * browser, and the live page shows a partition and follows its high watermark over the WebSocket.
 * The multi-broker story (failover, ISR changes, the page reconnecting) is {@code
 * e2e.DashboardLiveIT}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DashboardBrowserTest {
  private static HeadlessChromium browser;

  @LocalServerPort int port;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-test");
    registry.add("tributary.data-dir", dir::toString);
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
    browser.driver().get("http://127.0.0.1:" + port + "/js-tests/state.test.html");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> browser.attribute("#results", "data-failed") != null);

    String results = browser.text("#results");
    assertThat(browser.attribute("#results", "data-failed")).as(results).isEqualTo("0");
    assertThat(Integer.parseInt(browser.attribute("#results", "data-passed")))
        .as(results)
        .isGreaterThan(20);
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

  private int status(String path) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private void produce(String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/browser"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }
}
