package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * REST Proxy v3 reassignment resources on one broker: the shapes, the no-op move, and every
 * refusal. Moves between brokers are exercised with real processes in {@code ReassignmentIT}.
 */
class ReassignmentsV3ApiTest extends ApiTestSupport {

  @Test
  void aPartitionThatIsNotMovingShowsItsReplicasAndNothingInProgress() {
    String topic = newTopicName();
    createTopic(topic, 2);

    JsonNode body = expectOk(get(v3("/topics/" + topic + "/partitions/1/reassignment")));

    assertThat(body.get("kind").stringValue()).isEqualTo("KafkaReassignment");
    assertThat(body.get("topic_name").stringValue()).isEqualTo(topic);
    assertThat(body.get("partition_id").intValue()).isEqualTo(1);
    assertThat(body.get("in_progress").booleanValue()).isFalse();
    assertThat(ids(body.get("replica_ids"))).containsExactly(1);
    assertThat(ids(body.get("target_replica_ids"))).containsExactly(1);
    assertThat(body.get("adding_replicas")).isEmpty();
    assertThat(body.get("removing_replicas")).isEmpty();
    String self = baseUrl() + v3("/topics/" + topic + "/partitions/1");
    assertThat(body.get("metadata").get("self").stringValue()).isEqualTo(self + "/reassignment");
    assertThat(body.get("replicas").get("related").stringValue()).isEqualTo(self + "/replicas");
  }

  @Test
  void theListsHoldOnlyMovesInProgress() {
    String topic = newTopicName();
    createTopic(topic, 1);

    JsonNode all = expectOk(get(v3("/topics/-/partitions/-/reassignment")));
    JsonNode ofTopic = expectOk(get(v3("/topics/" + topic + "/partitions/-/reassignment")));

    assertThat(all.get("kind").stringValue()).isEqualTo("KafkaReassignmentList");
    assertThat(all.get("data")).isEmpty();
    assertThat(ofTopic.get("data")).isEmpty();
    assertError(
        get(v3("/topics/" + newTopicName() + "/partitions/-/reassignment")),
        404,
        40401,
        "does not exist");
  }

  @Test
  void movingAPartitionToTheReplicasItHasIsAcceptedAndChangesNothing() {
    String topic = newTopicName();
    createTopic(topic, 1);

    Response r =
        post(v3("/topics/" + topic + "/partitions/0/reassignment"), JSON, "{\"replicas\":[1]}");

    assertThat(r.status()).isEqualTo(202);
    JsonNode body = mapper.readTree(r.body());
    assertThat(body.get("in_progress").booleanValue()).isFalse();
    assertThat(ids(body.get("replica_ids"))).containsExactly(1);
  }

  @Test
  void aTargetNamingAnUnregisteredBrokerIsRefusedAndNothingMoves() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        post(v3("/topics/" + topic + "/partitions/0/reassignment"), JSON, "{\"replicas\":[1,7]}"),
        422,
        42206,
        "name broker(s) [7] that are not registered");
    assertError(
        post(v3("/topics/" + topic + "/partitions/0/reassignment"), JSON, "{\"replicas\":[1,1]}"),
        422,
        42206,
        "name a broker twice");

    JsonNode body = expectOk(get(v3("/topics/" + topic + "/partitions/0/reassignment")));
    assertThat(body.get("in_progress").booleanValue()).isFalse();
    assertThat(ids(body.get("replica_ids"))).containsExactly(1);
  }

  @Test
  void malformedTargetsAreBadRequests() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String path = v3("/topics/" + topic + "/partitions/0/reassignment");

    assertError(post(path, JSON, "{}"), 400, 40002, "\"replicas\" must be a non-empty list");
    assertError(post(path, JSON, "{\"replicas\":[]}"), 400, 40002, "non-empty list");
    assertError(post(path, JSON, "{\"replicas\":\"1,2\"}"), 400, 40002, "non-empty list");
    assertError(post(path, JSON, "{\"replicas\":[1,\"x\"]}"), 400, 40002, "broker ids");
    assertError(post(path, JSON, "{\"replicas\":[-1]}"), 400, 40002, "broker ids");
    assertError(post(path, JSON, "{\"replicas\":[1e30]}"), 400, 40002, "broker ids");
  }

  @Test
  void cancellingWhenNothingMovesIsNotFound() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        delete(v3("/topics/" + topic + "/partitions/0/reassignment")),
        404,
        40412,
        "No reassignment of " + topic + "-0 is in progress");
  }

  @Test
  void unknownPartitionsAreNotFound() {
    String topic = newTopicName();
    createTopic(topic, 1);

    assertError(
        get(v3("/topics/" + topic + "/partitions/3/reassignment")), 404, 40402, "Partition 3");
    assertError(
        get(v3("/topics/" + topic + "/partitions/-1/reassignment")), 404, 40402, "Partition -1");
    assertError(delete(v3("/topics/" + topic + "/partitions/-1/reassignment")), 404, 40402, "");
    assertError(
        post(v3("/topics/" + topic + "/partitions/3/reassignment"), JSON, "{\"replicas\":[1]}"),
        404,
        40402,
        "");
    assertError(
        post(
            v3("/topics/" + newTopicName() + "/partitions/0/reassignment"),
            JSON,
            "{\"replicas\":[1]}"),
        404,
        40401,
        "");
  }

  private static java.util.List<Integer> ids(JsonNode array) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.intValue()));
    return out;
  }
}
