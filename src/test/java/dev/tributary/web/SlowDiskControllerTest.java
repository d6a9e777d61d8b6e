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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
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
 * Slowing a real single broker's disk through {@code /dashboard/actions/brokers/1/disk}: the answer
 * has the new delay and the old one, a produce then waits for the slow write, 0 heals; bad requests
 * change nothing. (The fault actions turned off, and the ADMIN check, are in {@code
 * auth.SlowDiskSecurityApiTest}.)
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tributary.security.enabled=false", "tributary.dashboard.fault-actions=true"})
class SlowDiskControllerTest {
  private static final String DISK = "/dashboard/actions/brokers/1/disk";

  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-slow-disk-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @BeforeEach
  void ready() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> send("GET", "/actuator/health/readiness", null).statusCode() == 200);
  }

  @AfterEach
  void diskHealthy() throws Exception {
    send("POST", DISK, "{\"delay_ms\":0}");
  }

  @Test
  void aHealthyBrokerReadsNoDelay() throws Exception {
    HttpResponse<String> answer = send("GET", DISK, null);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode disk = json.readTree(answer.body());
    assertThat(disk.get("broker_id").asInt()).isEqualTo(1);
    assertThat(disk.get("delay_ms").asLong()).isZero();
  }

  @Test
  void aDelaySlowsAProduceUntilZeroHealsTheDisk() throws Exception {
    assertThat(send("POST", "/topics/slow-disk", "{\"records\":[{\"value\":0}]}").statusCode())
        .as("the topic, created before the disk slows")
        .isEqualTo(200);

    HttpResponse<String> set = send("POST", DISK, "{\"delay_ms\":400}");
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    JsonNode answer = json.readTree(set.body());
    assertThat(answer.get("delay_ms").asLong()).isEqualTo(400);
    assertThat(answer.get("previous_delay_ms").asLong()).isZero();
    assertThat(answer.get("message").asString()).contains("400 ms more per log write");
    assertThat(json.readTree(send("GET", DISK, null).body()).get("delay_ms").asLong())
        .isEqualTo(400);

    long startNanos = System.nanoTime();
    HttpResponse<String> produced =
        send("POST", "/topics/slow-disk", "{\"records\":[{\"value\":1}]}");
    long tookMs = (System.nanoTime() - startNanos) / 1_000_000;
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    assertThat(tookMs).as("the produce waited for the slow write").isGreaterThanOrEqualTo(400);

    HttpResponse<String> healed = send("POST", DISK, "{\"delay_ms\":0}");
    assertThat(json.readTree(healed.body()).get("previous_delay_ms").asLong()).isEqualTo(400);
    assertThat(json.readTree(healed.body()).get("message").asString()).contains("healthy again");
    assertThat(json.readTree(send("GET", DISK, null).body()).get("delay_ms").asLong()).isZero();
  }

  @Test
  void badDelaysAreRefusedAndChangeNothing() throws Exception {
    send("POST", DISK, "{\"delay_ms\":5}");

    for (String body :
        List.of(
            "",
            "{from",
            "{}",
            "{\"delay_ms\":\"5s\"}",
            "{\"delay_ms\":1.5}",
            "{\"delay_ms\":-1}",
            "{\"delay_ms\":10001}",
            "{\"delay_ms\":99999999999999999999}",
            "{\"skew_ms\":100}")) {
      HttpResponse<String> bad = send("POST", DISK, body);
      assertThat(bad.statusCode()).as(body + " -> " + bad.body()).isEqualTo(400);
      assertThat(json.readTree(bad.body()).get("error_code").asInt()).isEqualTo(40002);
      assertThat(json.readTree(bad.body()).get("message").asString()).contains("delay_ms");
    }
    assertThat(json.readTree(send("GET", DISK, null).body()).get("delay_ms").asLong()).isEqualTo(5);
    assertThat(send("POST", DISK, "{\"delay_ms\":10000}").statusCode())
        .as("ten seconds is the limit, allowed")
        .isEqualTo(200);
  }

  @Test
  void anUnknownBrokerIsNotFoundAndAnotherSitesPageIsRefused() throws Exception {
    HttpResponse<String> unknown =
        send("POST", "/dashboard/actions/brokers/7/disk", "{\"delay_ms\":100}");
    HttpResponse<String> crossSite =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + DISK))
                .header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"delay_ms\":100}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json.readTree(unknown.body()).get("error_code").asInt()).isEqualTo(40406);
    assertThat(crossSite.statusCode()).isEqualTo(403);
    assertThat(json.readTree(crossSite.body()).get("error_code").asInt()).isEqualTo(40302);
    assertThat(json.readTree(send("GET", DISK, null).body()).get("delay_ms").asLong()).isZero();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (body != null) {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
