package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v3 administration under {@code /v3/clusters}: clusters, brokers, and topics (create,
 * list, describe, grow, delete). Partitions, replicas and configs are in {@link
 * AdminV3PartitionsAndConfigsApiTest}.
 */
class AdminV3ApiTest extends ApiTestSupport {
  @org.springframework.beans.factory.annotation.Autowired dev.tributary.kafka.KafkaListener kafka;

  // ---- clusters and brokers
  // ----------------------------------------------------------------------------------

  @Test
  void theClusterListHoldsThisClusterWithThisBrokerAsController() {
    Response r = get("/v3/clusters");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(JSON);
    JsonNode body = r.json();
    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaClusterList");
    assertThat(body.get("metadata").get("self").stringValue())
        .isEqualTo(baseUrl() + "/v3/clusters");
    assertThat(body.get("metadata").get("next").isNull()).isTrue();
    assertThat(body.get("data")).hasSize(1);
    JsonNode cluster = body.get("data").get(0);
    String id = cluster.get("cluster_id").stringValue();
    assertThat(id).isNotBlank().doesNotContain("/");
    assertThat(cluster.get("controller_id").intValue()).isEqualTo(1);
    assertThat(cluster.get("controller").get("related").stringValue())
        .isEqualTo(baseUrl() + "/v3/clusters/" + id + "/brokers/1");
  }

  @Test
  void theClusterByIdDescribesItselfWithLinks() {
    JsonNode cluster = expectOk(get(v3("")));

    assertThat(cluster.get("kind").stringValue()).isEqualTo("KafkaCluster");
    assertThat(cluster.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(cluster.get("controller_id").intValue()).isEqualTo(1);
    assertThat(cluster.get("metadata").get("self").stringValue()).isEqualTo(baseUrl() + v3(""));
    assertThat(cluster.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId());
    assertThat(cluster.get("brokers").get("related").stringValue())
        .isEqualTo(baseUrl() + v3("/brokers"));
    assertThat(cluster.get("topics").get("related").stringValue())
        .isEqualTo(baseUrl() + v3("/topics"));
  }

  @Test
  void anotherClusterIdIsNotFoundOnEveryV3Path() {
    String real = clusterId();

    assertError(
        get("/v3/clusters/xyz"), 404, 40404, "Cluster 'xyz' not found; this is cluster " + real);
    assertError(get("/v3/clusters/xyz/brokers"), 404, 40404, "Cluster 'xyz' not found");
    assertError(get("/v3/clusters/xyz/topics"), 404, 40404, "Cluster 'xyz' not found");
    assertError(
        post("/v3/clusters/xyz/topics", JSON, "{\"topic_name\":\"" + newTopicName() + "\"}"),
        404,
        40404,
        "Cluster 'xyz'");
  }

  @Test
  void theBrokerListHoldsThisBroker() {
    JsonNode body = expectOk(get(v3("/brokers")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaBrokerList");
    assertThat(body.get("data")).extracting(b -> b.get("broker_id").intValue()).containsExactly(1);
  }

  @Test
  void aBrokerDescribesItsEndpointAndState() {
    JsonNode broker = expectOk(get(v3("/brokers/1")));

    assertThat(broker.get("kind").stringValue()).isEqualTo("KafkaBroker");
    assertThat(broker.get("cluster_id").stringValue()).isEqualTo(clusterId());
    assertThat(broker.get("broker_id").intValue()).isEqualTo(1);
    assertThat(broker.get("host").stringValue()).isEqualTo("127.0.0.1");
    assertThat(broker.get("rack").isNull()).isTrue();
    assertThat(broker.get("state").stringValue()).isEqualTo("alive");
    assertThat(broker.get("incarnation_id").stringValue()).isNotBlank();
    assertThat(broker.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId() + "/broker=1");
  }

  @Test
  void aBrokerAdvertisesThePortItListensOn() {
    JsonNode broker = expectOk(get(v3("/brokers/1")));

    assertThat(broker.get("port").intValue())
        .as("advertised port; this broker answers on %d", port)
        .isEqualTo(port);
  }

  @Test
  void aBrokerListsTheListenersItAdvertisesBesideItsHttpHostAndPort() {
    JsonNode broker = expectOk(get(v3("/brokers/1")));

    assertThat(broker.get("listeners"))
        .isEqualTo(
            mapper.readTree(
                "[{\"name\":\"HTTP\",\"host\":\"127.0.0.1\",\"port\":"
                    + port
                    + ",\"security_protocol\":\"PLAINTEXT\"},"
                    + "{\"name\":\"KAFKA\",\"host\":\"127.0.0.1\",\"port\":"
                    + kafka.port()
                    + ",\"security_protocol\":\"PLAINTEXT\"}]"));
    JsonNode listed = expectOk(get(v3("/brokers"))).get("data").get(0);
    assertThat(listed.get("listeners")).isEqualTo(broker.get("listeners"));
  }

  @Test
  void anUnknownBrokerIsNotFound() {
    assertError(get(v3("/brokers/7")), 404, 40406, "Broker 7 is not registered in this cluster");
    assertError(get(v3("/brokers/seven")), 400, 40003, "'seven'");
  }

  @Test
  void aRunningOrUnknownBrokerIsNotUnregisteredAndStaysListed() {
    assertError(
        delete(v3("/brokers/1")),
        400,
        40002,
        "Broker 1 is running (unfenced); stop it before unregistering it");
    assertError(delete(v3("/brokers/7")), 404, 40406, "Broker 7 is not registered in this cluster");
    assertThat(expectOk(get(v3("/brokers/1"))).get("broker_id").asInt()).isEqualTo(1);
  }

  // ---- topics
  // ------------------------------------------------------------------------------------------------

  @Test
  void creatingATopicAnswers201WithItsLocationAndDefaults() {
    String topic = newTopicName();

    Response r = post(v3("/topics"), JSON, "{\"topic_name\":\"" + topic + "\"}");

    assertThat(r.status()).isEqualTo(201);
    assertThat(r.contentType()).startsWith(JSON);
    JsonNode created = r.json();
    String self = baseUrl() + v3("/topics/" + topic);
    assertThat(r.header("Location")).hasValue(self);
    assertThat(created.get("kind").stringValue()).isEqualTo("KafkaTopic");
    assertThat(created.get("metadata").get("self").stringValue()).isEqualTo(self);
    assertThat(created.get("metadata").get("resource_name").stringValue())
        .isEqualTo("crn:///kafka=" + clusterId() + "/topic=" + topic);
    assertThat(created.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(created.get("topic_id").stringValue()).isNotBlank();
    assertThat(created.get("is_internal").booleanValue()).isFalse();
    assertThat(created.get("partitions_count").intValue())
        .as("default num.partitions")
        .isEqualTo(1);
    assertThat(created.get("replication_factor").intValue())
        .as("default replication factor")
        .isEqualTo(1);
    assertThat(created.get("partitions").get("related").stringValue())
        .isEqualTo(self + "/partitions");
    assertThat(created.get("configs").get("related").stringValue()).isEqualTo(self + "/configs");
    assertThat(expectOk(get(v3("/topics/" + topic)))).isEqualTo(created);
  }

  @Test
  void creatingATopicAppliesItsPartitionCountReplicationFactorAndConfigs() {
    String topic = newTopicName();

    Response r =
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + topic
                + "\",\"partitions_count\":3,\"replication_factor\":1,"
                + "\"configs\":[{\"name\":\"retention.ms\",\"value\":\"86400000\"},{\"name\":\"segment.bytes\",\"value\":1048576}]}");

    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.json().get("partitions_count").intValue()).isEqualTo(3);
    JsonNode retention = expectOk(get(v3("/topics/" + topic + "/configs/retention.ms")));
    assertThat(retention.get("value").stringValue()).isEqualTo("86400000");
    assertThat(retention.get("is_default").booleanValue()).isFalse();
    assertThat(retention.get("source").stringValue()).isEqualTo("DYNAMIC_TOPIC_CONFIG");
    assertThat(
            expectOk(get(v3("/topics/" + topic + "/configs/segment.bytes")))
                .get("value")
                .stringValue())
        .isEqualTo("1048576");
    assertThat(expectOk(get("/topics/" + topic + "/partitions"))).hasSize(3);
  }

  @Test
  void theTopicListHoldsCreatedTopics() {
    String topic = newTopicName();
    createTopic(topic, 2);

    JsonNode body = expectOk(get(v3("/topics")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaTopicList");
    assertThat(body.get("metadata").get("self").stringValue()).isEqualTo(baseUrl() + v3("/topics"));
    JsonNode listed = find(body.get("data"), "topic_name", topic);
    assertThat(listed.get("partitions_count").intValue()).isEqualTo(2);
  }

  @Test
  void creatingAnExistingTopicConflicts() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":\"" + topic + "\",\"partitions_count\":4}"),
        409,
        40901,
        "Topic '" + topic + "' already exists.");
    assertThat(expectOk(get(v3("/topics/" + topic))).get("partitions_count").intValue())
        .isEqualTo(1);
  }

  @Test
  void illegalTopicNamesAreUnprocessable() {
    String tooLong = "a".repeat(250);
    for (String name : List.of("has space", "..", ".", tooLong, "a/b", "")) {
      assertError(post(v3("/topics"), JSON, "{\"topic_name\":\"" + name + "\"}"), 422, 42201, "");
    }
    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":\"has space\"}"),
        422,
        42201,
        "Topic name \"has space\" is illegal");
    assertError(get("/topics/" + tooLong), 404, 40401, "does not exist");
  }

  @Test
  void aTopicNameOf249CharactersIsLegal() {
    String name = (newTopicName() + "-" + "n".repeat(249)).substring(0, 249);

    Response r = post(v3("/topics"), JSON, "{\"topic_name\":\"" + name + "\"}");

    assertThat(r.status()).as(r.body()).isEqualTo(201);
  }

  @Test
  void unknownConfigsAndBadValuesAreUnprocessableAndCreateNothing() {
    String topic = newTopicName();

    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + topic
                + "\",\"configs\":[{\"name\":\"no.such.config\",\"value\":\"1\"}]}"),
        422,
        42202,
        "no.such.config");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + topic
                + "\",\"configs\":[{\"name\":\"retention.ms\",\"value\":\"abc\"}]}"),
        422,
        42202,
        "retention.ms");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + topic
                + "\",\"configs\":[{\"name\":\"cleanup.policy\",\"value\":\"compress\"}]}"),
        422,
        42202,
        "cleanup.policy");

    assertError(get(v3("/topics/" + topic)), 404, 40401, "does not exist");
  }

  @Test
  void aPartitionCountOutsideTheLimitsIsUnprocessable() {
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\"" + newTopicName() + "\",\"partitions_count\":0}"),
        422,
        42203,
        "Number of partitions must be between 1 and");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\"" + newTopicName() + "\",\"partitions_count\":-3}"),
        422,
        42203,
        "got -3");
  }

  @Test
  void aReplicationFactorAboveTheLiveBrokersIsUnprocessable() {
    String topic = newTopicName();

    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":\"" + topic + "\",\"replication_factor\":2}"),
        422,
        42204,
        "Replication factor 2 is larger than the number of alive (unfenced) brokers: 1 of 1");
    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":\"" + topic + "\",\"replication_factor\":0}"),
        422,
        42204,
        "");

    assertError(get(v3("/topics/" + topic)), 404, 40401, "does not exist");
  }

  @Test
  void aCreateRequestOfTheWrongShapeIsABadRequest() {
    assertError(
        post(v3("/topics"), JSON, "{\"partitions_count\":1}"),
        400,
        40002,
        "\"topic_name\" is required");
    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":7}"),
        400,
        40002,
        "\"topic_name\" is required and must be a string");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\"" + newTopicName() + "\",\"partitions_count\":\"3\"}"),
        400,
        40002,
        "\"partitions_count\" must be an integer");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\"" + newTopicName() + "\",\"configs\":{\"retention.ms\":\"1\"}}"),
        400,
        40002,
        "\"configs\" must be a list");
    assertError(
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + newTopicName()
                + "\",\"configs\":[{\"name\":\"retention.ms\"}]}"),
        400,
        40002,
        "each config must be");
    assertError(post(v3("/topics"), JSON, "[]"), 400, 40002, "must be a JSON object");
    assertError(post(v3("/topics"), JSON, ""), 400, 40002, "needs a JSON body");
    assertError(post(v3("/topics"), JSON, "{\"topic_name\":"), 400, 40001, "Malformed JSON body");
  }

  @Test
  void patchingPartitionsCountGrowsTheTopicAndTheNewPartitionTakesRecords() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode grown = expectOk(patch(v3("/topics/" + topic), "{\"partitions_count\":3}"));

    assertThat(grown.get("partitions_count").intValue()).isEqualTo(3);
    assertThat(grown.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(
            placements(
                expectOk(
                    post(
                        "/topics/" + topic + "/partitions/2",
                        EMBEDDED_JSON,
                        "{\"records\":[{\"value\":\"new\"}]}"))))
        .containsExactly("2:0");
    assertThat(readJson(topic, 2, 0).get(0).get("value").stringValue()).isEqualTo("new");
    assertThat(expectOk(get(v3("/topics/" + topic + "/partitions"))).get("data")).hasSize(3);
  }

  @Test
  void patchingPartitionsCountCannotShrinkOrKeepTheCount() {
    String topic = newTopicName();
    createTopic(topic, 2);

    assertError(
        patch(v3("/topics/" + topic), "{\"partitions_count\":1}"),
        422,
        42203,
        "Topic '" + topic + "' has 2 partitions; the count can only grow, not become 1");
    assertError(
        patch(v3("/topics/" + topic), "{\"partitions_count\":2}"), 422, 42203, "can only grow");

    assertThat(expectOk(get(v3("/topics/" + topic))).get("partitions_count").intValue())
        .isEqualTo(2);
  }

  @Test
  void patchingAnythingButPartitionsCountOrAMissingTopicFails() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        patch(v3("/topics/" + topic), "{\"replication_factor\":3}"),
        400,
        40002,
        "Only \"partitions_count\" can be changed");
    assertError(
        patch(v3("/topics/" + topic), "{\"partitions_count\":\"two\"}"),
        400,
        40002,
        "must be an integer");
    assertError(
        patch(v3("/topics/" + newTopicName()), "{\"partitions_count\":3}"),
        404,
        40401,
        "does not exist");
  }

  @Test
  void deletingATopicAnswers204AndThenItIsGone() {
    String topic = newTopicName();
    createTopic(topic, 2);

    Response r = delete(v3("/topics/" + topic));

    assertThat(r.status()).isEqualTo(204);
    assertThat(r.body()).isEmpty();
    assertError(get(v3("/topics/" + topic)), 404, 40401, "does not exist");
    assertError(get("/topics/" + topic), 404, 40401, "does not exist");
    assertError(delete(v3("/topics/" + topic)), 404, 40401, "does not exist");
  }

  @Test
  void aTopicRecreatedUnderADeletedNameStartsWithAnEmptyLog() {
    String topic = newTopicName();
    createTopic(topic, 1);
    produceJson(
        topic, "{\"records\":[{\"value\":\"old-1\"},{\"value\":\"old-2\"},{\"value\":\"old-3\"}]}");
    String oldId = expectOk(get(v3("/topics/" + topic))).get("topic_id").stringValue();

    assertThat(delete(v3("/topics/" + topic)).status()).isEqualTo(204);
    createTopic(topic, 1);

    assertThat(expectOk(get(v3("/topics/" + topic))).get("topic_id").stringValue())
        .isNotEqualTo(oldId);
    assertThat(offsets(topic, 0))
        .isEqualTo(
            mapper.readTree("{\"beginning_offset\":0,\"end_offset\":0,\"log_end_offset\":0}"));
    assertThat(readJson(topic, 0, 0)).isEmpty();
    assertThat(placements(produceJson(topic, "{\"records\":[{\"value\":\"new\"}]}")))
        .containsExactly("0:0");
    assertThat(readJson(topic, 0, 0))
        .extracting(n -> n.get("value").stringValue())
        .containsExactly("new");
  }
}
