package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
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
 * Skewing a real single broker's wall clock through {@code /dashboard/actions/brokers/1/clock}: the
 * broker's one injected clock moves, so what it stamps (a record's timestamp, the dashboard's
 * server time) moves with it; bad requests change nothing.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tributary.security.enabled=false", "tributary.dashboard.fault-actions=true"})
class ClockSkewControllerTest {
  private static final long HOUR_MS = 3_600_000;
  private static final String CLOCK = "/dashboard/actions/brokers/1/clock";

  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-clock-skew-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @BeforeEach
  void ready() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> send("GET", "/actuator/health/readiness", null).statusCode() == 200);
  }

  @AfterEach
  void clockRight() throws Exception {
    send("POST", CLOCK, "{\"skew_ms\":0}");
  }

  @Test
  void anUnskewedBrokerReadsTheSystemClock() throws Exception {
    HttpResponse<String> answer = send("GET", CLOCK, null);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode clock = json.readTree(answer.body());
    assertThat(clock.get("broker_id").asInt()).isEqualTo(1);
    assertThat(clock.get("skew_ms").asLong()).isZero();
    assertThat(clock.get("wall_clock_ms").asLong())
        .isCloseTo(System.currentTimeMillis(), within(60_000L));
  }

  @Test
  void aSkewMovesWhatTheBrokerStampsAndIsSetBackAbsolutely() throws Exception {
    HttpResponse<String> set = send("POST", CLOCK, "{\"skew_ms\":" + HOUR_MS + "}");

    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(json.readTree(set.body()).get("skew_ms").asLong()).isEqualTo(HOUR_MS);
    assertThat(json.readTree(set.body()).get("message").asString()).contains("jumped by 3600000");
    JsonNode read = json.readTree(send("GET", CLOCK, null).body());
    assertThat(read.get("skew_ms").asLong()).isEqualTo(HOUR_MS);
    assertThat(read.get("wall_clock_ms").asLong())
        .isCloseTo(System.currentTimeMillis() + HOUR_MS, within(60_000L));

    HttpResponse<String> produced = send("POST", "/topics/skewed", "{\"records\":[{\"value\":1}]}");
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    JsonNode record =
        json.readTree(send("GET", "/topics/skewed/partitions/0/records?offset=0", null).body())
            .get(0);
    assertThat(record.get("timestamp").asLong())
        .as("a record without a timestamp gets the broker's (skewed) time")
        .isCloseTo(System.currentTimeMillis() + HOUR_MS, within(60_000L));
    JsonNode state = json.readTree(send("GET", "/dashboard/state", null).body());
    assertThat(state.get("server_time_ms").asLong())
        .isCloseTo(System.currentTimeMillis() + HOUR_MS, within(60_000L));

    HttpResponse<String> back = send("POST", CLOCK, "{\"skew_ms\":-" + HOUR_MS + "}");
    assertThat(json.readTree(back.body()).get("message").asString()).contains("jumped by -7200000");
    assertThat(json.readTree(send("GET", CLOCK, null).body()).get("skew_ms").asLong())
        .isEqualTo(-HOUR_MS);
  }

  @Test
  void badSkewsAreRefusedAndChangeNothing() throws Exception {
    send("POST", CLOCK, "{\"skew_ms\":1000}");

    for (String body :
        List.of(
            "",
            "{from",
            "{}",
            "{\"skew_ms\":\"5m\"}",
            "{\"skew_ms\":1.5}",
            "{\"skew_ms\":86400001}",
            "{\"skew_ms\":-86400001}",
            "{\"skew_ms\":99999999999999999999}")) {
      HttpResponse<String> bad = send("POST", CLOCK, body);
      assertThat(bad.statusCode()).as(body + " -> " + bad.body()).isEqualTo(400);
      assertThat(json.readTree(bad.body()).get("error_code").asInt()).isEqualTo(40002);
    }
    assertThat(json.readTree(send("GET", CLOCK, null).body()).get("skew_ms").asLong())
        .isEqualTo(1000);
    assertThat(send("POST", CLOCK, "{\"skew_ms\":86400000}").statusCode())
        .as("one day is the limit, allowed")
        .isEqualTo(200);
  }

  @Test
  void anUnknownBrokerIsNotFoundAndAnotherSitesPageIsRefused() throws Exception {
    HttpResponse<String> unknown =
        send("POST", "/dashboard/actions/brokers/7/clock", "{\"skew_ms\":0}");
    HttpResponse<String> crossSite =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + CLOCK))
                .header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"skew_ms\":60000}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json.readTree(unknown.body()).get("error_code").asInt()).isEqualTo(40406);
    assertThat(crossSite.statusCode()).isEqualTo(403);
    assertThat(json.readTree(crossSite.body()).get("error_code").asInt()).isEqualTo(40302);
    assertThat(json.readTree(send("GET", CLOCK, null).body()).get("skew_ms").asLong()).isZero();
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
