package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Where produced records land: the path partition, the record's partition, Kafka's murmur2
 * partitioner for keyed records (checked against kafka-clients' {@code Utils}), per-request
 * rotation for keyless ones; and auto-creation.
 */
class ProducePartitioningApiTest extends ApiTestSupport {

  // ---- partitioning
  // ------------------------------------------------------------------------------------------

  @Test
  void thePathPartitionOverridesEveryRecordsPartition() {
    String topic = newTopicName();
    createTopic(topic, 3);

    JsonNode response =
        expectOk(
            post(
                "/topics/" + topic + "/partitions/2",
                EMBEDDED_JSON,
                "{\"records\":[{\"value\":1},{\"key\":\"k\",\"value\":2},{\"partition\":0,\"value\":3}]}"));

    assertThat(placements(response)).containsExactly("2:0", "2:1", "2:2");
    assertThat(endOffset(topic, 0)).isZero();
    assertThat(readJson(topic, 2, 0))
        .extracting(r -> r.get("value").intValue())
        .containsExactly(1, 2, 3);
  }

  @Test
  void offsetsAreContiguousPerPartitionAndReportedInRequestOrder() {
    String topic = newTopicName();
    createTopic(topic, 3);
    String body =
        "{\"records\":[{\"partition\":0,\"value\":\"a\"},{\"partition\":1,\"value\":\"b\"},{\"partition\":0,\"value\":\"c\"},"
            + "{\"partition\":2,\"value\":\"d\"},{\"partition\":1,\"value\":\"e\"},{\"partition\":0,\"value\":\"f\"}]}";

    List<String> first = placements(produceJson(topic, body));
    List<String> second = placements(produceJson(topic, body));

    assertThat(first).containsExactly("0:0", "1:0", "0:1", "2:0", "1:1", "0:2");
    assertThat(second).containsExactly("0:3", "1:2", "0:4", "2:1", "1:3", "0:5");
    assertThat(readJson(topic, 0, 0))
        .extracting(r -> r.get("value").stringValue())
        .containsExactly("a", "c", "f", "a", "c", "f");
    assertThat(readJson(topic, 1, 0))
        .extracting(r -> r.get("value").stringValue())
        .containsExactly("b", "e", "b", "e");
  }

  @Test
  void aJsonKeyGoesToThePartitionKafkasPartitionerPicksForItsJsonText() {
    String topic = newTopicName();
    int partitions = 7;
    createTopic(topic, partitions);
    List<String> keyTexts = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      keyTexts.add(
          switch (i % 3) {
            case 0 -> "\"key-" + i + "\"";
            case 1 -> String.valueOf(i * 7919);
            default -> "{\"id\":" + i + ",\"tag\":\"x\"}";
          });
    }
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < keyTexts.size(); i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"key\":")
          .append(keyTexts.get(i))
          .append(",\"value\":")
          .append(i)
          .append("}");
    }
    body.append("]}");

    List<Integer> landed = partitionsOf(produceJson(topic, body.toString()));

    for (int i = 0; i < keyTexts.size(); i++) {
      int expected = kafkaPartition(keyTexts.get(i).getBytes(StandardCharsets.UTF_8), partitions);
      assertThat(landed.get(i)).as("partition of key %s", keyTexts.get(i)).isEqualTo(expected);
    }
    Set<Integer> used = new HashSet<>(landed);
    assertThat(used).as("150 keys spread over every partition").hasSize(partitions);
  }

  @Test
  void aBinaryKeyGoesToThePartitionKafkasPartitionerPicksForItsBytes() {
    String topic = newTopicName();
    int partitions = 5;
    createTopic(topic, partitions);
    Random random = new Random(7);
    List<byte[]> keys = new ArrayList<>();
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 120; i++) {
      byte[] key = new byte[i % 17];
      random.nextBytes(key);
      keys.add(key);
      body.append(i == 0 ? "" : ",")
          .append("{\"key\":\"")
          .append(Base64.getEncoder().encodeToString(key))
          .append("\",\"value\":\"AA==\"}");
    }
    body.append("]}");

    List<Integer> landed = partitionsOf(produceBinary(topic, body.toString()));

    for (int i = 0; i < keys.size(); i++) {
      assertThat(landed.get(i))
          .as("partition of key %d", i)
          .isEqualTo(kafkaPartition(keys.get(i), partitions));
    }
  }

  @Test
  void keylessRecordsOfOneRequestShareOnePartitionAndSuccessiveRequestsRotate() {
    String topic = newTopicName();
    int partitions = 4;
    createTopic(topic, partitions);
    String body =
        "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3},{\"value\":4},{\"value\":5}]}";

    List<Integer> partitionPerRequest = new ArrayList<>();
    for (int request = 0; request < 2 * partitions; request++) {
      List<Integer> landed = partitionsOf(produceJson(topic, body));
      assertThat(landed).as("request %d", request).containsOnly(landed.get(0));
      partitionPerRequest.add(landed.get(0));
    }

    for (int i = 1; i < partitionPerRequest.size(); i++) {
      assertThat(partitionPerRequest.get(i))
          .as("rotation in %s", partitionPerRequest)
          .isEqualTo((partitionPerRequest.get(i - 1) + 1) % partitions);
    }
    for (int p = 0; p < partitions; p++) {
      assertThat(endOffset(topic, p)).as("partition %d got two requests", p).isEqualTo(10);
    }
  }

  @Test
  void keyedAndKeylessRecordsInOneRequestArePartitionedIndependently() {
    String topic = newTopicName();
    createTopic(topic, 6);

    List<Integer> landed =
        partitionsOf(
            produceJson(
                topic,
                "{\"records\":[{\"key\":\"alice\",\"value\":1},{\"value\":2},{\"key\":\"bob\",\"value\":3},{\"value\":4}]}"));

    assertThat(landed.get(0))
        .isEqualTo(kafkaPartition("\"alice\"".getBytes(StandardCharsets.UTF_8), 6));
    assertThat(landed.get(2))
        .isEqualTo(kafkaPartition("\"bob\"".getBytes(StandardCharsets.UTF_8), 6));
    assertThat(landed.get(1)).isEqualTo(landed.get(3));
  }

  // ---- auto-creation
  // -----------------------------------------------------------------------------------------

  @Test
  void producingToAMissingTopicCreatesItWithOnePartition() {
    String topic = newTopicName();
    assertError(get("/topics/" + topic), 404, 40401, "Topic '" + topic + "' does not exist");

    List<String> placed = placements(produceJson(topic, "{\"records\":[{\"value\":\"first\"}]}"));

    assertThat(placed).containsExactly("0:0");
    JsonNode described = expectOk(get("/topics/" + topic));
    assertThat(described.get("name").stringValue()).isEqualTo(topic);
    assertThat(described.get("partitions")).hasSize(1);
    assertThat(readJson(topic, 0, 0).get(0).get("value").stringValue()).isEqualTo("first");
  }

  @Test
  void autoCreationIsRefusedWhenAPathPartitionIsBeyondNumPartitionsAndNoTopicIsCreated() {
    String topic = newTopicName();

    assertError(
        post("/topics/" + topic + "/partitions/5", EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}"),
        404,
        40401,
        "partition 5 was asked for");

    assertError(get("/topics/" + topic), 404, 40401, "does not exist");
  }

  @Test
  void autoCreationIsRefusedWhenARecordPartitionIsBeyondNumPartitionsAndNoTopicIsCreated() {
    String topic = newTopicName();

    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":1},{\"partition\":1,\"value\":2}]}"),
        404,
        40401,
        "num.partitions");

    assertError(get("/topics/" + topic), 404, 40401, "does not exist");
  }

  @Test
  void aMalformedProduceToAMissingTopicDoesNotCreateIt() {
    String topic = newTopicName();

    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[]}"), 400, 40002, "no records");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":"),
        400,
        40001,
        "Malformed JSON body");

    assertError(get("/topics/" + topic), 404, 40401, "does not exist");
  }

  @Test
  void anIllegalTopicNameIsRefusedOnAutoCreation() {
    assertError(
        post("/topics/" + encode("has space"), EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}"),
        422,
        42201,
        "is illegal");
  }

  static int kafkaPartition(byte[] keyBytes, int partitions) {
    return Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
  }
}
