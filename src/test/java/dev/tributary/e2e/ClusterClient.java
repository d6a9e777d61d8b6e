package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP calls the end-to-end tests make, on the public API as any user would, against one {@link
 * TestCluster}.
 */
final class ClusterClient {
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;

  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  final JsonMapper json = JsonMapper.builder().build();
  private final TestCluster cluster;
  private final String token;

  ClusterClient(TestCluster cluster) {
    this(cluster, null);
  }

  /** A client that sends {@code token} as its API key (client authentication on). */
  ClusterClient(TestCluster cluster, String token) {
    this.cluster = cluster;
    this.token = token;
  }

  /** Adds this client's credentials, if any, to {@code request}. */
  HttpRequest.Builder authorize(HttpRequest.Builder request) {
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  /** One partition as the v3 API shows it. */
  record PartitionState(
      int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr) {}

  /** One replica a broker hosts, as its own {@code /dashboard/state?scope=local} shows it. */
  record LocalReplica(
      int broker,
      String topic,
      int partition,
      boolean leader,
      int leaderEpoch,
      long logStartOffset,
      long highWatermark,
      long logEndOffset,
      String statusLine) {}

  HttpResponse<String> send(String method, BrokerProcess broker, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(broker.url(path)))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json");
    authorize(request);
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  JsonNode getJson(BrokerProcess broker, String path) throws IOException, InterruptedException {
    HttpResponse<String> response = send("GET", broker, path, null);
    assertThat(response.statusCode())
        .as("GET " + path + " on broker " + broker.brokerId() + " -> " + response.body())
        .isEqualTo(200);
    return json.readTree(response.body());
  }

  /** A broker that will answer (running, not SIGSTOPped), the lowest id first. */
  BrokerProcess anyLive() {
    return cluster.all().stream()
        .filter(BrokerProcess::isServing)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no broker is running"));
  }

  /**
   * Creates a topic (through any live broker, retrying while no controller is elected), bounded.
   */
  void createTopic(
      String name, int partitions, int replicationFactor, Map<String, String> configs) {
    StringBuilder body =
        new StringBuilder(
            "{\"topic_name\":\""
                + name
                + "\",\"partitions_count\":"
                + partitions
                + ",\"replication_factor\":"
                + replicationFactor
                + ",\"configs\":[");
    String separator = "";
    for (Map.Entry<String, String> config : configs.entrySet()) {
      body.append(separator)
          .append("{\"name\":\"")
          .append(config.getKey())
          .append("\",\"value\":\"")
          .append(config.getValue())
          .append("\"}");
      separator = ",";
    }
    body.append("]}");
    await("topic " + name + " created")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              HttpResponse<String> response =
                  send("POST", anyLive(), V3 + "/topics", body.toString());
              assertThat(response.statusCode()).as(response.body()).isIn(201, 421, 503);
              return response.statusCode() == 201;
            });
  }

  List<PartitionState> partitions(String topic) throws IOException, InterruptedException {
    return partitions(anyLive(), topic);
  }

  PartitionState partition(String topic, int partition) throws IOException, InterruptedException {
    return partitions(topic).stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow();
  }

  /**
   * One partition as {@code via}'s own metadata image shows it (answered locally; not forwarded).
   */
  PartitionState partition(BrokerProcess via, String topic, int partition)
      throws IOException, InterruptedException {
    return partitions(via, topic).stream()
        .filter(p -> p.partition() == partition)
        .findFirst()
        .orElseThrow();
  }

  private List<PartitionState> partitions(BrokerProcess via, String topic)
      throws IOException, InterruptedException {
    List<PartitionState> states = new ArrayList<>();
    for (JsonNode p : getJson(via, V3 + "/topics/" + topic + "/partitions").path("data")) {
      states.add(
          new PartitionState(
              p.path("partition_id").asInt(),
              p.path("leader_id").asInt(),
              p.path("leader_epoch").asInt(),
              ints(p.path("replica_ids")),
              ints(p.path("isr_ids"))));
    }
    return states;
  }

  int controllerId() throws IOException, InterruptedException {
    return getJson(anyLive(), V3).path("controller_id").asInt();
  }

  Map<Integer, String> brokerStates() throws IOException, InterruptedException {
    Map<Integer, String> states = new LinkedHashMap<>();
    for (JsonNode b : getJson(anyLive(), V3 + "/brokers").path("data")) {
      states.put(b.path("broker_id").asInt(), b.path("state").asString());
    }
    return states;
  }

  /**
   * The replicas of {@code topic} that {@code broker} hosts, from its own view (not forwarded
   * anywhere).
   */
  List<LocalReplica> localReplicas(BrokerProcess broker, String topic)
      throws IOException, InterruptedException {
    List<LocalReplica> replicas = new ArrayList<>();
    for (JsonNode p : getJson(broker, "/dashboard/state?scope=local").path("partitions")) {
      if (!p.path("topic").asString().equals(topic)) {
        continue;
      }
      JsonNode offsets = p.path("offsets");
      replicas.add(
          new LocalReplica(
              broker.brokerId(),
              topic,
              p.path("partition").asInt(),
              p.path("leader").asBoolean(),
              p.path("leader_epoch").asInt(),
              offsets.path("log_start_offset").asLong(),
              offsets.path("high_watermark").asLong(),
              offsets.path("log_end_offset").asLong(),
              offsets.path("status_line").asString()));
    }
    return replicas;
  }

  Optional<LocalReplica> localReplica(BrokerProcess broker, String topic, int partition)
      throws IOException, InterruptedException {
    return localReplicas(broker, topic).stream()
        .filter(r -> r.partition() == partition)
        .findFirst();
  }

  /**
   * Every record of a partition up to its high watermark, read from offset 0 through {@code broker}
   * (which relays to the leader): offset → value (the JSON value as text), in the order served.
   */
  List<HistoryChecker.Entry> readPartition(BrokerProcess broker, String topic, int partition)
      throws IOException, InterruptedException {
    List<HistoryChecker.Entry> records = new ArrayList<>();
    long offset = 0;
    while (true) {
      String path =
          "/topics/"
              + topic
              + "/partitions/"
              + partition
              + "/records?offset="
              + offset
              + "&max_bytes=1048576";
      JsonNode page = getJson(broker, path);
      if (page.isEmpty()) {
        return records;
      }
      for (JsonNode record : page) {
        long at = record.path("offset").asLong();
        records.add(new HistoryChecker.Entry(at, record.path("value").asString()));
        offset = at + 1;
      }
    }
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> values = new ArrayList<>();
    array.forEach(n -> values.add(n.asInt()));
    return values;
  }
}
