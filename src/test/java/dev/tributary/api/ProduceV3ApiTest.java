package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v3 produce, {@code POST /v3/clusters/{id}/topics/{t}/records}: one record or several
 * streamed in one body, each answered in order with its partition, offset and timestamp, or its own
 * error.
 */
class ProduceV3ApiTest extends ApiTestSupport {

  private Response produceV3(String topic, String body) {
    return post(v3("/topics/" + topic + "/records"), JSON, body);
  }

  private static List<JsonNode> results(Response r) {
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.body().split("\n")) {
      if (!line.isBlank()) {
        out.add(mapper.readTree(line));
      }
    }
    return out;
  }

  @Test
  void oneRecordOfEachTypeIsAnsweredWithWhereItWentAndReadsBackAsSent() {
    String topic = newTopicName();
    createTopic(
        topic,
        1,
        KEEP_FOREVER); // a record from 2021 would otherwise be due for time-based retention
    Response json =
        produceV3(
            topic,
            "{\"key\":{\"type\":\"STRING\",\"data\":\"alice\"},"
                + "\"value\":{\"type\":\"JSON\",\"data\":{\"item\":\"book\",\"qty\":1}},"
                + "\"headers\":[{\"name\":\"trace\",\"value\":\""
                + Base64.getEncoder().encodeToString("abc".getBytes(StandardCharsets.UTF_8))
                + "\"}],\"timestamp\":\"2021-02-05T19:14:42Z\"}");
    Response binary =
        produceV3(
            topic,
            "{\"value\":{\"type\":\"BINARY\",\"data\":\""
                + Base64.getEncoder().encodeToString(new byte[] {1, 2, 3})
                + "\"}}");

    JsonNode first = expectOk(json);
    assertThat(first.get("error_code").intValue()).isEqualTo(200);
    assertThat(first.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(first.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(first.get("partition_id").intValue()).isZero();
    assertThat(first.get("offset").longValue()).isZero();
    assertThat(first.get("timestamp").stringValue()).isEqualTo("2021-02-05T19:14:42Z");
    assertThat(first.get("key").get("type").stringValue()).isEqualTo("STRING");
    assertThat(first.get("key").get("size").intValue()).isEqualTo(5);
    assertThat(first.get("value").get("size").intValue())
        .isEqualTo("{\"item\":\"book\",\"qty\":1}".length());
    JsonNode second = expectOk(binary);
    assertThat(second.get("offset").longValue()).isEqualTo(1);
    assertThat(second.get("key").isNull()).isTrue();

    JsonNode stored = readBinary(topic, 0, 0);
    assertThat(decode(stored.get(0).get("key"))).isEqualTo("alice");
    assertThat(decode(stored.get(0).get("value"))).isEqualTo("{\"item\":\"book\",\"qty\":1}");
    assertThat(stored.get(0).get("timestamp").longValue()).isEqualTo(1612552482000L);
    assertThat(Base64.getDecoder().decode(stored.get(1).get("value").stringValue()))
        .containsExactly(1, 2, 3);
  }

  @Test
  void recordsStreamedInOneBodyAreAnsweredOneByOneInOrderAndABadOneFailsAlone() {
    String topic = newTopicName();
    createTopic(topic, 3);
    String body =
        "{\"partition_id\":2,\"value\":{\"data\":\"a\"}}\n"
            + "{\"partition_id\":7,\"value\":{\"data\":\"no such partition\"}}\n"
            + "{\"partition_id\":2,\"value\":{\"type\":\"BINARY\",\"data\":\"not base64!\"}}\n"
            + "{\"partition_id\":2,\"value\":{\"type\":\"STRING\",\"data\":\"b\"}}"
            + "{\"partition_id\":1,\"value\":{\"data\":[1,2]}}";

    Response r = produceV3(topic, body);

    assertThat(r.status()).isEqualTo(200);
    List<JsonNode> results = results(r);
    assertThat(results).hasSize(5);
    assertThat(results.get(0).get("error_code").intValue()).isEqualTo(200);
    assertThat(results.get(0).get("partition_id").intValue()).isEqualTo(2);
    assertThat(results.get(0).get("offset").longValue()).isZero();
    assertThat(results.get(1).get("error_code").intValue()).isEqualTo(40402);
    assertThat(results.get(2).get("error_code").intValue()).isEqualTo(40002);
    assertThat(results.get(2).get("message").stringValue()).contains("base64");
    assertThat(results.get(3).get("offset").longValue()).isEqualTo(1);
    assertThat(results.get(4).get("partition_id").intValue()).isEqualTo(1);
    assertThat(endOffset(topic, 2)).isEqualTo(2);
    assertThat(endOffset(topic, 1)).isEqualTo(1);
    assertThat(endOffset(topic, 0)).isZero();
  }

  @Test
  void keyedRecordsLandWhereKafkasPartitionerPutsTheirBytes() {
    String topic = newTopicName();
    createTopic(topic, 6);
    JsonNode viaV3 =
        expectOk(produceV3(topic, "{\"key\":{\"type\":\"STRING\",\"data\":\"user-1\"}}"));
    JsonNode viaV2 =
        produceBinary(
            topic,
            "{\"records\":[{\"key\":\""
                + Base64.getEncoder().encodeToString("user-1".getBytes(StandardCharsets.UTF_8))
                + "\"}]}");
    assertThat(viaV3.get("partition_id").intValue())
        .isEqualTo(viaV2.get("offsets").get(0).get("partition").intValue());
  }

  @Test
  void aSingleBadRecordIsAnsweredWithItsErrorStatusAndNothingIsAppended() {
    String topic = newTopicName();
    createTopic(topic, 1);
    assertError(
        produceV3(topic, "{\"value\":{\"type\":\"AVRO\",\"data\":{}}}"),
        400,
        40002,
        "schema registry");
    assertError(produceV3(topic, "{\"valu\":1}"), 400, 40002, "unknown field");
    assertError(produceV3(topic, "{not json"), 400, 40001, "Malformed JSON");
    assertError(
        produceV3(topic, "{\"partition_id\":3,\"value\":{\"data\":1}}"), 404, 40402, "Partition 3");
    assertError(
        post(v3("/topics/" + topic + "/records").replace(clusterId(), "other"), JSON, "{}"),
        404,
        40404,
        "not found");
    assertThat(endOffset(topic, 0)).isZero();
  }

  private static String decode(JsonNode base64) {
    return new String(Base64.getDecoder().decode(base64.stringValue()), StandardCharsets.UTF_8);
  }
}
