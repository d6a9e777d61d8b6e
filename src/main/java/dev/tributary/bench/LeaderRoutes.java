package dev.tributary.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where each partition's batches go: its leader's base URL, as a Kafka producer keeps metadata and
 * sends each batch straight to the leader. When a request fails (the leader died, or leadership
 * moved) the routes are marked stale and looked up again before the next send, at most once per
 * {@value #REFRESH_BACKOFF_MS} ms (Kafka's {@code retry.backoff.ms} is 100 ms), the sender waiting
 * meanwhile: from {@code --url} first, then from any broker the last lookup named, so a dead {@code
 * --url} broker does not stop the run. Failed requests are not sent again (a request that got no
 * answer may have been appended; REST produce has no producer id to deduplicate a retry): they
 * count as errors.
 *
 * <p>Concurrency: {@link #markStale} may be called from any thread (request completions); {@link
 * #maybeRefresh} and {@link #leaders} only from the sending thread.
 */
final class LeaderRoutes {
  static final long REFRESH_BACKOFF_MS = 250;

  private final TopicSetup setup;
  private final URI bootstrap;
  private final String topic;
  private final int partitions;
  private final PrintStream out;
  private final AtomicBoolean stale = new AtomicBoolean();

  /** Replaced, never changed in place, so the sender can tell when it must rebuild its requests. */
  private URI[] leaders;

  private List<URI> knownBrokers;
  private long lastLookupNanos;

  private LeaderRoutes(
      TopicSetup setup,
      URI bootstrap,
      String topic,
      int partitions,
      PrintStream out,
      TopicSetup.Routes first) {
    this.setup = setup;
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.partitions = partitions;
    this.out = out;
    this.leaders = first.leaders();
    this.knownBrokers = first.brokers();
    this.lastLookupNanos = System.nanoTime();
  }

  /**
   * Looks the leaders up through {@code bootstrap}; a failure here ends the run before it starts.
   */
  static LeaderRoutes lookUp(
      TopicSetup setup, URI bootstrap, String topic, int partitions, PrintStream out)
      throws IOException, InterruptedException {
    return new LeaderRoutes(
        setup, bootstrap, topic, partitions, out, setup.routes(bootstrap, topic, partitions));
  }

  /** Each partition's leader as a base URL, by partition; do not modify. */
  URI[] leaders() {
    return leaders;
  }

  /** A request failed: look the leaders up again before the next send. */
  void markStale() {
    stale.set(true);
  }

  /**
   * If marked stale, looks the leaders up again, first waiting out the back-off since the last
   * lookup: until then the sender holds its next batch rather than send it where the last one
   * failed (as a Kafka producer holds a partition's batches while its leader is unknown).
   */
  void maybeRefresh() throws InterruptedException {
    if (!stale.get()) {
      return;
    }
    long waitNanos =
        lastLookupNanos + TimeUnit.MILLISECONDS.toNanos(REFRESH_BACKOFF_MS) - System.nanoTime();
    if (waitNanos > 0) {
      TimeUnit.NANOSECONDS.sleep(waitNanos);
    }
    long now = System.nanoTime();
    stale.set(false);
    lastLookupNanos = now;
    Set<URI> candidates = new LinkedHashSet<>();
    candidates.add(bootstrap);
    candidates.addAll(knownBrokers);
    for (URI candidate : candidates) {
      TopicSetup.Routes found;
      try {
        found = setup.routes(candidate, topic, partitions);
      } catch (IOException | RuntimeException e) {
        continue; // that broker is down too, or answered nonsense: ask the next one
      }
      if (!Arrays.equals(found.leaders(), leaders)) {
        out.printf("leaders changed (asked %s): %s%n", candidate, Arrays.toString(found.leaders()));
        leaders = found.leaders();
      }
      knownBrokers = new ArrayList<>(found.brokers());
      return;
    }
    stale.set(true); // nobody answered: try again after the back-off
  }
}
