package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What operators and stray clients see: unknown endpoints and methods, health, metrics, the
 * dashboard.
 */
class OperationsApiTest extends ApiTestSupport {

  @Test
  void anUnknownEndpointIsAJson404() {
    assertError(get("/nothing/here"), 404, 40400, "No such endpoint: /nothing/here");
    assertError(post("/nothing/here", JSON, "{}"), 404, 40400, "No such endpoint");
  }

  @Test
  void aMethodTheEndpointDoesNotTakeIsAJson405() {
    assertError(delete("/topics"), 405, 40501, "Method DELETE is not allowed here");
    assertError(
        put("/v3/clusters/" + clusterId(), "{}"), 405, 40501, "Method PUT is not allowed here");
    assertError(
        post("/topics/" + newTopicName() + "/partitions/0/records", EMBEDDED_JSON, "{}"),
        405,
        40501,
        "Method POST");
  }

  @Test
  void livenessAndReadinessAreUp() {
    JsonNode liveness = expectOk(get("/actuator/health/liveness"));
    JsonNode readiness = expectOk(get("/actuator/health/readiness"));

    assertThat(liveness.get("status").stringValue()).isEqualTo("UP");
    assertThat(readiness.get("status").stringValue()).isEqualTo("UP");
  }

  @Test
  void prometheusCountsProducedRecordsPerTopic() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");
    produceJson(topic, "{\"records\":[{\"value\":4},{\"value\":5}]}");

    String scrape = prometheus();

    assertThat(sample(scrape, "tributary_produce_records_total", "topic=\"" + topic + "\""))
        .hasValue(5.0);
    assertThat(sample(scrape, "tributary_produce_bytes_total", "topic=\"" + topic + "\""))
        .isPresent();
  }

  @Test
  void prometheusCountsFetchedRecordsPerTopic() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1},{\"value\":2}]}");
    readJson(topic, 0, 0);
    readJson(topic, 0, 1);

    assertThat(sample(prometheus(), "tributary_fetch_records_total", "topic=\"" + topic + "\""))
        .hasValue(3.0);
  }

  @Test
  void prometheusShowsEachPartitionsLogSizeAndHighWatermarkAfterTheNextRefresh() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":\"sized\"},{\"value\":\"twice\"}]}");
    String partitionZero = "partition=\"0\",topic=\"" + topic + "\"";

    await("log gauges refreshed (every 200 ms in these tests)")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> sample(prometheus(), "tributary_log_size_bytes", partitionZero).isPresent());

    String scrape = prometheus();
    assertThat(sample(scrape, "tributary_log_size_bytes", partitionZero).getAsDouble())
        .isGreaterThan(60);
    assertThat(sample(scrape, "tributary_partition_high_watermark", partitionZero)).hasValue(2.0);
    assertThat(sample(scrape, "tributary_log_end_offset", partitionZero)).hasValue(2.0);
  }

  @Test
  void theDashboardIsAnHtmlPageNamedTributary() {
    Response r = get("/", "Accept", "text/html");

    assertThat(r.status()).as("status; body: %s", r.body()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/html");
    assertThat(r.body()).contains("<h1>Tributary</h1>").contains("Tributary · broker 1");
    // Authentication is off here: nobody is signed in, so there is nothing to sign out of.
    assertThat(r.body()).doesNotContain("sign-out").doesNotContain("/logout");
    assertThat(r.body()).contains("<link rel=\"icon\" href=\"/favicon.svg\"");
  }

  @Test
  void theFaviconIsServedAsAnImage() {
    Response ico = get("/favicon.ico");
    assertThat(ico.status()).isEqualTo(200);
    assertThat(ico.contentType()).startsWith("image/");
    Response svg = get("/favicon.svg");
    assertThat(svg.status()).isEqualTo(200);
    assertThat(svg.contentType()).startsWith("image/svg+xml");
  }

  @Test
  void theDashboardStateListsEachPartitionWithItsOffsets() {
    String topic = newTopicName();
    createTopic(topic, 2);
    produceJson(
        topic, "{\"records\":[{\"partition\":1,\"value\":1},{\"partition\":1,\"value\":2}]}");

    JsonNode state = expectOk(get("/dashboard/state"));

    assertThat(state.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(state.get("broker_id").intValue()).isEqualTo(1);
    assertThat(state.get("brokers"))
        .extracting(b -> b.get("broker_id").intValue())
        .containsExactly(1);
    assertThat(state.get("brokers").get(0).get("state").stringValue()).isEqualTo("alive");
    JsonNode p0 = row(state, topic, 0);
    JsonNode p1 = row(state, topic, 1);
    assertThat(p0.get("offsets").get("high_watermark").longValue()).isZero();
    assertThat(p0.get("offsets").get("log_end_offset").longValue()).isZero();
    assertThat(p1.get("offsets").get("log_start_offset").longValue()).isZero();
    assertThat(p1.get("offsets").get("high_watermark").longValue()).isEqualTo(2);
    assertThat(p1.get("offsets").get("log_end_offset").longValue()).isEqualTo(2);
    assertThat(p1.get("leader").intValue()).isEqualTo(1);
    assertThat(p1.get("leader_epoch").intValue()).isZero();
    assertThat(p1.get("replicas")).isEqualTo(mapper.readTree("[1]"));
    assertThat(p1.get("isr")).isEqualTo(mapper.readTree("[1]"));
    assertThat(p1.get("offsets").get("segments").intValue()).isEqualTo(1);
    assertThat(p1.get("offsets").get("size_bytes").longValue()).isGreaterThan(60);
    assertThat(p1.get("offsets").get("status_line").stringValue())
        .contains(topic + "-1")
        .contains("hw=2")
        .contains("leo=2");
  }

  private String prometheus() {
    Response r = get("/actuator/prometheus");
    assertThat(r.status()).isEqualTo(200);
    return r.body();
  }

  /**
   * The value of the first sample of {@code metric} whose labels contain {@code labels}, if any.
   */
  private static OptionalDouble sample(String scrape, String metric, String labels) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(metric + "{") && line.contains(labels)) {
        return OptionalDouble.of(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return OptionalDouble.empty();
  }

  private static JsonNode row(JsonNode state, String topic, int partition) {
    for (JsonNode row : state.get("partitions")) {
      if (topic.equals(row.get("topic").stringValue())
          && row.get("partition").intValue() == partition) {
        return row;
      }
    }
    throw new AssertionError("no dashboard row for " + topic + "-" + partition);
  }

  @Test
  void internalControllerEndpointsRefuseCallsWithoutTheClusterSecret() {
    assertError(
        post(
            "/internal/v1/controller/heartbeat",
            JSON,
            "{\"broker_id\":1,\"broker_epoch\":0,\"metadata_offset\":0}"),
        401,
        40101,
        "cluster secret");
    assertError(
        post("/internal/v1/controller/topics", JSON, "{\"name\":\"sneaky\",\"partitions\":1}"),
        401,
        40101,
        "cluster secret");
    assertError(
        post(
            "/internal/v1/controller/allocate-producer-ids",
            JSON,
            "{\"broker_id\":1,\"broker_epoch\":0}"),
        401,
        40101,
        "cluster secret");
    assertError(get("/topics/sneaky/partitions/0/records"), 404, 40401, "does not exist");
  }
}
