package dev.tributary.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;

/**
 * One consumer instance of the REST consumer API (docs/api.md "Consumer groups"), living on the
 * broker that created it: subscribe, read, see its assignment, leave. A member stays in its group
 * only while its client keeps calling {@code records}, so {@link #keepPolling} runs a background
 * poller that does, as a Kafka consumer's poll loop would, and remembers what it read.
 */
public final class DemoConsumer implements AutoCloseable {
  private final DemoCluster cluster;
  private final String group;
  private final String name;
  private final String path;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean polling = new AtomicBoolean();
  private Thread poller;

  private DemoConsumer(DemoCluster cluster, String group, String name) {
    this.cluster = cluster;
    this.group = group;
    this.name = name;
    this.path = "/consumers/" + DemoCluster.enc(group) + "/instances/" + DemoCluster.enc(name);
  }

  /**
   * Creates instance {@code name} in {@code group} (binary format, from the earliest offset, no
   * auto-commit: every run reads the topic whole, whatever an earlier run did) and subscribes it to
   * {@code topic}. An instance of that name left by an earlier run is deleted first.
   */
  public static DemoConsumer join(DemoCluster cluster, String group, String name, String topic)
      throws IOException, InterruptedException {
    DemoConsumer c = new DemoConsumer(cluster, group, name);
    c.delete();
    String configs =
        "{\"name\":\""
            + name
            + "\",\"format\":\"binary\",\"auto.offset.reset\":\"earliest\","
            + "\"auto.commit.enable\":\"false\"}";
    DemoHttp.Response created =
        cluster.call(
            "POST",
            "/consumers/" + DemoCluster.enc(group),
            DemoCluster.V2,
            configs,
            DemoCluster.V2);
    if (!created.ok()) {
      throw new DemoException(
          "could not create consumer " + name + " in group " + group + ": " + created.brief());
    }
    DemoHttp.Response subscribed =
        cluster.call(
            "POST",
            c.path + "/subscription",
            DemoCluster.V2,
            "{\"topics\":[\"" + topic + "\"]}",
            DemoCluster.V2);
    if (!subscribed.ok()) {
      throw new DemoException(
          "could not subscribe " + name + " to " + topic + ": " + subscribed.brief());
    }
    return c;
  }

  /**
   * Deletes instance {@code name} of {@code group} if an earlier run left it (it leaves the group
   * at once, instead of after its session timeout).
   */
  public static void removeLeftover(DemoCluster cluster, String group, String name)
      throws IOException, InterruptedException {
    new DemoConsumer(cluster, group, name).delete();
  }

  private void delete() throws IOException, InterruptedException {
    cluster.call("DELETE", path, null, null, DemoCluster.V2); // 404 when there is none
  }

  public String name() {
    return name;
  }

  public String group() {
    return group;
  }

  /** One {@code records} call; returns what it read (each as {@code topic-partition@offset}). */
  public List<String> poll(long timeoutMs) throws IOException, InterruptedException {
    DemoHttp.Response r =
        cluster.call(
            "GET", path + "/records?timeout=" + timeoutMs, null, null, DemoCluster.BINARY_V2);
    if (!r.ok()) {
      throw new DemoException("records of consumer " + name + ": " + r.brief());
    }
    List<String> read = new ArrayList<>();
    for (JsonNode rec : r.json()) {
      read.add(
          rec.path("topic").asString()
              + "-"
              + rec.path("partition").asInt()
              + "@"
              + rec.path("offset").asLong());
    }
    seen.addAll(read);
    return read;
  }

  /**
   * Starts calling {@code records} in the background until {@link #close} or {@link #stopPolling}.
   */
  public void keepPolling() {
    if (!polling.compareAndSet(false, true)) {
      return;
    }
    poller =
        new Thread(
            () -> {
              while (polling.get()) {
                try {
                  poll(500);
                } catch (IOException | RuntimeException e) {
                  sleepQuietly(200); // a rebalance or a moving coordinator: try again
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "demo-consumer-" + name);
    poller.setDaemon(true);
    poller.start();
  }

  public void stopPolling() throws InterruptedException {
    polling.set(false);
    if (poller != null) {
      poller.join(5_000);
    }
  }

  /** Every record this consumer has read so far, as {@code topic-partition@offset}. */
  public Set<String> seen() {
    return new TreeSet<>(seen);
  }

  /** The partitions the group gives this member now, as {@code topic-partition} keys. */
  public Set<String> assignment() throws IOException, InterruptedException {
    DemoHttp.Response r = cluster.call("GET", path + "/assignments", null, null, DemoCluster.V2);
    if (!r.ok()) {
      throw new DemoException("assignments of consumer " + name + ": " + r.brief());
    }
    Set<String> keys = new TreeSet<>();
    for (JsonNode p : r.json().path("partitions")) {
      keys.add(p.path("topic").asString() + "-" + p.path("partition").asInt());
    }
    return keys;
  }

  /** Leaves the group at once and deletes the instance. */
  @Override
  public void close() throws IOException, InterruptedException {
    stopPolling();
    delete();
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
