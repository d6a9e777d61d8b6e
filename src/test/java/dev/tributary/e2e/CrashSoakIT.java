package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fault-injection soak: three broker processes; a producer sends keyed batches through random
 * brokers (so forwarding is exercised) while a chaos loop SIGKILLs a random broker and restarts it
 * on its data. Afterwards every acknowledged record must be found at the offset it was acknowledged
 * with, holding the same value.
 *
 * <p>Runs only when {@code -Dtributary.soak.seconds} is given, for that long: {@code ./mvnw verify
 * -Dit.test=CrashSoakIT -Dtributary.soak.seconds=600}. {@code ./mvnw verify} leaves it out: {@link
 * ReplicationChaosIT} is the short fault-injection soak there, with SIGKILLs and restarts like this
 * one plus pauses and clean stops, and a stronger checker; both in the default run took the full
 * test run past its 10-minute budget on 2 cores. Seeded: the seed is printed and {@code
 * -Dtributary.seed} replays the same chaos schedule.
 */
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(
    named = "tributary.soak.seconds",
    matches = "[0-9]+",
    disabledReason = "the long soak; run with -Dtributary.soak.seconds=N")
class CrashSoakIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  private static final String CLUSTER_ID = TestCluster.CLUSTER_ID;
  private static final int PARTITIONS = 6;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final JsonMapper json = JsonMapper.builder().build();
  private TestCluster brokers;
  @TempDir Path tmp;

  @AfterEach
  void stopAll() throws InterruptedException {
    if (brokers != null) {
      brokers.close();
    }
  }

  @Test
  void everyAcknowledgedRecordSurvivesRandomBrokerCrashes() throws Exception {
    long seconds = Long.getLong("tributary.soak.seconds", 20);
    long seed = Long.getLong("tributary.seed", System.nanoTime());
    System.out.println(
        "soak: " + seconds + " s, seed " + seed + " (replay with -Dtributary.seed=" + seed + ")");
    Random random = new Random(seed);
    brokers = new TestCluster(tmp, e2e.logDir(), 3);
    brokers.startAll();
    HttpResponse<String> created =
        send(
            "POST",
            brokers.get(1),
            "/v3/clusters/" + CLUSTER_ID + "/topics",
            "{\"topic_name\":\"soak\",\"partitions_count\":"
                + PARTITIONS
                + ",\"replication_factor\":3}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    // partition -> (offset -> value) of every acknowledged record
    Map<Integer, Map<Long, String>> acknowledged = new ConcurrentHashMap<>();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    Thread producer =
        new Thread(
            () -> {
              Random r = new Random(seed + 1);
              int n = 0;
              while (running.get()) {
                StringBuilder body = new StringBuilder("{\"records\":[");
                List<String> values = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                  String value = "v" + (n++);
                  values.add(value);
                  body.append(i == 0 ? "" : ",")
                      .append("{\"key\":\"k")
                      .append(r.nextInt(1000))
                      .append("\",\"value\":\"")
                      .append(value)
                      .append("\"}");
                }
                body.append("]}");
                try {
                  BrokerProcess via = brokers.get(1 + r.nextInt(3));
                  HttpResponse<String> response =
                      send("POST", via, "/topics/soak?acks=all", body.toString());
                  if (response.statusCode() == 200) {
                    JsonNode offsets = json.readTree(response.body()).path("offsets");
                    for (int i = 0; i < offsets.size(); i++) {
                      JsonNode o = offsets.get(i);
                      if (o.path("error_code").isNull()) { // acknowledged: it must survive
                        acknowledged
                            .computeIfAbsent(
                                o.path("partition").asInt(), p -> new ConcurrentHashMap<>())
                            .put(o.path("offset").asLong(), values.get(i));
                      }
                    }
                    batches.incrementAndGet();
                  } else {
                    refused.incrementAndGet();
                    pause();
                  }
                } catch (Exception e) {
                  refused.incrementAndGet(); // the broker we asked is down: not acknowledged
                  pause();
                }
              }
            },
            "soak-producer");
    producer.start();

    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    int kills = 0;
    while (System.nanoTime() < deadline) {
      Thread.sleep(2_000 + random.nextInt(3_000));
      int victim = 1 + random.nextInt(3);
      brokers.get(victim).kill();
      kills++;
      Thread.sleep(random.nextInt(4_000));
      brokers.restart(victim);
    }
    running.set(false);
    producer.join();

    // Restart everything once more (crash-recovery of all logs), then read every partition to its
    // end.
    brokers.killAll();
    brokers.startAll();
    int total = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      Map<Long, String> stored = readAll(p);
      Map<Long, String> expected = acknowledged.getOrDefault(p, Map.of());
      for (Map.Entry<Long, String> ack : expected.entrySet()) {
        assertThat(stored.get(ack.getKey()))
            .as("partition %d offset %d (seed %d)", p, ack.getKey(), seed)
            .isEqualTo(ack.getValue());
      }
      total += expected.size();
    }
    System.out.println(
        "soak: "
            + kills
            + " kills, "
            + batches.get()
            + " batches acknowledged, "
            + refused.get()
            + " refused or unanswered, "
            + total
            + " acknowledged records all found");
    assertThat(total).isPositive();
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Map<Long, String> readAll(int partition) throws Exception {
    Map<Long, String> records = new HashMap<>();
    long offset = 0;
    while (true) {
      String path =
          "/topics/soak/partitions/"
              + partition
              + "/records?offset="
              + offset
              + "&max_bytes=1048576";
      HttpResponse<String> response = null;
      for (int attempt = 0; attempt < 100; attempt++) { // the leader may still be coming back
        response = send("GET", brokers.get(1), path, null);
        if (response.statusCode() == 200) {
          break;
        }
        Thread.sleep(200);
      }
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode page = json.readTree(response.body());
      if (page.isEmpty()) {
        return records;
      }
      for (JsonNode record : page) {
        records.put(record.path("offset").asLong(), record.path("value").asString());
        offset = record.path("offset").asLong() + 1;
      }
    }
  }

  private HttpResponse<String> send(String method, BrokerProcess broker, String path, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(broker.url(path)))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
