package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * {@code /dashboard/ws} and the fault actions on a real single broker with fault actions on: a
 * snapshot then deltas, origins of other sites refused, and each action's answer (the crash and
 * shutdown buttons themselves end the process, so they are exercised by {@code
 * e2e.DashboardLiveIT}).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tributary.dashboard.fault-actions=true", "tributary.security.enabled=false"})
class DashboardSocketTest {
  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-socket-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @BeforeEach
  void ready() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
  }

  @Test
  void aSocketGetsASnapshotThenADeltaWhenAProduceMovesTheHighWatermark() throws Exception {
    post("/topics/socket", "application/json", "{\"records\":[{\"value\":1}]}");
    Messages messages = connect("http://127.0.0.1:" + port);

    JsonNode snapshot = messages.next();
    assertThat(snapshot.get("type").asString()).isEqualTo("snapshot");
    assertThat(snapshot.get("seq").asLong()).isEqualTo(1);
    assertThat(snapshot.get("state").get("fault_actions").asBoolean()).isTrue();
    assertThat(
            partition(snapshot.get("state"), "socket-0")
                .get("offsets")
                .get("high_watermark")
                .asLong())
        .isEqualTo(1);

    post("/topics/socket", "application/json", "{\"records\":[{\"value\":2},{\"value\":3}]}");
    JsonNode delta = messages.nextOfType("delta");
    while (partition(delta, "socket-0") == null
        || partition(delta, "socket-0").get("offsets").get("high_watermark").asLong() != 3) {
      delta = messages.nextOfType("delta");
    }
    assertThat(delta.get("seq").asLong()).isGreaterThan(1);
    assertThat(delta.get("header").get("broker_id").asInt()).isEqualTo(1);
    messages.socket.abort();
  }

  @Test
  void aPageOfAnotherSiteCannotOpenTheSocket() {
    assertThatThrownBy(() -> connect("http://evil.example"))
        .hasCauseInstanceOf(WebSocketHandshakeException.class)
        .satisfies(
            e ->
                assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
                    .isEqualTo(403));
  }

  @Test
  void corsIsAnsweredForTheClustersOwnPagesOnly() throws Exception {
    // The page opened as localhost, calling the broker registered as 127.0.0.1: another origin, but
    // this cluster's.
    HttpResponse<String> own = preflight("http://localhost:" + port);
    HttpResponse<String> evil = preflight("http://evil.example");

    assertThat(own.headers().firstValue("Access-Control-Allow-Origin"))
        .hasValue("http://localhost:" + port);
    assertThat(evil.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
  }

  @Test
  void pausingFetchingShowsInTheViewAndBadActionsAreRefusedWithAClearError() throws Exception {
    HttpResponse<String> paused =
        post("/dashboard/actions/brokers/1/pause-fetching", "application/json", "{\"seconds\":30}");
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(202);
    assertThat(json.readTree(paused.body()).get("message").asString())
        .contains("pauses replica fetching for 30 s");
    JsonNode state = connect("http://127.0.0.1:" + port).next().get("state");
    assertThat(state.get("brokers").get(0).get("fetch_paused_until_ms").asLong())
        .isGreaterThan(state.get("server_time_ms").asLong() + 20_000);

    assertError(
        post("/dashboard/actions/brokers/1/pause-fetching", "application/json", "{\"seconds\":0}"),
        400,
        40002);
    assertError(
        post("/dashboard/actions/brokers/1/pause-fetching", "application/json", "not json"),
        400,
        40002);
    assertError(post("/dashboard/actions/brokers/1/explode", "application/json", ""), 404, 40400);
    assertError(post("/dashboard/actions/brokers/9/crash", "application/json", ""), 404, 40406);
    assertError(post("/dashboard/actions/brokers/1/start", "application/json", ""), 409, 40909);
    // No launcher started this broker: it can neither decommission brokers nor add one.
    assertError(
        post("/dashboard/actions/brokers/1/decommission", "application/json", ""), 409, 40909);
    assertError(
        post("/dashboard/actions/cluster/add-broker", "application/json", "{\"rack\":\"a\"}"),
        409,
        40909);
    HttpResponse<String> crossSite =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/dashboard/actions/brokers/1/crash"))
                .header("Origin", "http://evil.example")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("x=1"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertError(crossSite, 403, 40302);
    assertThat(get("/actuator/health/readiness").statusCode()).as("still up").isEqualTo(200);
  }

  private void assertError(HttpResponse<String> response, int status, int code) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("error_code").asInt()).as(response.body()).isEqualTo(code);
    assertThat(body.get("message").asString()).isNotBlank();
  }

  private static JsonNode partition(JsonNode stateOrDelta, String key) {
    for (JsonNode p : stateOrDelta.get("partitions")) {
      if (p.get("key").asString().equals(key)) {
        return p;
      }
    }
    return null;
  }

  private Messages connect(String origin) throws Exception {
    Messages messages = new Messages();
    messages.socket =
        http.newWebSocketBuilder()
            .header("Origin", origin)
            .buildAsync(URI.create("ws://127.0.0.1:" + port + "/dashboard/ws"), messages)
            .get(10, TimeUnit.SECONDS);
    return messages;
  }

  private HttpResponse<String> preflight(String origin) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/x"))
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String contentType, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The messages of one socket, in order. */
  private final class Messages implements WebSocket.Listener {
    final LinkedBlockingQueue<JsonNode> queue = new LinkedBlockingQueue<>();
    private final StringBuilder partial = new StringBuilder();
    WebSocket socket;

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        queue.add(json.readTree(partial.toString()));
        partial.setLength(0);
      }
      webSocket.request(1);
      return null;
    }

    JsonNode next() throws InterruptedException {
      JsonNode message = queue.poll(10, TimeUnit.SECONDS);
      assertThat(message).as("a message within 10 s").isNotNull();
      return message;
    }

    JsonNode nextOfType(String type) throws InterruptedException {
      JsonNode message = next();
      while (!message.get("type").asString().equals(type)) {
        message = next();
      }
      return message;
    }
  }
}
