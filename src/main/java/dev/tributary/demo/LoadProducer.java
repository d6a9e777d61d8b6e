package dev.tributary.demo;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A producer that keeps going through a crash, as a Kafka producer with retries does: one thread
 * sends batches of numbered values ({@code PREFIX-1}, {@code PREFIX-2}, ...) to one partition with
 * {@code acks=all}, one request at a time, and retries a batch that failed (an error answer or a
 * dropped connection; then the next broker) until it is acknowledged. It remembers the offset of
 * every acknowledged value, every failed attempt, and when each batch was acknowledged, so a demo
 * can count what a crash cost ({@link RecordLoss}) and how long producing stalled.
 *
 * <p>Thread-safety: the sending thread writes, the demo reads; every accessor is synchronized.
 */
final class LoadProducer implements AutoCloseable {
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  static final long RETRY_BACKOFF_MS = 100;
  static final int ERRORS_KEPT = 4;

  private final DemoCluster cluster;
  private final String topic;
  private final int partition;
  private final String prefix;
  private final int batchSize;
  private final List<URI> urls;
  private final Thread thread;

  private final Map<String, Long> acknowledged = new LinkedHashMap<>();
  private final List<Long> ackNanos = new ArrayList<>();
  private final Set<String> errors = new LinkedHashSet<>();
  private final List<String> inFlight = new ArrayList<>();
  private int failedAttempts;
  private int retriedBatches;
  private long firstFailureNanos = -1;
  private boolean held;
  private boolean idle;
  private volatile boolean stopping;

  LoadProducer(DemoCluster cluster, String topic, int partition, String prefix, int batchSize)
      throws IOException, InterruptedException {
    this.cluster = cluster;
    this.topic = topic;
    this.partition = partition;
    this.prefix = prefix;
    this.batchSize = batchSize;
    this.urls = cluster.brokers().stream().map(DemoCluster.Broker::url).toList();
    this.thread = new Thread(this::run, "demo-load-" + prefix);
    this.thread.setDaemon(true);
  }

  LoadProducer start() {
    thread.start();
    return this;
  }

  private void run() {
    int next = 1;
    int url = 0;
    while (!stopping) {
      synchronized (this) {
        while (held && !stopping) {
          idle = true;
          try {
            wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        idle = false;
      }
      List<String> values = new ArrayList<>();
      for (int i = 0; i < batchSize; i++) {
        values.add(prefix + "-" + next++);
      }
      synchronized (this) {
        inFlight.clear();
        inFlight.addAll(values);
      }
      boolean retry = false;
      while (!stopping) {
        String error;
        try {
          error = send(urls.get(url), values);
        } catch (IOException e) {
          error = "no answer from " + urls.get(url) + " (" + e.getClass().getSimpleName() + ")";
        } catch (InterruptedException e) {
          return;
        }
        if (error == null) {
          break;
        }
        url = (url + 1) % urls.size(); // a dead or refusing broker: the next one forwards
        synchronized (this) {
          failedAttempts++;
          if (!retry) {
            retriedBatches++;
            retry = true;
          }
          if (firstFailureNanos < 0) {
            firstFailureNanos = System.nanoTime();
          }
          if (errors.size() < ERRORS_KEPT) {
            errors.add(error);
          }
        }
        try {
          Thread.sleep(
              RETRY_BACKOFF_MS); // a producer's retry.backoff.ms, not a wait for an outcome
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** One produce attempt; null when every record was acknowledged, else what went wrong. */
  private String send(URI url, List<String> values) throws IOException, InterruptedException {
    ObjectNode body = DemoHttp.JSON.createObjectNode();
    ArrayNode records = body.putArray("records");
    for (String v : values) {
      records
          .addObject()
          .put("value", Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8)));
    }
    URI uri =
        URI.create(
            url + "/topics/" + DemoCluster.enc(topic) + "/partitions/" + partition + "?acks=all");
    DemoHttp.Response r =
        cluster
            .http()
            .send(
                "POST",
                uri,
                DemoCluster.BINARY_V2,
                body.toString(),
                DemoCluster.V2,
                REQUEST_TIMEOUT);
    if (!r.ok()) {
      return r.brief();
    }
    JsonNode offsets = r.json().path("offsets");
    List<Long> acked = new ArrayList<>();
    for (JsonNode o : offsets) {
      if (!o.path("error_code").isNull() || o.path("offset").isNull()) {
        return o.path("error_code").asInt(-1) + " " + o.path("error").asString("");
      }
      acked.add(o.path("offset").asLong());
    }
    if (acked.size() != values.size()) {
      return "answer with " + acked.size() + " offsets for " + values.size() + " records";
    }
    synchronized (this) {
      for (int i = 0; i < values.size(); i++) {
        acknowledged.put(values.get(i), acked.get(i));
      }
      ackNanos.add(System.nanoTime());
      inFlight.clear();
    }
    return null;
  }

  /**
   * Holds the producer before its next batch, so a demo can change the cluster between two batches;
   * {@link #isHeld} says when it waits.
   */
  synchronized void hold() {
    held = true;
  }

  /** Whether the producer waits between batches after {@link #hold}. */
  synchronized boolean isHeld() {
    return idle;
  }

  /** Lets a held producer send its next batch. */
  synchronized void release() {
    held = false;
    notifyAll();
  }

  /** Stops after the attempt in progress (its batch stays unacknowledged if it failed). */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    release();
    thread.join(REQUEST_TIMEOUT.toMillis() + 5_000);
  }

  /** Every acknowledged value and the offset its answer gave, in the order acknowledged. */
  synchronized Map<String, Long> acknowledged() {
    return new LinkedHashMap<>(acknowledged);
  }

  synchronized int acknowledgedCount() {
    return acknowledged.size();
  }

  /** The values of the batch sent and not yet acknowledged (empty between batches). */
  synchronized List<String> inFlight() {
    return List.copyOf(inFlight);
  }

  synchronized int failedAttempts() {
    return failedAttempts;
  }

  /** How many batches needed more than one attempt. */
  synchronized int retriedBatches() {
    return retriedBatches;
  }

  /** The first few distinct errors, as the producer saw them. */
  synchronized List<String> errors() {
    return List.copyOf(errors);
  }

  /** {@link System#nanoTime} of the first failed attempt, -1 when none failed. */
  synchronized long firstFailureNanos() {
    return firstFailureNanos;
  }

  /** {@link System#nanoTime} of the first acknowledgement after {@code nanos}, -1 when none yet. */
  synchronized long firstAckAfter(long nanos) {
    return ackNanos.stream().filter(t -> t - nanos > 0).findFirst().orElse(-1L);
  }
}
