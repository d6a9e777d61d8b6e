package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Result;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Moving replicas between broker processes while they serve (KIP-455), end to end: a move under an
 * {@code acks=all} load that takes leadership off a leaving leader and loses nothing, the removed
 * replica's files gone; moves that cannot finish (their new broker is down): one cancelled, one
 * surviving a restart of the controller's process and completing once the broker is back; a fourth
 * broker joining the running cluster and taking its share under load. One cluster of three (four
 * for the last test) for the class; every test starts with every broker running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReassignmentIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;
  private static final Duration MOVE = Duration.ofSeconds(60);

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;

  @BeforeAll
  static void startCluster() {
    cluster =
        new TestCluster(
            data,
            e2e.logDir(),
            3,
            List.of(
                "--tributary.replica-lag-time-max-ms=2000", "--tributary.request-timeout-ms=5000"));
    client = new ClusterClient(cluster);
    cluster.startAll();
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void everyBrokerRuns() {
    cluster.healAll();
  }

  @Test
  @Order(1)
  void aMoveOffTheLeaderUnderLoadLosesNoAcknowledgedRecord() throws Exception {
    String topic = "moving";
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, 2, 2, Map.of("min.insync.replicas", "2"));
    ReplicationChecks.awaitFullIsr(cluster, client, topic, 2, MOVE);
    PartitionState before = client.partition(topic, 0);
    int leaving = before.leader();
    int staying = before.replicas().stream().filter(id -> id != leaving).findFirst().orElseThrow();
    int joining = otherThan(before.replicas());
    List<Integer> target = List.of(joining, staying);

    try (ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, 2, 455)) {
      await("records acknowledged before the move")
          .atMost(MOVE)
          .until(() -> history.acknowledgedSentAfter(Long.MIN_VALUE, 0) >= 20);
      HttpResponse<String> started = reassign(topic, 0, target);
      assertThat(started.statusCode()).as(started.body()).isEqualTo(202);

      JsonNode done = awaitMoved(topic, 0, target);
      assertThat(done.path("isr_ids").size()).isEqualTo(2);
      long afterMove = System.nanoTime();
      await("records acknowledged after the move")
          .atMost(MOVE)
          .until(() -> history.acknowledgedSentAfter(afterMove, 0) >= 10);
    }

    ReplicationChecks.awaitFullIsr(cluster, client, topic, 2, MOVE);
    PartitionState after = client.partition(topic, 0);
    assertThat(after.replicas()).containsExactlyElementsOf(target);
    assertThat(after.leader()).isIn(target).isNotEqualTo(leaving);
    assertThat(after.leaderEpoch()).isGreaterThan(before.leaderEpoch());
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, 2));
    System.out.println(topic + ": " + result.summary());
    result.assertNoViolations();
    await("the removed replica's files deleted on broker " + leaving)
        .atMost(MOVE)
        .until(() -> !Files.exists(logDir(leaving, topic, 0)));
    assertThat(logDir(joining, topic, 0)).isDirectory();
  }

  /**
   * Two moves onto a broker that is down: one is cancelled (back to the old replicas, and the down
   * broker never gets the log), the other waits out a restart of the controller's process (the move
   * is metadata-log state) and completes once the broker is back.
   */
  @Test
  @Order(2)
  void movesToADownBrokerWaitSurviveAControllerRestartAndCanBeCancelled() throws Exception {
    client.createTopic("pending", 1, 2, Map.of());
    client.createTopic("cancelled", 1, 2, Map.of());
    ReplicationChecks.awaitFullIsr(cluster, client, "pending", 1, MOVE);
    ReplicationChecks.awaitFullIsr(cluster, client, "cancelled", 1, MOVE);
    List<Integer> replicas = client.partition("pending", 0).replicas();
    int down = otherThan(replicas);
    // Both partitions on the same two brokers first (a move between running brokers, if needed).
    assertThat(reassign("cancelled", 0, replicas).statusCode()).isEqualTo(202);
    awaitMoved("cancelled", 0, replicas);
    cluster.get(down).kill();
    // A topic created while it is down lives on the other two: the balancer evens it out later.
    await("broker " + down + " fenced")
        .atMost(MOVE)
        .until(() -> "fenced".equals(client.brokerStates().get(down)));
    client.createTopic("skewed", 6, 2, Map.of());
    List<Integer> target = new ArrayList<>(replicas);
    target.add(down);
    List<Integer> cancelledTarget = List.of(replicas.get(0), down);

    await("the reassignments accepted")
        .atMost(MOVE)
        .until(
            () ->
                reassign("pending", 0, target).statusCode() == 202
                    && reassign("cancelled", 0, cancelledTarget).statusCode() == 202);
    JsonNode listed = client.getJson(client.anyLive(), V3 + "/topics/-/partitions/-/reassignment");
    JsonNode moving = find(listed.path("data"), "pending");
    assertThat(ints(moving.path("adding_replicas"))).containsExactly(down);
    assertThat(moving.path("in_progress").booleanValue()).isTrue();

    HttpResponse<String> cancelled =
        client.send(
            "DELETE", client.anyLive(), V3 + "/topics/cancelled/partitions/0/reassignment", null);
    assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);
    JsonNode back = client.json.readTree(cancelled.body());
    assertThat(back.path("in_progress").booleanValue()).isFalse();
    assertThat(ints(back.path("replica_ids"))).containsExactlyInAnyOrderElementsOf(replicas);

    // The controller's process dies and comes back (with one broker already down, the other two
    // are the quorum): the move is in the metadata log, so the controller elected after it still
    // has it.
    int controller = client.controllerId();
    if (controller != down) {
      cluster.get(controller).kill();
      cluster.restart(controller);
    }
    await("a controller again").atMost(MOVE).until(() -> client.controllerId() >= 0);
    JsonNode stillMoving =
        client.getJson(client.anyLive(), V3 + "/topics/pending/partitions/0/reassignment");
    assertThat(stillMoving.path("in_progress").booleanValue()).isTrue();
    assertThat(ints(stillMoving.path("adding_replicas"))).containsExactly(down);

    cluster.healAll();
    awaitMoved("pending", 0, target);
    ReplicationChecks.awaitFullIsr(cluster, client, "pending", 1, MOVE);
    ReplicationChecks.awaitFullIsr(cluster, client, "cancelled", 1, MOVE);
    assertThat(logDir(down, "cancelled", 0)).doesNotExist();

    // The balancer moves a share of the skewed topic onto the broker that was down.
    ReplicationChecks.awaitFullIsr(cluster, client, "skewed", 6, MOVE);
    assertThat(replicasOn(down, "skewed")).isZero();
    HttpResponse<String> balancing = client.send("POST", cluster.get(1), V3 + "/balance", "{}");
    assertThat(balancing.statusCode()).as(balancing.body()).isEqualTo(202);
    await("the balance done")
        .atMost(MOVE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                client
                    .getJson(cluster.get(1), V3 + "/balance")
                    .path("execution")
                    .path("state")
                    .asString()
                    .equals("done"));
    JsonNode after = client.getJson(cluster.get(1), V3 + "/balance");
    System.out.println("after the balance:\n" + after.path("text").asString());
    assertThat(after.path("balanced").booleanValue()).as(after.path("text").asString()).isTrue();
    assertThat(replicasOn(down, "skewed")).isBetween(3, 5); // 12 replicas on 3 brokers: about 4
    ReplicationChecks.awaitFullIsr(cluster, client, "skewed", 6, MOVE);
  }

  /**
   * A fourth broker joins the running cluster (a listener of the metadata quorum the voters were
   * not configured with): it registers with no partitions, and a balance under an {@code acks=all}
   * load moves a share of the replicas and leaders onto it. Then, under the same load, broker 1 (a
   * quorum voter) is retired: emptied by a balance that excludes it, stopped and unregistered,
   * leaving brokers 2-4 (the quorum runs on voters 2 and 3). Not one acknowledged record is lost.
   * Last in the class: the cluster is not the same afterwards.
   */
  @Test
  @Order(3)
  void aBrokerAddedUnderLoadTakesItsShareAndBroker1IsRetired() throws Exception {
    String topic = "growing";
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, 4, 2, Map.of("min.insync.replicas", "2"));
    ReplicationChecks.awaitFullIsr(cluster, client, topic, 4, MOVE);

    try (ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, 4, 19)) {
      await("records acknowledged before the new broker")
          .atMost(MOVE)
          .until(() -> history.acknowledgedSentAfter(Long.MIN_VALUE, 0) >= 20);
      BrokerProcess added = cluster.addListener();
      int id = added.brokerId();
      await("broker " + id + " registered and unfenced")
          .atMost(MOVE)
          .until(() -> "alive".equals(client.brokerStates().get(id)));
      assertThat(client.getJson(added, V3 + "/brokers").path("data").size()).isEqualTo(id);
      assertThat(replicasOn(id, topic)).isZero();

      balanceAndWait(cluster.get(1), "{}");
      long afterBalance = System.nanoTime();
      await("records acknowledged after the balance")
          .atMost(MOVE)
          .until(() -> history.acknowledgedSentAfter(afterBalance, 0) >= 10);
      // Every broker, the new one too, holds an even share of all replicas (within one): the
      // load's topic and those of the earlier tests.
      JsonNode after = client.getJson(cluster.get(1), V3 + "/balance");
      String text = after.path("text").asString();
      assertThat(after.path("balanced").booleanValue()).as(text).isTrue();
      List<Integer> counts = new ArrayList<>();
      after.path("brokers").forEach(b -> counts.add(b.path("replicas_before").asInt()));
      assertThat(counts).as(text).hasSize(4);
      assertThat(java.util.Collections.max(counts) - java.util.Collections.min(counts))
          .as(text)
          .isLessThanOrEqualTo(1);

      retireBroker1();
      long afterRetire = System.nanoTime();
      await("records acknowledged after broker 1 left")
          .atMost(MOVE)
          .until(() -> history.acknowledgedSentAfter(afterRetire, 0) >= 10);
    }
    ReplicationChecks.awaitFullIsr(cluster, client, topic, 4, MOVE);
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, 4));
    System.out.println(topic + ": " + result.summary());
    result.assertNoViolations();
  }

  /** Broker 1 emptied by a balance that excludes it, stopped, then unregistered. */
  private static void retireBroker1() throws Exception {
    BrokerProcess via = cluster.get(2);
    HttpResponse<String> running = client.send("DELETE", via, V3 + "/brokers/1", null);
    assertThat(running.statusCode()).as(running.body()).isEqualTo(400);
    balanceAndWait(via, "{\"exclude\":[1]}");
    for (JsonNode topic : client.getJson(via, V3 + "/topics").path("data")) {
      for (PartitionState p : client.partitions(topic.path("topic_name").asString())) {
        assertThat(p.replicas()).as(topic.path("topic_name") + ": " + p).doesNotContain(1);
      }
    }
    assertThat(cluster.get(1).stop()).isIn(0, 143);
    await("broker 1 fenced").atMost(MOVE).until(() -> "fenced".equals(states(via).get(1)));
    HttpResponse<String> unregistered = client.send("DELETE", via, V3 + "/brokers/1", null);
    assertThat(unregistered.statusCode()).as(unregistered.body()).isEqualTo(204);
    for (int b = 2; b <= 4; b++) {
      BrokerProcess seer = cluster.get(b);
      await("broker 1 gone from broker " + b + "'s metadata")
          .atMost(MOVE)
          .until(() -> !states(seer).containsKey(1));
    }
  }

  /** Starts a balance through {@code via} with {@code body} and waits until it is done. */
  private static void balanceAndWait(BrokerProcess via, String body) throws Exception {
    HttpResponse<String> balancing = client.send("POST", via, V3 + "/balance", body);
    assertThat(balancing.statusCode()).as(balancing.body()).isEqualTo(202);
    await("the balance " + body + " done")
        .atMost(MOVE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                client
                    .getJson(via, V3 + "/balance")
                    .path("execution")
                    .path("state")
                    .asString()
                    .equals("done"));
  }

  /** Each broker's state as {@code via}'s metadata shows it. */
  private static Map<Integer, String> states(BrokerProcess via) throws Exception {
    Map<Integer, String> states = new java.util.TreeMap<>();
    for (JsonNode b : client.getJson(via, V3 + "/brokers").path("data")) {
      states.put(b.path("broker_id").asInt(), b.path("state").asString());
    }
    return states;
  }

  private static int replicasOn(int broker, String topic) throws Exception {
    return (int)
        client.partitions(topic).stream().filter(p -> p.replicas().contains(broker)).count();
  }

  private static HttpResponse<String> reassign(String topic, int partition, List<Integer> target)
      throws Exception {
    return client.send(
        "POST",
        client.anyLive(),
        V3 + "/topics/" + topic + "/partitions/" + partition + "/reassignment",
        "{\"replicas\":" + target + "}");
  }

  /** Waits until the partition's replicas are {@code target} with no move in progress. */
  private static JsonNode awaitMoved(String topic, int partition, List<Integer> target) {
    JsonNode[] last = new JsonNode[1];
    await(topic + "-" + partition + " moved to " + target)
        .atMost(MOVE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              last[0] =
                  client.getJson(
                      client.anyLive(),
                      V3 + "/topics/" + topic + "/partitions/" + partition + "/reassignment");
              return !last[0].path("in_progress").booleanValue()
                  && ints(last[0].path("replica_ids")).equals(target);
            });
    return last[0];
  }

  private static int otherThan(List<Integer> replicas) {
    return cluster.all().stream()
        .map(BrokerProcess::brokerId)
        .filter(id -> !replicas.contains(id))
        .findFirst()
        .orElseThrow();
  }

  private static Path logDir(int broker, String topic, int partition) {
    return cluster.get(broker).dataDir().resolve("logs").resolve(topic + "-" + partition);
  }

  private static JsonNode find(JsonNode data, String topic) {
    for (JsonNode item : data) {
      if (item.path("topic_name").asString().equals(topic)) {
        return item;
      }
    }
    throw new AssertionError("no reassignment of " + topic + " in " + data);
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }
}
