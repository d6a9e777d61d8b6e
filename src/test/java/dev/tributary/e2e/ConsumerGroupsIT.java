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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Consumer groups on three real brokers, through the REST Proxy consumer API as a curl user drives
 * it, under an {@code acks=all} produce load: three consumers (one per broker) share six
 * partitions; a fourth joins and they rebalance; one stops polling and its partitions move to the
 * others; the coordinator's broker is SIGKILLed and the group goes on with its committed offsets
 * intact; a second group reads every record again. Throughout, each consumer commits only after it
 * has processed what it read, and at the end every acknowledged record must have been processed by
 * each group at least once; within one generation no partition may be delivered to two members.
 *
 * <p>Client authentication is on, as in the Docker image: the consumers use an API key of their own
 * principal, which holds only READ grants on the topic and on groups prefixed {@code g} (made over
 * the v3 API on one broker, enforced by all three, also on calls relayed between them).
 */
class ConsumerGroupsIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  private static final String TOPIC = "orders";
  private static final int PARTITIONS = 6;
  private static final String V2 = "application/vnd.kafka.v2+json";
  private static final String JSON_RECORDS = "application/vnd.kafka.json.v2+json";
  private static final String GENERATION_HEADER = "X-Tributary-Group-Generation";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final JsonMapper json = JsonMapper.builder().build();
  private final List<Reader> readers = new CopyOnWriteArrayList<>();
  private TestCluster cluster;
  private String consumerToken;
  @TempDir Path tmp;

  @AfterEach
  void stopAll() throws InterruptedException {
    readers.forEach(Reader::stop);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void groupsSplitPartitionsRebalanceAndKeepTheirOffsetsWhenTheCoordinatorDies() throws Exception {
    List<String> args = new ArrayList<>(TestCluster.SECURITY_ON);
    args.add("--tributary.group.initial-rebalance-delay-ms=0");
    cluster = new TestCluster(tmp, e2e.logDir(), 3, args);
    cluster.startAll();
    ClusterClient client = new ClusterClient(cluster, TestCluster.ADMIN_TOKEN);
    client.createTopic(TOPIC, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
    consumerToken = readOnlyKey(client);
    // The key and its grants reach every broker with the metadata log.
    for (int b = 1; b <= 3; b++) {
      BrokerProcess broker = cluster.get(b);
      await("the consumers' key on broker " + b)
          .atMost(Duration.ofSeconds(10))
          .until(() -> send("GET", broker, "/v3/whoami", null, null).statusCode() == 200);
    }
    HttpResponse<String> refused =
        send("POST", cluster.get(2), "/topics/" + TOPIC, "{\"records\":[{\"value\":1}]}", null);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
    HistoryChecker history = new HistoryChecker(TOPIC);
    ProducerLoad load = ProducerLoad.start(cluster, client, history, TOPIC, PARTITIONS, 8);

    // Three consumers of group g, one on each broker, split the six partitions.
    Map<String, Long> processedByG = new ConcurrentHashMap<>();
    List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    Map<Integer, Long> committed = new ConcurrentHashMap<>();
    for (int b = 1; b <= 3; b++) {
      readers.add(
          new Reader("c" + b, "g", cluster.get(b), processedByG, deliveries, committed).start());
    }
    awaitAssignmentsCover(readers, "three consumers share the partitions");

    // A fourth joins: all four get partitions, none shared.
    Reader fourth =
        new Reader("c4", "g", cluster.get(1), processedByG, deliveries, committed).start();
    readers.add(fourth);
    awaitAssignmentsCover(readers, "four consumers after the fourth joined");

    // It stops polling: after its session timeout it is out, and the other three hold everything.
    long stoppedNanos = System.nanoTime();
    fourth.pausePolling();
    List<Reader> others = readers.stream().filter(r -> r != fourth).toList();
    awaitAssignmentsCover(others, "the other three after c4 stopped polling");
    System.out.println(
        "partitions of a consumer that stopped polling moved in "
            + (System.nanoTime() - stoppedNanos) / 1_000_000
            + " ms (session.timeout.ms=6000, heartbeat.interval.ms=500)");
    fourth.stop();
    readers.remove(fourth);

    // Kill the coordinator's broker. Its consumers die with it; the rest go on, and every commit
    // acknowledged before the kill is still there.
    int coordinator = coordinatorOf("g");
    Map<Integer, Long> committedBeforeKill = new TreeMap<>(committed);
    assertThat(committedBeforeKill).as("commits before the kill").isNotEmpty();
    long killedNanos = System.nanoTime();
    cluster.get(coordinator).kill();
    readers.stream().filter(r -> r.broker.brokerId() == coordinator).forEach(Reader::stop);
    List<Reader> survivors =
        readers.stream().filter(r -> r.broker.brokerId() != coordinator).toList();
    awaitAssignmentsCover(survivors, "the survivors after the coordinator's broker was killed");
    System.out.println(
        "coordinator failover (broker "
            + coordinator
            + " SIGKILLed → group stable on broker "
            + coordinatorOf("g")
            + "): "
            + (System.nanoTime() - killedNanos) / 1_000_000
            + " ms");
    Map<Integer, Long> afterKill = committedOffsets("g");
    committedBeforeKill.forEach(
        (partition, offset) ->
            assertThat(afterKill.getOrDefault(partition, -1L))
                .as("committed offset of %s-%d after the coordinator died", TOPIC, partition)
                .isGreaterThanOrEqualTo(offset));

    // Stop producing; the survivors read to the end. Every acknowledged record was processed.
    load.close();
    Set<String> acknowledged = acknowledgedValues(history);
    assertThat(acknowledged).isNotEmpty();
    await("group g processes every acknowledged record")
        .atMost(Duration.ofSeconds(60))
        .until(() -> processedByG.keySet().containsAll(acknowledged));

    // A second group reads everything again, on its own.
    Map<String, Long> processedByG2 = new ConcurrentHashMap<>();
    BrokerProcess live = survivors.get(0).broker;
    readers.add(
        new Reader(
                "solo",
                "g2",
                live,
                processedByG2,
                new CopyOnWriteArrayList<>(),
                new ConcurrentHashMap<>())
            .start());
    await("group g2 processes every acknowledged record")
        .atMost(Duration.ofSeconds(60))
        .until(() -> processedByG2.keySet().containsAll(acknowledged));

    // Within one generation, each partition went to one member only.
    Map<String, Set<String>> membersByGenerationAndPartition = new HashMap<>();
    for (Delivery d : deliveries) {
      membersByGenerationAndPartition
          .computeIfAbsent(d.generation + "/" + d.partition, k -> new HashSet<>())
          .add(d.consumer);
    }
    assertThat(membersByGenerationAndPartition)
        .as("members that received one partition in one generation")
        .allSatisfy((key, members) -> assertThat(members).as(key).hasSize(1));
    long duplicates = processedByG.values().stream().filter(count -> count > 1).count();
    System.out.println(
        acknowledged.size()
            + " acknowledged records, all processed by both groups; "
            + duplicates
            + " processed twice by group g (redelivered after a rebalance before their commit), "
            + membersByGenerationAndPartition.size()
            + " (generation, partition) pairs");
  }

  /**
   * Waits until every reader holds some partitions and together they hold each partition exactly
   * once.
   */
  private void awaitAssignmentsCover(List<Reader> group, String what) {
    await(what)
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              List<Integer> all = new ArrayList<>();
              for (Reader r : group) {
                List<Integer> held = r.assignment();
                if (held.isEmpty()) {
                  return false;
                }
                all.addAll(held);
              }
              return all.size() == PARTITIONS && new HashSet<>(all).size() == PARTITIONS;
            });
  }

  private BrokerProcess anyServing() {
    return cluster.all().stream().filter(BrokerProcess::isServing).findFirst().orElseThrow();
  }

  private int coordinatorOf(String group) throws IOException, InterruptedException {
    JsonNode g =
        getJson(
            anyServing(), "/v3/clusters/" + TestCluster.CLUSTER_ID + "/consumer-groups/" + group);
    return g.path("coordinator_id").asInt();
  }

  /** The group's committed offsets, from its coordinator (retried while it moves). */
  private Map<Integer, Long> committedOffsets(String group) {
    Map<Integer, Long> out = new TreeMap<>();
    await("committed offsets of " + group)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              JsonNode lags =
                  getJson(
                      anyServing(),
                      "/v3/clusters/"
                          + TestCluster.CLUSTER_ID
                          + "/consumer-groups/"
                          + group
                          + "/lags");
              out.clear();
              for (JsonNode row : lags.path("data")) {
                if (!row.path("current_offset").isNull()) {
                  out.put(row.path("partition_id").asInt(), row.path("current_offset").asLong());
                }
              }
              return true;
            });
    return out;
  }

  /**
   * An API key for User:orders-app that may read the topic and use groups prefixed "g", and nothing
   * else; made on broker 1, used on all three.
   */
  private String readOnlyKey(ClusterClient admin) throws IOException, InterruptedException {
    String v3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;
    HttpResponse<String> key =
        admin.send("POST", cluster.get(1), v3 + "/api-keys", "{\"principal\":\"User:orders-app\"}");
    assertThat(key.statusCode()).as(key.body()).isEqualTo(201);
    for (String acl :
        List.of(
            "{\"principal\":\"User:orders-app\",\"operation\":\"READ\",\"resource_type\":\"TOPIC\",\"resource_name\":\""
                + TOPIC
                + "\"}",
            "{\"principal\":\"User:orders-app\",\"operation\":\"READ\",\"resource_type\":\"GROUP\",\"pattern_type\":\"PREFIXED\",\"resource_name\":\"g\"}")) {
      HttpResponse<String> created = admin.send("POST", cluster.get(1), v3 + "/acls", acl);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }
    return json.readTree(key.body()).get("token").stringValue();
  }

  private JsonNode getJson(BrokerProcess broker, String path)
      throws IOException, InterruptedException {
    HttpResponse<String> response = send("GET", broker, path, null, null);
    assertThat(response.statusCode()).as(path + " → " + response.body()).isEqualTo(200);
    return json.readTree(response.body());
  }

  private HttpResponse<String> send(
      String method, BrokerProcess broker, String path, String body, String accept)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(broker.url(path)))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", V2)
            .header("Authorization", "Bearer " + consumerToken)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Set<String> acknowledgedValues(HistoryChecker history) {
    Set<String> values = new HashSet<>();
    for (HistoryChecker.Op op : history.ops()) {
      if (op.outcome() == HistoryChecker.Outcome.OK) {
        values.add(op.value());
      }
    }
    return values;
  }

  /** One record handed to a consumer, and the generation it was handed out in. */
  private record Delivery(String consumer, int generation, int partition, long offset) {}

  /**
   * A curl-style consumer: creates its instance, subscribes, then polls, "processes" what it got
   * (counts each value) and commits the offsets of what it processed, until stopped. Its broker
   * dying ends it.
   */
  private final class Reader {
    final String name;
    final String group;
    final BrokerProcess broker;
    final Map<String, Long> processed;
    final List<Delivery> deliveries;
    final Map<Integer, Long> committed;
    private final String base;
    private volatile boolean running = true;
    private volatile boolean polling = true;
    private Thread thread;

    Reader(
        String name,
        String group,
        BrokerProcess broker,
        Map<String, Long> processed,
        List<Delivery> deliveries,
        Map<Integer, Long> committed) {
      this.name = name;
      this.group = group;
      this.broker = broker;
      this.processed = processed;
      this.deliveries = deliveries;
      this.committed = committed;
      this.base = "/consumers/" + group + "/instances/" + name;
    }

    Reader start() throws IOException, InterruptedException {
      HttpResponse<String> created =
          send(
              "POST",
              broker,
              "/consumers/" + group,
              "{\"name\":\""
                  + name
                  + "\",\"format\":\"json\",\"auto.offset.reset\":\"earliest\",\"auto.commit.enable\":\"false\","
                  + "\"session.timeout.ms\":\"6000\",\"heartbeat.interval.ms\":\"500\"}",
              null);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      HttpResponse<String> subscribed =
          send("POST", broker, base + "/subscription", "{\"topics\":[\"" + TOPIC + "\"]}", null);
      assertThat(subscribed.statusCode()).as(subscribed.body()).isEqualTo(204);
      thread = new Thread(this::loop, "reader-" + group + "-" + name);
      thread.setDaemon(true);
      thread.start();
      return this;
    }

    private void loop() {
      while (running) {
        try {
          if (!polling) {
            Thread.sleep(50);
            continue;
          }
          HttpResponse<String> answer =
              send("GET", broker, base + "/records?timeout=500", null, JSON_RECORDS);
          if (answer.statusCode() != 200) {
            Thread.sleep(100);
            continue;
          }
          int generation =
              Integer.parseInt(answer.headers().firstValue(GENERATION_HEADER).orElse("-1"));
          JsonNode records = json.readTree(answer.body());
          Map<Integer, Long> last = new TreeMap<>();
          for (JsonNode r : records) {
            int partition = r.path("partition").asInt();
            long offset = r.path("offset").asLong();
            deliveries.add(new Delivery(name, generation, partition, offset));
            processed.merge(r.path("value").asString(), 1L, Long::sum);
            last.merge(partition, offset, Math::max);
          }
          if (!last.isEmpty()) {
            commit(last);
          }
        } catch (IOException e) {
          if (!broker.isServing()) {
            return; // its broker is gone, and the instance with it
          }
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Commits the last processed offset of each partition; remembers the acknowledged commits. */
    private void commit(Map<Integer, Long> last) throws IOException, InterruptedException {
      StringBuilder body = new StringBuilder("{\"offsets\":[");
      String separator = "";
      for (Map.Entry<Integer, Long> e : last.entrySet()) {
        body.append(separator)
            .append("{\"topic\":\"")
            .append(TOPIC)
            .append("\",\"partition\":")
            .append(e.getKey())
            .append(",\"offset\":")
            .append(e.getValue())
            .append('}');
        separator = ",";
      }
      body.append("]}");
      HttpResponse<String> answer = send("POST", broker, base + "/offsets", body.toString(), null);
      if (answer.statusCode() == 200) {
        last.forEach((partition, offset) -> committed.merge(partition, offset + 1, Math::max));
      }
    }

    /** The partitions this consumer holds now (empty if its broker does not answer). */
    List<Integer> assignment() {
      try {
        HttpResponse<String> answer = send("GET", broker, base + "/assignments", null, null);
        if (answer.statusCode() != 200) {
          return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (JsonNode p : json.readTree(answer.body()).path("partitions")) {
          out.add(p.path("partition").asInt());
        }
        return out;
      } catch (IOException e) {
        return List.of();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return List.of();
      }
    }

    void pausePolling() {
      polling = false;
    }

    void stop() {
      running = false;
      if (thread != null) {
        thread.interrupt();
      }
    }
  }
}
