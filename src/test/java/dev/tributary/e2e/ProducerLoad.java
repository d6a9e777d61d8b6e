package dev.tributary.e2e;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A small steady {@code acks=all} load on one topic: one thread per partition, each sending a batch
 * of keyed JSON records with unique values to its partition ({@code POST /topics/t/partitions/p})
 * through a broker chosen at random (so most produces are forwarded; dead brokers too, which refuse
 * the connection), waiting for the answer, then pausing {@link #PAUSE_MS}. Every outcome goes to
 * the {@link HistoryChecker}. A thread per partition keeps one stalled partition (a paused or dead
 * leader) from stalling the others, and keeps each partition's produces sequential, which the order
 * check relies on.
 */
final class ProducerLoad implements AutoCloseable {
  static final int RECORDS_PER_BATCH = 5;
  static final long PAUSE_MS = 50;

  /**
   * How long a produce may go unanswered: above the {@code acks=all} timeout plus a forward where
   * the cluster sets {@code tributary.request-timeout-ms=5000} (as the fault tests do), so every
   * answer such a broker gives arrives in time. A produce sent through a broker just before it was
   * paused or cut off gets no answer at all; past this it is recorded as indeterminate (the checker
   * allows either outcome) and the partition's thread goes on, instead of stalling its partition,
   * and the test waiting on it, for longer.
   */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(8);

  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);

  private ProducerLoad() {}

  static ProducerLoad start(
      TestCluster cluster,
      ClusterClient client,
      HistoryChecker history,
      String topic,
      int partitions,
      long seed) {
    ProducerLoad load = new ProducerLoad();
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      Thread thread =
          new Thread(
              () ->
                  load.produce(
                      cluster, client, history, topic, partition, new Random(seed + partition)),
              "load-" + topic + "-" + partition);
      thread.setDaemon(true);
      load.threads.add(thread);
      thread.start();
    }
    return load;
  }

  private void produce(
      TestCluster cluster,
      ClusterClient client,
      HistoryChecker history,
      String topic,
      int partition,
      Random random) {
    while (running.get()) {
      // Not through a SIGSTOPped broker: a real client would have timed out on it once and moved
      // on.
      List<BrokerProcess> brokers = cluster.all().stream().filter(b -> !b.isPaused()).toList();
      List<String> keys = new ArrayList<>();
      List<String> values = new ArrayList<>();
      StringBuilder body = new StringBuilder("{\"records\":[");
      for (int i = 0; i < RECORDS_PER_BATCH; i++) {
        keys.add("k" + random.nextInt(100));
        values.add(history.nextValue());
        body.append(i == 0 ? "" : ",")
            .append("{\"key\":\"")
            .append(keys.get(i))
            .append("\",\"value\":\"")
            .append(values.get(i))
            .append("\"}");
      }
      body.append("]}");
      BrokerProcess via = brokers.get(random.nextInt(brokers.size()));
      HttpRequest request =
          client
              .authorize(
                  HttpRequest.newBuilder(
                      URI.create(
                          via.url("/topics/" + topic + "/partitions/" + partition + "?acks=all"))))
              .timeout(REQUEST_TIMEOUT)
              .header("Content-Type", "application/vnd.kafka.json.v2+json")
              .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
              .build();
      long sentNanos = System.nanoTime();
      try {
        HttpResponse<String> answer =
            client.http.send(request, HttpResponse.BodyHandlers.ofString());
        history.record(keys, values, partition, sentNanos, answer);
      } catch (InterruptedException e) {
        history.record(keys, values, partition, sentNanos, e);
        return;
      } catch (Exception e) {
        history.record(keys, values, partition, sentNanos, e);
      }
      LockSupport.parkNanos(
          TimeUnit.MILLISECONDS.toNanos(PAUSE_MS)); // pacing, not a wait for a condition
    }
  }

  /** Stops sending and waits (bounded by the request timeout) for the last answers. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread thread : threads) {
      thread.join(ClusterClient.REQUEST_TIMEOUT.toMillis() + 5_000);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(5_000);
      }
    }
  }
}
