package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * The cluster {@link HostsClusterIT} shares across its scenarios (a {@link TestNetwork}, the {@link
 * TestCluster} on its hosts and a {@link ClusterClient} in the root namespace), and the waits,
 * views and actions its scenarios have in common. {@link #produceTo} may run on another thread (a
 * probe overlapping a wait); the rest is for the test's thread.
 */
final class HostsClusterSupport {
  /** How long a fault may take to be noticed and worked around (fence, election). */
  static final Duration FAILOVER = Duration.ofSeconds(30);

  /** How long the cluster may take to be whole again once a fault is gone. */
  static final Duration HEAL = Duration.ofSeconds(60);

  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;

  final TestNetwork network;
  final TestCluster cluster;
  final ClusterClient client;

  /** Brokers whose fetching a scenario paused for long, to be resumed whatever it left. */
  private final Set<Integer> pausedFetching = new TreeSet<>();

  HostsClusterSupport(TestNetwork network, TestCluster cluster) {
    this.network = network;
    this.cluster = cluster;
    this.client = new ClusterClient(cluster);
  }

  void awaitFullIsr(String topic, int partitions) {
    ReplicationChecks.awaitFullIsr(cluster, client, topic, partitions, HEAL);
  }

  void awaitAcknowledged(
      HistoryChecker history, String topic, int partition, long sinceNanos, int count) {
    await(count + " records acknowledged on " + topic + "-" + partition)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> history.acknowledgedSentAfter(sinceNanos, partition) >= count);
  }

  /**
   * Waits until broker {@code brokerId} itself leads {@code topic}-{@code partition} (its own
   * replica says so). Another broker's metadata may name the new leader a few milliseconds before
   * the new leader has applied the same change; a produce sent to it in between is forwarded to the
   * old leader, which a cut leaves unanswered.
   */
  void awaitLeads(int brokerId, String topic, int partition) {
    await("broker " + brokerId + " itself leading " + topic + "-" + partition)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                client
                    .localReplica(cluster.get(brokerId), topic, partition)
                    .map(ClusterClient.LocalReplica::leader)
                    .orElse(false));
  }

  /** The active controller as {@code via}'s own metadata shows it (-1: none known). */
  int controllerSeenBy(BrokerProcess via) throws Exception {
    return client.getJson(via, V3).path("controller_id").asInt();
  }

  /** The active controller if every running broker sees the same one; empty otherwise. */
  Optional<Integer> controllerAgreedOn() throws Exception {
    Set<Integer> seen = new TreeSet<>();
    for (BrokerProcess via : cluster.all()) {
      seen.add(controllerSeenBy(via));
    }
    return seen.size() == 1 && seen.iterator().next() >= 0
        ? Optional.of(seen.iterator().next())
        : Optional.empty();
  }

  /** Each broker's state ("alive", "fenced", ...) as {@code via}'s own metadata shows it. */
  Map<Integer, String> brokerStates(BrokerProcess via) throws Exception {
    Map<Integer, String> states = new LinkedHashMap<>();
    for (JsonNode b : client.getJson(via, V3 + "/brokers").path("data")) {
      states.put(b.path("broker_id").asInt(), b.path("state").asString());
    }
    return states;
  }

  /** An answer to an HTTP request: status, body, and how long it took. */
  record Answer(int status, String body, long millis) {
    @Override
    public String toString() {
      return status + " after " + millis + " ms: " + body;
    }
  }

  /**
   * Asks {@code via} to create {@code topic} ({@code POST /v3/clusters/{id}/topics}), once, with no
   * retry; unchecked, so that it can run in a {@code CompletableFuture}.
   */
  Answer createTopicVia(BrokerProcess via, String topic, int partitions, int replicationFactor) {
    String body =
        "{\"topic_name\":\""
            + topic
            + "\",\"partitions_count\":"
            + partitions
            + ",\"replication_factor\":"
            + replicationFactor
            + "}";
    long sentNanos = System.nanoTime();
    try {
      HttpResponse<String> response = client.send("POST", via, V3 + "/topics", body);
      return new Answer(
          response.statusCode(), response.body(), (System.nanoTime() - sentNanos) / 1_000_000);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "POST topics " + topic + " to broker " + via.brokerId() + ": no answer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code topic} as {@code via}'s own metadata shows it: its partition count, or 0 if none. */
  int partitionsSeenBy(BrokerProcess via, String topic) throws Exception {
    HttpResponse<String> response = client.send("GET", via, V3 + "/topics/" + topic, null);
    if (response.statusCode() == 404) {
      return 0;
    }
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return client.json.readTree(response.body()).path("partitions_count").asInt();
  }

  /**
   * One {@code acks=all} batch to {@code partition} sent straight to {@code via}, recorded in
   * {@code history} whatever the answer; its values.
   */
  List<String> produceTo(HistoryChecker history, BrokerProcess via, String topic, int partition) {
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < ProducerLoad.RECORDS_PER_BATCH; i++) {
      keys.add("probe" + i);
      values.add(history.nextValue());
      body.append(i == 0 ? "" : ",");
      body.append("{\"key\":\"probe").append(i).append("\",\"value\":\"");
      body.append(values.get(i)).append("\"}");
    }
    body.append("]}");
    long sentNanos = System.nanoTime();
    try {
      String path = "/topics/" + topic + "/partitions/" + partition + "?acks=all";
      history.record(
          keys, values, partition, sentNanos, client.send("POST", via, path, body.toString()));
    } catch (Exception e) {
      history.record(keys, values, partition, sentNanos, e);
    }
    return values;
  }

  /**
   * Pauses broker {@code brokerId}'s replica fetching for {@code seconds} (the dashboard's action);
   * a pause longer than 1 s is remembered so that {@link #resumePausedFetching} can end it.
   */
  void pauseFetching(int brokerId, int seconds) throws Exception {
    if (seconds > 1) {
      pausedFetching.add(brokerId);
    }
    HttpResponse<String> paused =
        client.send(
            "POST",
            cluster.get(brokerId),
            "/dashboard/actions/brokers/" + brokerId + "/pause-fetching",
            "{\"seconds\":" + seconds + "}");
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(202);
  }

  /**
   * Ends the long pauses of fetching a scenario left behind (a test that failed midway must not
   * leave them for the next one).
   */
  void resumePausedFetching() throws Exception {
    for (int id : pausedFetching) {
      if (cluster.get(id).isAlive() && !cluster.get(id).isPaused()) {
        pauseFetching(id, 1); // a pause of 1 s replaces the long one
      }
    }
    pausedFetching.clear();
  }

  /** The local addresses of the TCP sockets listening in namespace {@code netns}. */
  static List<String> listeningAddresses(String netns) throws Exception {
    Process ss = new ProcessBuilder("ss", "-N", netns, "-Hltn").redirectErrorStream(true).start();
    String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ss.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ss.exitValue()).as(out).isZero();
    List<String> addresses = new ArrayList<>();
    for (String line : out.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length >= 4) {
        // An IPv4 address on a dual-stack Java socket shows as [::ffff:a.b.c.d]:port.
        addresses.add(fields[3].replace("[::ffff:", "").replace("]", ""));
      }
    }
    return new TreeSet<>(addresses).stream().toList();
  }
}
