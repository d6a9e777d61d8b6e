package dev.tributary.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * A REST Proxy v2 consumer instance (binary format, commits by hand) in a group, polled on a thread
 * of its own as a curl user would: read records, count them into a map the group shares, commit
 * what was returned, ask for the assignment. Any answer but the expected status stops it, kept for
 * the test to report.
 */
final class RestConsumerThread implements AutoCloseable {
  private static final String V2 = "application/vnd.kafka.v2+json";
  private static final String BINARY = "application/vnd.kafka.binary.v2+json";

  private final ClusterClient client;
  private final String name;
  private final String instancePath;
  private final BrokerProcess broker;
  private final Map<String, Integer> consumed;
  private final Set<Integer> partitionsRead = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private volatile Set<Integer> assignment = Set.of();
  private volatile Throwable failure;
  private volatile boolean stopping;

  /** Creates the instance on {@code broker} and subscribes it to {@code topic}. */
  RestConsumerThread(
      ClusterClient client,
      BrokerProcess broker,
      String group,
      String name,
      String topic,
      Map<String, Integer> consumed)
      throws IOException, InterruptedException {
    this.client = client;
    this.broker = broker;
    this.name = name;
    this.consumed = consumed;
    this.instancePath = "/consumers/" + group + "/instances/" + name;
    expect(
        200,
        "POST",
        "/consumers/" + group,
        "{\"name\":\""
            + name
            + "\",\"format\":\"binary\",\"auto.offset.reset\":\"earliest\","
            + "\"auto.commit.enable\":\"false\",\"session.timeout.ms\":\"6000\","
            + "\"heartbeat.interval.ms\":\"500\"}");
    expect(204, "POST", instancePath + "/subscription", "{\"topics\":[\"" + topic + "\"]}");
    this.thread = new Thread(this::run, "rest-consumer-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    try {
      while (!stopping) {
        JsonNode records =
            client.json.readTree(
                expect(200, "GET", instancePath + "/records?timeout=200", null).body());
        for (JsonNode record : records) {
          String value =
              new String(
                  Base64.getDecoder().decode(record.path("value").asString()),
                  StandardCharsets.UTF_8);
          consumed.merge(value, 1, Integer::sum);
          partitionsRead.add(record.path("partition").asInt());
        }
        if (!records.isEmpty()) {
          expect(200, "POST", instancePath + "/offsets", null); // everything returned so far
        }
        Set<Integer> held = new HashSet<>();
        client
            .json
            .readTree(expect(200, "GET", instancePath + "/assignments", null).body())
            .path("partitions")
            .forEach(p -> held.add(p.path("partition").asInt()));
        assignment = Set.copyOf(held);
      }
    } catch (Throwable e) {
      failure = e;
    }
  }

  private HttpResponse<String> expect(int status, String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(broker.url(path)))
            .timeout(ClusterClient.REQUEST_TIMEOUT)
            .header("Content-Type", V2)
            .header("Accept", path.contains("/records") ? BINARY : V2)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response = client.http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != status) {
      throw new AssertionError(
          method
              + " "
              + path
              + " on broker "
              + broker.brokerId()
              + ": "
              + response.statusCode()
              + " "
              + response.body());
    }
    return response;
  }

  /** The partitions the group gave it, as of its last poll. */
  Set<Integer> assignment() {
    return assignment;
  }

  Set<Integer> partitionsRead() {
    return Set.copyOf(partitionsRead);
  }

  void assertHealthy() {
    if (failure != null) {
      throw new AssertionError("REST consumer " + name + " failed", failure);
    }
  }

  /** Stops polling and deletes the instance (it leaves the group at once). */
  @Override
  public void close() throws IOException, InterruptedException {
    stopping = true;
    thread.join(Duration.ofSeconds(30).toMillis());
    expect(204, "DELETE", instancePath, null);
  }
}
