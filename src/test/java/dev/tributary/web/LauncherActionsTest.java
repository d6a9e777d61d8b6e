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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard's launcher-driven buttons, "Add a broker" and "Decommission", on a real single
 * broker whose launcher is a stand-in script: it records the arguments it was run with, prints a
 * line, and keeps running while a {@code hold} file exists, so the test sees exactly which launcher
 * command each button runs, where its output goes, and that a second click while the first run
 * still goes starts nothing. No broker is added or stopped. Also in a real browser: the buttons
 * show, Decommission asks first, and the page shows the broker's answer.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tributary.security.enabled=false", "tributary.dashboard.fault-actions=true"})
class LauncherActionsTest {
  private static Path launcherDir;

  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void launcher(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-launcher-actions-test");
    launcherDir = dir;
    Path script = dir.resolve("tributary");
    Files.writeString(
        script,
        """
        #!/bin/sh
        dir=$(dirname "$0")
        echo "$*" >> "$dir/calls"
        echo "launcher ran: $*"
        while [ -f "$dir/hold" ]; do sleep 0.05; done
        """);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    registry.add("tributary.data-dir", () -> dir.resolve("broker-1").toString());
    registry.add("tributary.dashboard.launcher", script::toString);
    registry.add("tributary.dashboard.launcher-data-dir", dir::toString);
  }

  @BeforeEach
  void ready() throws IOException {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    Files.deleteIfExists(launcherDir.resolve("calls"));
  }

  /**
   * Lets every stand-in launcher end, so that the next click is not a second one. (Only they: the
   * browser's chromedriver is a child of this JVM too.)
   */
  @AfterEach
  void launchersDone() throws IOException {
    Files.deleteIfExists(launcherDir.resolve("hold"));
    String script = launcherDir.resolve("tributary").toString();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ProcessHandle.current()
                    .children()
                    .noneMatch(p -> p.info().commandLine().orElse("").contains(script)));
  }

  @Test
  void addBrokerRunsTheLaunchersAddBrokerWithTheRackAndAnswers202() throws Exception {
    HttpResponse<String> answer = post("/dashboard/actions/cluster/add-broker", "{\"rack\":\"b\"}");

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
    Path log = launcherDir.resolve("dashboard-add-broker.log");
    assertThat(message(answer))
        .startsWith("Adding a broker on rack b: it joins the cluster")
        .endsWith("(launcher output: " + log + ")");
    awaitRan("add-broker --rack b", log);
  }

  @Test
  void addBrokerWithoutABodyOrWithoutARackGivesTheLauncherNoRack() throws Exception {
    HttpResponse<String> noBody = post("/dashboard/actions/cluster/add-broker", "");
    assertThat(noBody.statusCode()).as(noBody.body()).isEqualTo(202);
    assertThat(message(noBody)).startsWith("Adding a broker: it joins the cluster within seconds");
    launchersDone();
    HttpResponse<String> empty = post("/dashboard/actions/cluster/add-broker", "{}");
    assertThat(empty.statusCode()).as(empty.body()).isEqualTo(202);

    String expected = "--data " + launcherDir + " add-broker";
    await().atMost(Duration.ofSeconds(10)).until(() -> calls().equals(List.of(expected, expected)));
  }

  @Test
  void aSecondAddBrokerWhileTheFirstStillRunsIsRefusedAndStartsNothing() throws Exception {
    Files.writeString(launcherDir.resolve("hold"), "");
    HttpResponse<String> first = post("/dashboard/actions/cluster/add-broker", "{}");
    await().atMost(Duration.ofSeconds(10)).until(() -> calls().size() == 1);

    HttpResponse<String> second = post("/dashboard/actions/cluster/add-broker", "{\"rack\":\"c\"}");

    assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
    assertThat(second.statusCode()).as(second.body()).isEqualTo(409);
    assertThat(errorCode(second)).isEqualTo(40915);
    assertThat(message(second))
        .startsWith("A broker is being added from the dashboard already")
        .endsWith("wait for it to finish");
    assertThat(calls()).as("only the first ran").hasSize(1);

    launchersDone();
    HttpResponse<String> afterwards = post("/dashboard/actions/cluster/add-broker", "{}");
    assertThat(afterwards.statusCode()).as("once it is done, again").isEqualTo(202);
  }

  @Test
  void decommissionRunsTheLaunchersDecommissionOfThatBroker() throws Exception {
    HttpResponse<String> answer = post("/dashboard/actions/brokers/1/decommission", "{}");

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
    Path log = launcherDir.resolve("dashboard-decommission-1.log");
    assertThat(message(answer))
        .isEqualTo(
            "Decommissioning broker 1: its replicas move to the other brokers, then it stops and"
                + " leaves the cluster (launcher output: "
                + log
                + ")");
    awaitRan("decommission 1", log);
    assertThat(get("/actuator/health/readiness").statusCode())
        .as("the broker itself does nothing: the launcher stops it")
        .isEqualTo(200);
  }

  @Test
  void badRacksUnknownBrokersAndOtherSitesAreRefusedAndRunNothing() throws Exception {
    for (String body :
        List.of(
            "{\"rack\":\"\"}",
            "{\"rack\":\"a b\"}",
            "{\"rack\":\"" + "r".repeat(65) + "\"}",
            "{\"rack\":\"a;rm\"}",
            "{\"rack\":5}",
            "{\"zone\":\"a\"}",
            "[\"a\"]",
            "not json")) {
      HttpResponse<String> bad = post("/dashboard/actions/cluster/add-broker", body);
      assertThat(bad.statusCode()).as(body + " → " + bad.body()).isEqualTo(400);
      assertThat(errorCode(bad)).isEqualTo(40002);
      assertThat(message(bad)).contains("{\"rack\": NAME}");
    }
    HttpResponse<String> unknown = post("/dashboard/actions/brokers/9/decommission", "{}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(errorCode(unknown)).isEqualTo(40406);
    for (String path :
        List.of(
            "/dashboard/actions/cluster/add-broker", "/dashboard/actions/brokers/1/decommission")) {
      HttpResponse<String> crossSite =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .header("Origin", "http://evil.example")
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString("x=1"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(crossSite.statusCode()).as(path).isEqualTo(403);
      assertThat(errorCode(crossSite)).isEqualTo(40302);
    }
    assertThat(calls()).as("the launcher was not run").isEmpty();
  }

  /**
   * In the page: "Add a broker" sits with the cluster-wide forms and says what the broker answered;
   * a broker card's Decommission first asks (and runs nothing), then on a second click runs the
   * launcher and shows the answer.
   */
  @Test
  void inABrowserAddABrokerAndDecommissionAskTheBrokerAndShowItsAnswer() throws Exception {
    HeadlessChromium browser = HeadlessChromium.start(1300, 900);
    try {
      browser.driver().get("http://127.0.0.1:" + port + "/");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> browser.driver().findElement(By.id("add-broker")).isDisplayed());

      browser.driver().findElement(By.cssSelector("#add-broker input[name='rack']")).sendKeys("b");
      clickOn(browser, "#add-broker button[type='submit']");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> browser.text("#add-broker .form-result").contains("Adding a broker on rack b"));
      assertThat(browser.attribute("#action-status", "data-kind")).isEqualTo("ok");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> calls().equals(List.of("--data " + launcherDir + " add-broker --rack b")));
      launchersDone();
      Files.deleteIfExists(launcherDir.resolve("calls"));

      String button = "#brokers [data-broker='1'] button[data-action='decommission']";
      assertThat(browser.driver().findElement(By.cssSelector(button)).isDisplayed()).isTrue();
      clickOn(browser, button);
      assertThat(browser.attribute(button, "data-confirm")).isEqualTo("pending");
      assertThat(browser.text(button)).isEqualTo("Really decommission?");
      assertThat(browser.text("#action-status"))
          .contains("decommission broker 1: its replicas move to the other brokers");
      assertThat(calls()).as("the first click only asks").isEmpty();

      clickOn(browser, button);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> browser.text("#action-status").contains("Decommissioning broker 1"));
      assertThat(browser.text(button)).isEqualTo("Decommission");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> calls().equals(List.of("--data " + launcherDir + " decommission 1")));
    } finally {
      browser.close();
    }
  }

  /**
   * The launcher ran once, with {@code args} after {@code --data DIR}; its output is in {@code
   * log}.
   */
  private void awaitRan(String args, Path log) {
    String expected = "--data " + launcherDir + " " + args;
    await().atMost(Duration.ofSeconds(10)).until(() -> calls().equals(List.of(expected)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> Files.exists(log) && Files.readString(log).contains("launcher ran: " + expected));
  }

  /**
   * Scrolls the element to the middle of the window (clear of the sticky header), then clicks it.
   */
  private static void clickOn(HeadlessChromium browser, String selector) {
    browser.script(
        "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' });", selector);
    browser.driver().findElement(By.cssSelector(selector)).click();
  }

  private List<String> calls() throws IOException {
    Path calls = launcherDir.resolve("calls");
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private String message(HttpResponse<String> response) {
    return json.readTree(response.body()).get("message").asString();
  }

  private int errorCode(HttpResponse<String> response) {
    JsonNode body = json.readTree(response.body());
    return body.get("error_code").asInt();
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
