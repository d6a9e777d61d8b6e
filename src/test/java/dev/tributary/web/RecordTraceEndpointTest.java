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
import java.util.ArrayList;
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
 * {@code POST /dashboard/actions/topics/{topic}/trace} on a real single broker (the leader of every
 * partition, no followers): a trace's answer, and the refusals, which append nothing.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "tributary.security.enabled=false")
class RecordTraceEndpointTest {
  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-trace-endpoint-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @BeforeEach
  void ready() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
  }

  @Test
  void aTracedRecordIsAppendedCommittedAndAcknowledgedByItsOnlyReplica() throws Exception {
    produceOne("traced");

    HttpResponse<String> answer = trace("traced", "{\"acks\":\"1\",\"partition\":0}", null);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode report = json.readTree(answer.body());
    assertThat(report.get("offset").asLong()).isEqualTo(1);
    assertThat(report.get("partition").asInt()).isZero();
    assertThat(report.get("leader_id").asInt()).isEqualTo(1);
    assertThat(report.get("acks").asString()).isEqualTo("1");
    assertThat(report.get("waited_for").asString()).isEqualTo("appended");
    assertThat(report.get("complete").asBoolean()).isTrue();
    List<String> steps = new ArrayList<>();
    double previousMs = 0;
    for (JsonNode step : report.get("steps")) {
      steps.add(step.get("step").asString());
      assertThat(step.get("at_ms").asDouble()).isGreaterThanOrEqualTo(previousMs);
      previousMs = step.get("at_ms").asDouble();
    }
    assertThat(steps).containsExactly("appended", "committed", "acknowledged");
    assertThat(report.get("steps").get(0).get("log_end_offset").asLong()).isEqualTo(2);
    assertThat(endOffset("traced")).isEqualTo(2);
  }

  @Test
  void refusalsAnswerTheApisErrorsAndAppendNothing() throws Exception {
    produceOne("refused");

    assertError(trace("nope", "{}", null), 404, 40401, "Topic 'nope' does not exist.");
    assertError(trace("refused", "{\"acks\":\"2\"}", null), 400, 40002, "acks must be");
    assertError(trace("refused", "{\"partition\":-1}", null), 400, 40002, "partition must be");
    assertError(trace("refused", "{\"colour\":\"red\"}", null), 400, 40002, "Unknown field");
    // What only a broker passing a trace on may send is no field of the public endpoint.
    assertError(
        trace("refused", "{\"principal\":\"User:admin\"}", null), 400, 40002, "Unknown field");
    assertError(trace("refused", "{\"topic\":\"other\"}", null), 400, 40002, "Unknown field");
    assertError(trace("refused", "{\"partition\":9}", null), 404, 40402, "Partition 9");
    assertError(
        trace("refused", "{}", "http://evil.example"), 403, 40302, "cluster's own dashboard");
    assertThat(endOffset("refused")).as("only the first produce").isEqualTo(1);
  }

  private void assertError(HttpResponse<String> answer, int status, int code, String message) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
    JsonNode body = json.readTree(answer.body());
    assertThat(body.get("error_code").asInt()).isEqualTo(code);
    assertThat(body.get("message").asString()).contains(message);
  }

  private HttpResponse<String> trace(String topic, String body, String origin) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:" + port + "/dashboard/actions/topics/" + topic + "/trace"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (origin != null) {
      request.header("Origin", origin);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private long endOffset(String topic) throws Exception {
    HttpResponse<String> offsets = get("/topics/" + topic + "/partitions/0/offsets");
    assertThat(offsets.statusCode()).as(offsets.body()).isEqualTo(200);
    return json.readTree(offsets.body()).get("end_offset").asLong();
  }

  private void produceOne(String topic) throws Exception {
    HttpResponse<String> produced =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/" + topic))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"records\":[{\"partition\":0,\"value\":1}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
