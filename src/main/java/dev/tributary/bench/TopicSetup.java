package dev.tributary.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Creates the benchmark topic through the v3 API if it is missing, and checks its partitions
 * answer.
 */
final class TopicSetup {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient client;
  private final PrintStream out;
  private final Duration timeout;

  TopicSetup(HttpClient client, PrintStream out) {
    this(client, out, TIMEOUT);
  }

  /**
   * {@code timeout} bounds each request (a paused broker accepts connections but never answers).
   */
  TopicSetup(HttpClient client, PrintStream out, Duration timeout) {
    this.client = client;
    this.out = out;
    this.timeout = timeout;
  }

  void ensureTopic(URI base, String topic, int partitions)
      throws IOException, InterruptedException {
    ensureTopic(base, topic, partitions, 1, 1);
  }

  /**
   * Creates {@code topic} with these settings unless it exists (an existing topic is used as it
   * is).
   */
  void ensureTopic(
      URI base, String topic, int partitions, int replicationFactor, int minInsyncReplicas)
      throws IOException, InterruptedException {
    String clusterId = clusterId(base);
    ObjectNode request = Responses.JSON.createObjectNode();
    request
        .put("topic_name", topic)
        .put("partitions_count", partitions)
        .put("replication_factor", replicationFactor);
    request
        .putArray("configs")
        .addObject()
        .put("name", "min.insync.replicas")
        .put("value", String.valueOf(minInsyncReplicas));
    HttpResponse<String> created =
        client.send(
            BenchAuth.apply(HttpRequest.newBuilder(BenchUrls.topics(base, clusterId)))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(request.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    int status = created.statusCode();
    if (status / 100 == 2) {
      out.printf(
          "created topic %s with %d partitions, replication factor %d, min.insync.replicas %d%n",
          topic, partitions, replicationFactor, minInsyncReplicas);
    } else if (status == 409 || created.body().toLowerCase().contains("exist")) {
      out.printf("topic %s exists%n", topic);
    } else {
      out.printf(
          "warning: creating topic %s answered HTTP %d: %s%n",
          topic, status, Responses.abbreviate(created.body()));
    }
    for (int p = 0; p < partitions; p++) {
      HttpResponse<String> offsets = get(BenchUrls.offsets(base, topic, p));
      if (offsets.statusCode() != 200) {
        throw new BenchException(
            "partition "
                + p
                + " of topic "
                + topic
                + " is not available (HTTP "
                + offsets.statusCode()
                + ": "
                + Responses.abbreviate(offsets.body())
                + "); does the topic exist with fewer partitions?");
      }
    }
  }

  /** Each partition's leader as a base URL, and every broker's, from one broker's metadata. */
  record Routes(URI[] leaders, List<URI> brokers) {}

  /**
   * Each partition's leader as a base URL, as a Kafka client sends each batch straight to its
   * partition's leader (from its metadata) rather than through one broker that forwards it. A
   * partition without a leader, or a broker whose address is unknown, keeps {@code base} (that
   * broker forwards or refuses).
   *
   * @throws BenchException if {@code base} answers with an error
   */
  Routes routes(URI base, String topic, int partitions) throws IOException, InterruptedException {
    URI[] targets = new URI[partitions];
    java.util.Arrays.fill(targets, base);
    String cluster =
        BenchUrls.clusters(base)
            + "/"
            + java.net.URLEncoder.encode(clusterId(base), java.nio.charset.StandardCharsets.UTF_8);
    java.util.Map<Integer, URI> brokers = new java.util.LinkedHashMap<>();
    for (JsonNode b : getJson(URI.create(cluster + "/brokers")).path("data")) {
      brokers.put(
          b.path("broker_id").asInt(),
          URI.create("http://" + b.path("host").asString() + ":" + b.path("port").asInt()));
    }
    JsonNode parts = getJson(URI.create(cluster + "/topics/" + topic + "/partitions"));
    for (JsonNode p : parts.path("data")) {
      int partition = p.path("partition_id").asInt(-1);
      URI leader = brokers.get(p.path("leader_id").asInt(-1));
      if (partition >= 0 && partition < partitions && leader != null) {
        targets[partition] = leader;
      }
    }
    return new Routes(targets, List.copyOf(brokers.values()));
  }

  /** The cluster id {@code base} reports; refused if it answers an error or names none. */
  private String clusterId(URI base) throws IOException, InterruptedException {
    JsonNode clusters = getJson(BenchUrls.clusters(base));
    String clusterId = clusters.path("data").path(0).path("cluster_id").asString();
    if (clusterId == null || clusterId.isEmpty()) {
      throw new BenchException(
          "no cluster_id in GET /v3/clusters: " + Responses.abbreviate(clusters.toString()));
    }
    return clusterId;
  }

  private JsonNode getJson(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response = get(uri);
    if (response.statusCode() != 200) {
      throw new BenchException(
          "GET "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + ": "
              + Responses.abbreviate(response.body()));
    }
    return Responses.JSON.readTree(response.body());
  }

  /** Beginning and end offsets of one partition. */
  record Offsets(long beginningOffset, long endOffset) {}

  Offsets offsets(URI base, String topic, int partition) throws IOException, InterruptedException {
    HttpResponse<String> response = get(BenchUrls.offsets(base, topic, partition));
    if (response.statusCode() != 200) {
      throw new BenchException(
          "GET offsets of "
              + topic
              + "-"
              + partition
              + " answered HTTP "
              + response.statusCode()
              + ": "
              + Responses.abbreviate(response.body()));
    }
    JsonNode body = Responses.JSON.readTree(response.body());
    return new Offsets(body.path("beginning_offset").asLong(0), body.path("end_offset").asLong(0));
  }

  private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return client.send(
        BenchAuth.apply(HttpRequest.newBuilder(uri))
            .timeout(timeout)
            .header("Accept", "application/json")
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
