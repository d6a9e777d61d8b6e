package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v3 partitions, replicas and topic configs under {@code /v3/clusters/{id}/topics/{t}}.
 */
class AdminV3PartitionsAndConfigsApiTest extends ApiTestSupport {

  // ---- partitions and replicas
  // -------------------------------------------------------------------------------

  @Test
  void partitionsListEachPartitionsLeaderEpochReplicasAndIsr() {
    String topic = newTopicName();
    createTopic(topic, 2);

    JsonNode body = expectOk(get(v3("/topics/" + topic + "/partitions")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaPartitionList");
    assertThat(body.get("data"))
        .extracting(p -> p.get("partition_id").intValue())
        .containsExactly(0, 1);
    for (JsonNode partition : body.get("data")) {
      assertPartition(partition, topic, partition.get("partition_id").intValue());
    }
  }

  @Test
  void onePartitionDescribesItsLeadershipAndLinks() {
    String topic = newTopicName();
    createTopic(topic, 2);

    JsonNode partition = expectOk(get(v3("/topics/" + topic + "/partitions/1")));

    assertPartition(partition, topic, 1);
    String self = baseUrl() + v3("/topics/" + topic + "/partitions/1");
    assertThat(partition.get("metadata").get("self").stringValue()).isEqualTo(self);
    assertThat(partition.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId() + "/topic=" + topic + "/partition=1");
    assertThat(partition.get("leader").get("related").stringValue())
        .isEqualTo(self + "/replicas/1");
    assertThat(partition.get("replicas").get("related").stringValue())
        .isEqualTo(self + "/replicas");
  }

  @Test
  void unknownPartitionsAreNotFound() {
    String topic = newTopicName();
    createTopic(topic, 2);

    assertError(
        get(v3("/topics/" + topic + "/partitions/5")),
        404,
        40402,
        "Partition 5 of topic '" + topic + "'");
    assertError(get(v3("/topics/" + topic + "/partitions/5/replicas")), 404, 40402, "Partition 5");
    assertError(
        get(v3("/topics/" + topic + "/partitions/5/replicas/1")), 404, 40402, "Partition 5");
    assertError(get(v3("/topics/" + newTopicName() + "/partitions")), 404, 40401, "does not exist");
  }

  @Test
  void replicasListTheBrokersHoldingAPartition() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode body = expectOk(get(v3("/topics/" + topic + "/partitions/0/replicas")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaReplicaList");
    assertThat(body.get("data")).hasSize(1);
    assertReplicaOfBroker1(body.get("data").get(0), topic);
  }

  @Test
  void oneReplicaDescribesLeadershipAndSyncAndLinksItsBroker() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode replica = expectOk(get(v3("/topics/" + topic + "/partitions/0/replicas/1")));

    assertReplicaOfBroker1(replica, topic);
    assertThat(replica.get("broker").get("related").stringValue())
        .isEqualTo(baseUrl() + v3("/brokers/1"));
    assertThat(replica.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId() + "/topic=" + topic + "/partition=0/replica=1");
  }

  @Test
  void replicasReportTheirLogEndOffsetLagAndThePartitionsHighWatermark() {
    String topic = newTopicName();
    createTopic(topic, 1);
    post(
        "/topics/" + topic + "/partitions/0?acks=all",
        "application/json",
        "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");

    JsonNode replica =
        expectOk(get(v3("/topics/" + topic + "/partitions/0/replicas"))).get("data").get(0);

    assertThat(replica.get("log_end_offset").asLong()).isEqualTo(3);
    assertThat(replica.get("high_watermark").asLong()).isEqualTo(3);
    assertThat(replica.get("lag").asLong()).isZero();
    assertThat(replica.get("last_fetch_ms").isNull()).as("a leader fetches from nobody").isTrue();
    assertThat(replica.get("last_caught_up_ms").asLong()).isPositive();
  }

  @Test
  void aReplicaOnABrokerThatHoldsNoneIsNotFound() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        get(v3("/topics/" + topic + "/partitions/0/replicas/2")),
        404,
        40407,
        "Broker 2 holds no replica of " + topic + "-0");
  }

  // ---- configs
  // -----------------------------------------------------------------------------------------------

  @Test
  void configsListEveryConfigWithItsSource() {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"retention.bytes\",\"value\":\"1000000\"}]");

    JsonNode body = expectOk(get(v3("/topics/" + topic + "/configs")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaTopicConfigList");
    List<String> names = new ArrayList<>();
    body.get("data").forEach(c -> names.add(c.get("name").stringValue()));
    assertThat(names).containsExactlyInAnyOrderElementsOf(MetadataV2ApiTest.ALL_TOPIC_CONFIGS);
    JsonNode retentionMs = find(body.get("data"), "name", "retention.ms");
    assertThat(retentionMs.get("value").stringValue()).isEqualTo("604800000");
    assertThat(retentionMs.get("is_default").booleanValue()).isTrue();
    assertThat(retentionMs.get("source").stringValue()).isEqualTo("DEFAULT_CONFIG");
    JsonNode retentionBytes = find(body.get("data"), "name", "retention.bytes");
    assertThat(retentionBytes.get("value").stringValue()).isEqualTo("1000000");
    assertThat(retentionBytes.get("is_default").booleanValue()).isFalse();
    assertThat(retentionBytes.get("source").stringValue()).isEqualTo("DYNAMIC_TOPIC_CONFIG");
  }

  @Test
  void oneConfigDescribesItsValueAndFlags() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode config = expectOk(get(v3("/topics/" + topic + "/configs/retention.ms")));

    assertThat(config.get("kind").stringValue()).isEqualTo("KafkaTopicConfig");
    assertThat(config.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(config.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(config.get("name").stringValue()).isEqualTo("retention.ms");
    assertThat(config.get("value").stringValue()).isEqualTo("604800000");
    assertThat(config.get("is_default").booleanValue()).isTrue();
    assertThat(config.get("is_read_only").booleanValue()).isFalse();
    assertThat(config.get("is_sensitive").booleanValue()).isFalse();
    assertThat(config.get("source").stringValue()).isEqualTo("DEFAULT_CONFIG");
    assertThat(config.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId() + "/topic=" + topic + "/config=retention.ms");
  }

  @Test
  void settingAConfigAnswers204AndIsVisibleEverywhere() {
    String topic = newTopicName();
    createTopic(topic, 1);

    Response set = put(v3("/topics/" + topic + "/configs/retention.ms"), "{\"value\":\"3600000\"}");
    Response setNumber =
        put(v3("/topics/" + topic + "/configs/max.message.bytes"), "{\"value\":5000}");

    assertThat(set.status()).as(set.body()).isEqualTo(204);
    assertThat(setNumber.status()).as(setNumber.body()).isEqualTo(204);
    JsonNode retention = expectOk(get(v3("/topics/" + topic + "/configs/retention.ms")));
    assertThat(retention.get("value").stringValue()).isEqualTo("3600000");
    assertThat(retention.get("is_default").booleanValue()).isFalse();
    assertThat(retention.get("source").stringValue()).isEqualTo("DYNAMIC_TOPIC_CONFIG");
    assertThat(
            expectOk(get("/topics/" + topic)).get("configs").get("max.message.bytes").stringValue())
        .isEqualTo("5000");
  }

  @Test
  void aChangedMaxMessageBytesAppliesToTheNextProduce() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String bigRecord = "{\"records\":[{\"value\":\"" + "b".repeat(5000) + "\"}]}";
    produceJson(topic, bigRecord);

    assertThat(
            put(v3("/topics/" + topic + "/configs/max.message.bytes"), "{\"value\":\"2000\"}")
                .status())
        .isEqualTo(204);

    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, bigRecord), 413, 41301, "max.message.bytes=2000");
    assertThat(endOffset(topic, 0)).isEqualTo(1);
  }

  @Test
  void anInvalidConfigValueIsUnprocessableAndChangesNothing() {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"retention.ms\",\"value\":\"86400000\"}]");

    assertError(
        put(v3("/topics/" + topic + "/configs/retention.ms"), "{\"value\":\"abc\"}"),
        422,
        42202,
        "retention.ms");
    assertError(
        put(v3("/topics/" + topic + "/configs/segment.bytes"), "{\"value\":\"10\"}"),
        422,
        42202,
        "segment.bytes");
    assertError(
        put(v3("/topics/" + topic + "/configs/no.such.config"), "{\"value\":\"1\"}"),
        422,
        42202,
        "no.such.config");

    assertThat(
            expectOk(get(v3("/topics/" + topic + "/configs/retention.ms")))
                .get("value")
                .stringValue())
        .isEqualTo("86400000");
    assertThat(
            expectOk(get(v3("/topics/" + topic + "/configs/segment.bytes")))
                .get("is_default")
                .booleanValue())
        .isTrue();
  }

  @Test
  void aConfigBodyWithoutAValueIsABadRequest() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        put(v3("/topics/" + topic + "/configs/retention.ms"), "{\"val\":\"1\"}"),
        400,
        40002,
        "{\"value\": \"...\"}");
    assertError(
        put(v3("/topics/" + topic + "/configs/retention.ms"), "{\"value\":true}"),
        400,
        40002,
        "{\"value\": \"...\"}");
    assertError(
        put(v3("/topics/" + topic + "/configs/retention.ms"), "{\"value\":"),
        400,
        40001,
        "Malformed JSON body");
  }

  @Test
  void deletingAConfigResetsItToTheDefault() {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"retention.ms\",\"value\":\"86400000\"}]");

    Response r = delete(v3("/topics/" + topic + "/configs/retention.ms"));

    assertThat(r.status()).isEqualTo(204);
    JsonNode retention = expectOk(get(v3("/topics/" + topic + "/configs/retention.ms")));
    assertThat(retention.get("value").stringValue()).isEqualTo("604800000");
    assertThat(retention.get("is_default").booleanValue()).isTrue();
    assertThat(retention.get("source").stringValue()).isEqualTo("DEFAULT_CONFIG");
  }

  @Test
  void unknownConfigNamesAreNotFoundOnReadAndUnprocessableOnReset() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        get(v3("/topics/" + topic + "/configs/foo")),
        404,
        40405,
        "Topic config 'foo' does not exist");
    assertError(
        delete(v3("/topics/" + topic + "/configs/foo")), 422, 42202, "Unknown topic config 'foo'");
    assertError(get(v3("/topics/" + newTopicName() + "/configs")), 404, 40401, "does not exist");
    assertError(
        put(v3("/topics/" + newTopicName() + "/configs/retention.ms"), "{\"value\":\"1\"}"),
        404,
        40401,
        "does not exist");
  }

  // ---- helpers
  // -----------------------------------------------------------------------------------------------

  private void assertPartition(JsonNode partition, String topic, int partitionId) {
    assertThat(partition.get("kind").stringValue()).isEqualTo("KafkaPartition");
    assertThat(partition.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(partition.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(partition.get("partition_id").intValue()).isEqualTo(partitionId);
    assertThat(partition.get("leader_id").intValue()).isEqualTo(1);
    assertThat(partition.get("leader_epoch").intValue()).isZero();
    assertThat(partition.get("replica_ids")).isEqualTo(mapper.readTree("[1]"));
    assertThat(partition.get("isr_ids")).isEqualTo(mapper.readTree("[1]"));
  }

  private void assertReplicaOfBroker1(JsonNode replica, String topic) {
    assertThat(replica.get("kind").stringValue()).isEqualTo("KafkaReplica");
    assertThat(replica.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(replica.get("partition_id").intValue()).isZero();
    assertThat(replica.get("broker_id").intValue()).isEqualTo(1);
    assertThat(replica.get("is_leader").booleanValue()).isTrue();
    assertThat(replica.get("is_in_sync").booleanValue()).isTrue();
  }
}
