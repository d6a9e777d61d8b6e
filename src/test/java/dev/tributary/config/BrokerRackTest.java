package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.kafka.KafkaListener;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code tributary.broker-rack} (Kafka's {@code broker.rack}) on a real single broker: it reaches
 * the registration, the metadata image and so what clients see, Confluent's {@code rack} field of
 * the REST broker resources and the rack Kafka clients read.
 *
 * <p>A context of its own, in a package whose other Spring test has its own too (see {@code
 * KafkaSaslSslApiTest} on why a class with another context must not run between two classes sharing
 * one).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.security.enabled=false",
      "tributary.broker-rack=eu-west-1a",
      "logging.level.dev.tributary=WARN"
    })
class BrokerRackTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;
  @Autowired KafkaListener kafka;
  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    String dir = Files.createTempDirectory("tributary-broker-rack-test").toString();
    registry.add("tributary.data-dir", () -> dir);
  }

  @Test
  void theConfiguredRackIsTheBrokersRackForRestAndKafkaClients() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> get("/actuator/health/readiness").statusCode() == 200);
    String clusterId = json(get("/v3/clusters")).get("data").get(0).get("cluster_id").stringValue();

    JsonNode broker = json(get("/v3/clusters/" + clusterId + "/brokers/1"));
    assertThat(broker.get("rack").stringValue()).isEqualTo("eu-west-1a");
    JsonNode list = json(get("/v3/clusters/" + clusterId + "/brokers"));
    assertThat(list.get("data").get(0).get("rack").stringValue()).isEqualTo("eu-west-1a");

    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + kafka.port(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                20_000))) {
      assertThat(admin.describeCluster().nodes().get())
          .extracting(Node::id, Node::rack)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "eu-west-1a"));
    }
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
