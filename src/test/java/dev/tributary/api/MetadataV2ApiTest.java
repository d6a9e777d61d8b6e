package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v2 topic metadata: {@code GET /topics}, {@code /topics/{t}}, {@code
 * /topics/{t}/partitions[/{p}]}.
 */
class MetadataV2ApiTest extends ApiTestSupport {
  static final List<String> ALL_TOPIC_CONFIGS =
      List.of(
          "cleanup.policy",
          "compression.type",
          "retention.ms",
          "retention.bytes",
          "segment.bytes",
          "segment.ms",
          "segment.index.bytes",
          "index.interval.bytes",
          "max.message.bytes",
          "flush.messages",
          "flush.ms",
          "file.delete.delay.ms",
          "message.timestamp.type",
          "min.insync.replicas",
          "unclean.leader.election.enable",
          "delete.retention.ms",
          "min.cleanable.dirty.ratio",
          "min.compaction.lag.ms",
          "max.compaction.lag.ms",
          "producer.id.expiration.ms",
          "leader.replication.throttled.replicas",
          "follower.replication.throttled.replicas");

  private static final String ONE_REPLICA_ON_BROKER_1 =
      "[{\"broker\":1,\"leader\":true,\"in_sync\":true}]";

  @Test
  void topicsListsEveryTopicByName() {
    String created = newTopicName();
    String autoCreated = newTopicName();
    createTopic(created, 2);
    produceJson(autoCreated, "{\"records\":[{\"value\":1}]}");

    Response r = get("/topics");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(V2_JSON);
    List<String> names = new ArrayList<>();
    r.json().forEach(n -> names.add(n.stringValue()));
    assertThat(names).contains(created, autoCreated);
  }

  @Test
  void aTopicShowsEveryConfigWithDefaultsAndOverridesAndItsPartitions() {
    String topic = newTopicName();
    createTopic(topic, 2, "[{\"name\":\"retention.ms\",\"value\":\"86400000\"}]");

    Response r = get("/topics/" + topic);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(V2_JSON);
    JsonNode body = r.json();
    assertThat(body.get("name").stringValue()).isEqualTo(topic);
    JsonNode configs = body.get("configs");
    assertThat(configs.propertyNames()).containsExactlyInAnyOrderElementsOf(ALL_TOPIC_CONFIGS);
    assertThat(configs.get("retention.ms").stringValue()).as("override").isEqualTo("86400000");
    assertThat(configs.get("cleanup.policy").stringValue()).isEqualTo("delete");
    assertThat(configs.get("compression.type").stringValue()).isEqualTo("producer");
    assertThat(configs.get("max.message.bytes").stringValue()).isEqualTo("1048588");
    assertThat(configs.get("segment.bytes").stringValue()).isEqualTo("1073741824");
    assertThat(configs.get("message.timestamp.type").stringValue()).isEqualTo("CreateTime");
    assertThat(body.get("partitions"))
        .isEqualTo(
            mapper.readTree(
                "[{\"partition\":0,\"leader\":1,\"replicas\":"
                    + ONE_REPLICA_ON_BROKER_1
                    + "},"
                    + "{\"partition\":1,\"leader\":1,\"replicas\":"
                    + ONE_REPLICA_ON_BROKER_1
                    + "}]"));
  }

  @Test
  void aTopicWithoutOverridesShowsKafkasDefaults() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode configs = expectOk(get("/topics/" + topic)).get("configs");

    assertThat(configs.get("retention.ms").stringValue()).isEqualTo("604800000");
    assertThat(configs.get("retention.bytes").stringValue()).isEqualTo("-1");
    assertThat(configs.get("min.insync.replicas").stringValue()).isEqualTo("1");
  }

  @Test
  void partitionsListsEachPartitionWithItsLeaderAndReplicas() {
    String topic = newTopicName();
    createTopic(topic, 3);

    Response r = get("/topics/" + topic + "/partitions");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(V2_JSON);
    assertThat(r.json()).extracting(p -> p.get("partition").intValue()).containsExactly(0, 1, 2);
    assertThat(r.json()).extracting(p -> p.get("leader").intValue()).containsOnly(1);
    assertThat(r.json().get(2).get("replicas")).isEqualTo(mapper.readTree(ONE_REPLICA_ON_BROKER_1));
  }

  @Test
  void onePartitionShowsItsLeaderAndReplicas() {
    String topic = newTopicName();
    createTopic(topic, 3);

    JsonNode partition = expectOk(get("/topics/" + topic + "/partitions/2"));

    assertThat(partition)
        .isEqualTo(
            mapper.readTree(
                "{\"partition\":2,\"leader\":1,\"replicas\":" + ONE_REPLICA_ON_BROKER_1 + "}"));
  }

  @Test
  void unknownTopicsAndPartitionsAreNotFound() {
    String topic = newTopicName();
    createTopic(topic, 2);
    String missing = newTopicName();

    assertError(get("/topics/" + missing), 404, 40401, "Topic '" + missing + "' does not exist.");
    assertError(get("/topics/" + missing + "/partitions"), 404, 40401, "does not exist");
    assertError(get("/topics/" + missing + "/partitions/0"), 404, 40401, "does not exist");
    assertError(
        get("/topics/" + topic + "/partitions/2"),
        404,
        40402,
        "Partition 2 of topic '" + topic + "' does not exist; the topic has 2 partition(s).");
    assertError(get("/topics/" + topic + "/partitions/one"), 400, 40003, "Invalid value 'one'");
  }
}
