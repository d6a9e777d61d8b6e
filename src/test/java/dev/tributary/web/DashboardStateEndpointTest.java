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
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code /dashboard/state} on a real single broker: both scopes, and a bad scope. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "tributary.security.enabled=false")
class DashboardStateEndpointTest {
  @LocalServerPort int port;
  @Autowired JsonMapper json;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("tributary-dashboard-state-test");
    registry.add("tributary.data-dir", dir::toString);
  }

  @Test
  void clusterAndLocalScopesDescribeTheSameLeaderAndUnknownScopesAreRefused() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    HttpResponse<String> produced =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/state"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"records\":[{\"value\":1},{\"value\":2}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);

    JsonNode cluster = json.readTree(get("/dashboard/state").body());
    assertThat(cluster.get("scope").asString()).isEqualTo("cluster");
    assertThat(cluster.get("brokers")).hasSize(1);
    JsonNode self = cluster.get("brokers").get(0);
    assertThat(self.get("broker_id").asInt()).isEqualTo(cluster.get("broker_id").asInt());
    assertThat(self.get("controller").asBoolean()).isTrue();
    assertThat(self.get("reachable").asBoolean()).isTrue();
    JsonNode partition = cluster.get("partitions").get(0);
    assertThat(partition.get("state").asString()).isEqualTo("online");
    assertThat(partition.get("offsets").get("high_watermark").asLong()).isEqualTo(2);
    assertThat(partition.get("osr")).isEmpty();
    assertThat(self.get("replica_lag_time_max_ms").asLong())
        .as("the broker's replica.lag.time.max.ms (Kafka's default)")
        .isEqualTo(30_000);
    assertThat(partition.get("offsets").get("replicas").get(0).get("out_of_sync_ms").asLong())
        .as("the leader is caught up with itself")
        .isZero();

    JsonNode local = json.readTree(get("/dashboard/state?scope=local").body());
    assertThat(local.get("scope").asString()).isEqualTo("local");
    assertThat(local.get("partitions").get(0).get("leader").asBoolean()).isTrue();
    JsonNode localOffsets = local.get("partitions").get(0).get("offsets");
    for (String field :
        List.of("log_start_offset", "high_watermark", "log_end_offset", "status_line")) {
      assertThat(localOffsets.get(field)).as(field).isEqualTo(partition.get("offsets").get(field));
    }
    // The cluster view leaves out the leader's raw fetch clock (it changes on every fetch); the
    // local one has it.
    assertThat(localOffsets.get("replicas").get(0).has("last_fetch_ms")).isTrue();
    assertThat(local.get("replica_lag_time_max_ms").asLong()).isEqualTo(30_000);
    assertThat(partition.get("offsets").get("replicas").get(0).has("last_fetch_ms")).isFalse();

    HttpResponse<String> bad = get("/dashboard/state?scope=everything");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("scope must be");
  }

  @Test
  void theLiveViewsPollOfAnUnchangedBrokerIsANotModified() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    produceOne("etag");
    String path = "/dashboard/state?scope=local&leading_only=true";
    HttpResponse<String> first = get(path);
    String etag = first.headers().firstValue("ETag").orElseThrow();

    HttpResponse<String> again = getIfNoneMatch(path, etag);
    produceOne("etag");
    HttpResponse<String> changed = getIfNoneMatch(path, etag);

    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(changed.statusCode()).isEqualTo(200);
    assertThat(changed.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(etag);
    JsonNode replica =
        json.readTree(changed.body())
            .get("partitions")
            .get(0)
            .get("offsets")
            .get("replicas")
            .get(0);
    assertThat(replica.get("last_fetch_ms").isNull())
        .as("the raw fetch clock is left out")
        .isTrue();
  }

  private void produceOne(String topic) throws Exception {
    HttpResponse<String> produced =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/topics/" + topic))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"records\":[{\"value\":1}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
  }

  private HttpResponse<String> getIfNoneMatch(String path, String etag) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("If-None-Match", etag)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void faultActionsAreOffUnlessTurnedOn() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/dashboard/actions/brokers/1/crash"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(json.readTree(refused.body()).get("error_code").asInt()).isEqualTo(40301);
    assertThat(json.readTree(refused.body()).get("message").asString())
        .contains("tributary.dashboard.fault-actions");
    assertThat(get("/actuator/health/readiness").statusCode())
        .as("the broker did not crash")
        .isEqualTo(200);
    for (String path :
        List.of(
            "/dashboard/actions/brokers/1/decommission", "/dashboard/actions/cluster/add-broker")) {
      HttpResponse<String> off =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(off.statusCode()).as(path).isEqualTo(403);
      assertThat(json.readTree(off.body()).get("error_code").asInt()).as(path).isEqualTo(40301);
    }
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
