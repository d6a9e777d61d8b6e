package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard's "cut off" and "heal" buttons on a real single broker whose launcher is a stand-in
 * script: it records the arguments it was run with and answers as the launcher does (a line of what
 * it did; a failure when told to fail), so the test sees exactly which launcher command each button
 * runs and what the page is told.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.security.enabled=false",
      "tributary.dashboard.fault-actions=true",
      "tributary.dashboard.network-faults=true"
    })
class NetworkFaultsControllerTest {
  private static Path launcherDir;

  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void launcher(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-network-faults-test");
    launcherDir = dir;
    Path script = dir.resolve("tributary");
    Files.writeString(
        script,
        """
        #!/bin/sh
        dir=$(dirname "$0")
        echo "$*" >> "$dir/calls"
        if [ -f "$dir/fail" ]; then echo "nft: no such table"; echo "isolate failed: nft said no" >&2; exit 1; fi
        echo "preparing"
        echo "12:00:00.000 did: $*"
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
    Files.deleteIfExists(launcherDir.resolve("fail"));
  }

  @Test
  void thePageIsToldItMayCutAndHealLinks() throws Exception {
    JsonNode state = json.readTree(get("/dashboard/state").body());

    assertThat(state.get("network_faults").asBoolean()).isTrue();
    assertThat(state.get("fault_actions").asBoolean()).isTrue();
  }

  @Test
  void healRunsTheLaunchersHealAndAnswersWithWhatItSaid() throws Exception {
    HttpResponse<String> answer = post("/dashboard/actions/network/heal", "{}");

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
    assertThat(message(answer)).isEqualTo("12:00:00.000 did: --data " + launcherDir + " heal");
    assertThat(calls()).containsExactly("--data " + launcherDir + " heal");
    assertThat(faultEvents())
        .as("the timeline")
        .contains("every link restored / the dashboard's network action, through broker 1");
  }

  @Test
  void cuttingThisPagesOwnBrokerOffFromEveryoneAnswersFirstThenRunsTheLauncher() throws Exception {
    HttpResponse<String> answer =
        post("/dashboard/actions/brokers/1/isolate", "{\"from\":\"everyone\"}");

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
    assertThat(message(answer)).contains("this page's broker");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(calls()).containsExactly("--data " + launcherDir + " isolate 1"));
    assertThat(faultEvents())
        .as("the timeline, told before the cut")
        .contains(
            "broker 1 cut off from every broker and client"
                + " / the dashboard's network action, through broker 1");
  }

  @Test
  void aBrokerCannotBeCutOffFromItselfAsControllerNorFromPeersItDoesNotHave() throws Exception {
    HttpResponse<String> fromController =
        post("/dashboard/actions/brokers/1/isolate", "{\"from\":\"controller\"}");
    HttpResponse<String> fromBrokers =
        post("/dashboard/actions/brokers/1/isolate", "{\"from\":\"brokers\"}");

    assertThat(fromController.statusCode()).isEqualTo(409);
    assertThat(errorCode(fromController)).isEqualTo(40913);
    assertThat(message(fromController)).contains("is the active controller");
    assertThat(fromBrokers.statusCode()).isEqualTo(409);
    assertThat(errorCode(fromBrokers)).isEqualTo(40913);
    assertThat(calls()).as("the launcher was not run").isEmpty();
  }

  @Test
  void badRequestsAreRefusedAndRunNothing() throws Exception {
    HttpResponse<String> noBody = post("/dashboard/actions/brokers/1/isolate", "");
    HttpResponse<String> badFrom =
        post("/dashboard/actions/brokers/1/isolate", "{\"from\":\"mars\"}");
    HttpResponse<String> notJson = post("/dashboard/actions/brokers/1/isolate", "{from");
    HttpResponse<String> unknown =
        post("/dashboard/actions/brokers/7/isolate", "{\"from\":\"everyone\"}");

    for (HttpResponse<String> bad : List.of(noBody, badFrom, notJson)) {
      assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
      assertThat(errorCode(bad)).isEqualTo(40002);
    }
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(errorCode(unknown)).isEqualTo(40406);
    assertThat(calls()).as("the launcher was not run").isEmpty();
  }

  @Test
  void aFailingLauncherIsA500NamingWhatItSaidAndTheBrokerStaysUp() throws Exception {
    Files.writeString(launcherDir.resolve("fail"), "");
    List<String> before = faultEvents();

    HttpResponse<String> answer = post("/dashboard/actions/network/heal", "{}");

    assertThat(faultEvents()).as("no heal on the timeline: none happened").isEqualTo(before);
    assertThat(answer.statusCode()).isEqualTo(500);
    assertThat(errorCode(answer)).isEqualTo(50001);
    assertThat(message(answer)).isEqualTo("Could not heal the links: isolate failed: nft said no");
    assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
  }

  @Test
  void anotherSitesPageCannotCutLinks() throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/dashboard/actions/network/heal"))
                .header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(errorCode(answer)).isEqualTo(40302);
    assertThat(calls()).isEmpty();
  }

  /** The timeline's injected faults, as "text / reason", oldest first. */
  private List<String> faultEvents() throws Exception {
    List<String> faults = new java.util.ArrayList<>();
    for (JsonNode event : json.readTree(get("/dashboard/state").body()).path("events")) {
      if ("fault_injected".equals(event.path("type").asString())) {
        faults.add(event.path("text").asString() + " / " + event.path("reason").asString());
      }
    }
    return faults;
  }

  private List<String> calls() throws IOException {
    Path calls = launcherDir.resolve("calls");
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private String message(HttpResponse<String> response) {
    return json.readTree(response.body()).get("message").asString();
  }

  private int errorCode(HttpResponse<String> response) {
    return json.readTree(response.body()).get("error_code").asInt();
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
