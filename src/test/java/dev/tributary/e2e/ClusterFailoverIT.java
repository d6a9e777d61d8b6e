package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Three real broker processes form a cluster over the Raft metadata quorum. Any broker answers for
 * the cluster; killing the controller's process elects another that accepts admin requests; a dead
 * broker is fenced and gets no new partitions; a full restart forgets nothing.
 */
class ClusterFailoverIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  private static final String CLUSTER_ID = TestCluster.CLUSTER_ID;
  private final HttpClient http = HttpClient.newHttpClient();
  private final JsonMapper json = JsonMapper.builder().build();
  private TestCluster cluster;
  @TempDir Path tmp;

  @AfterEach
  void stopAll() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theClusterSurvivesLosingItsControllerAndAFullRestart() throws Exception {
    cluster = new TestCluster(tmp, e2e.logDir(), 3);
    cluster.startAll();
    Map<Integer, BrokerProcess> brokers =
        Map.of(1, cluster.get(1), 2, cluster.get(2), 3, cluster.get(3));

    // One cluster: every broker names the same controller and sees three live brokers.
    int controller = controllerSeenBy(cluster.get(1));
    for (BrokerProcess broker : brokers.values()) {
      assertThat(controllerSeenBy(broker)).isEqualTo(controller);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> brokerStates(broker).values().stream().allMatch("alive"::equals));
    }

    // Admin through any broker; data through any broker (forwarded to each partition's leader).
    BrokerProcess entry = brokers.get(controller == 1 ? 2 : 1);
    assertThat(createTopic(entry, "orders", 3, 3).statusCode()).isEqualTo(201);
    JsonNode partitions =
        get(brokers.get(3), "/v3/clusters/" + CLUSTER_ID + "/topics/orders/partitions");
    Set<Integer> leaders = new HashSet<>();
    for (JsonNode p : partitions.path("data")) {
      assertThat(p.path("replica_ids").size()).isEqualTo(3);
      leaders.add(p.path("leader_id").asInt());
    }
    assertThat(leaders).hasSize(3); // Kafka's placement spreads leaders
    HttpResponse<String> produced =
        post(
            entry,
            "/topics/orders",
            "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":2},"
                + "{\"key\":\"c\",\"value\":3},{\"key\":\"d\",\"value\":4}]}");
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    assertThat(produced.body())
        .doesNotContain("\"error_code\":4")
        .doesNotContain("\"error_code\":5");
    int readBack = 0;
    for (int p = 0; p < 3; p++) {
      readBack +=
          get(brokers.get(3), "/topics/orders/partitions/" + p + "/records?offset=0").size();
    }
    assertThat(readBack).isEqualTo(4);

    // Kill the controller's process: another broker becomes controller and accepts a topic
    // creation.
    long killedAtNanos = System.nanoTime();
    brokers.get(controller).kill();
    BrokerProcess survivor = brokers.get(controller == 3 ? 2 : 3);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> createTopic(survivor, "after-failover", 1, 1).statusCode() == 201);
    long failoverMs = (System.nanoTime() - killedAtNanos) / 1_000_000;
    int newController = controllerSeenBy(survivor);
    assertThat(newController).isNotEqualTo(controller);
    System.out.println(
        "controller failover: broker "
            + controller
            + " -> "
            + newController
            + " in "
            + failoverMs
            + " ms");
    assertThat(topics(survivor)).contains("orders", "after-failover");

    // The dead broker is fenced after its session; a topic created now is placed on live brokers
    // only.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "fenced".equals(brokerStates(survivor).get(controller)));
    assertThat(createTopic(survivor, "while-down", 4, 2).statusCode()).isEqualTo(201);
    for (JsonNode p :
        get(survivor, "/v3/clusters/" + CLUSTER_ID + "/topics/while-down/partitions")
            .path("data")) {
      List<Integer> replicas = new ArrayList<>();
      p.path("replica_ids").forEach(r -> replicas.add(r.asInt()));
      assertThat(replicas).doesNotContain(controller).hasSize(2);
    }
    assertThat(createTopic(survivor, "too-wide", 1, 3).statusCode()).isEqualTo(422);

    // The killed broker comes back on its data and is unfenced again.
    cluster.restart(controller);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> brokerStates(survivor).values().stream().allMatch("alive"::equals));

    // A full restart keeps every topic.
    cluster.stopAll();
    cluster.startAll();
    assertThat(topics(cluster.get(1))).contains("orders", "after-failover", "while-down");
    int afterRestart = 0;
    for (int p = 0; p < 3; p++) {
      int partition = p;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  getStatus(
                          cluster.get(2),
                          "/topics/orders/partitions/" + partition + "/records?offset=0")
                      == 200);
      afterRestart +=
          get(cluster.get(2), "/topics/orders/partitions/" + p + "/records?offset=0").size();
    }
    assertThat(afterRestart).isEqualTo(4);
  }

  private int controllerSeenBy(BrokerProcess broker) throws IOException, InterruptedException {
    return get(broker, "/v3/clusters/" + CLUSTER_ID).path("controller_id").asInt();
  }

  private Map<Integer, String> brokerStates(BrokerProcess broker)
      throws IOException, InterruptedException {
    Map<Integer, String> states = new LinkedHashMap<>();
    for (JsonNode b : get(broker, "/v3/clusters/" + CLUSTER_ID + "/brokers").path("data")) {
      states.put(b.path("broker_id").asInt(), b.path("state").asString());
    }
    return states;
  }

  private List<String> topics(BrokerProcess broker) throws IOException, InterruptedException {
    List<String> names = new ArrayList<>();
    get(broker, "/topics").forEach(n -> names.add(n.asString()));
    return names;
  }

  private HttpResponse<String> createTopic(
      BrokerProcess broker, String name, int partitions, int rf)
      throws IOException, InterruptedException {
    return post(
        broker,
        "/v3/clusters/" + CLUSTER_ID + "/topics",
        "{\"topic_name\":\""
            + name
            + "\",\"partitions_count\":"
            + partitions
            + ",\"replication_factor\":"
            + rf
            + "}");
  }

  private HttpResponse<String> post(BrokerProcess broker, String path, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(broker.url(path)))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode get(BrokerProcess broker, String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(broker.url(path)))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + " -> " + response.body()).isEqualTo(200);
    return json.readTree(response.body());
  }

  private int getStatus(BrokerProcess broker, String path)
      throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(broker.url(path)))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
