package dev.tributary.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The produce load: a warm-up phase, then a measured phase, each sending pre-built batches
 * round-robin over the partitions with at most {@code concurrency} requests in flight.
 *
 * <p>Concurrency: one thread (the caller) sends, and looks the leaders up again when a request
 * failed ({@link LeaderRoutes}); completions run on the HTTP client's executor and only touch the
 * atomic counters, the concurrent histogram, the window semaphore and the routes' stale flag. A
 * phase ends when the sender has taken back every permit, i.e. when every request it started has
 * completed.
 */
final class ProduceRun {
  /**
   * Give up on a phase once this many requests failed and none succeeded: the broker is not there.
   */
  private static final int FAIL_FAST_ERRORS = 50;

  private static final long HIGHEST_LATENCY_US = TimeUnit.HOURS.toMicros(1);

  private final ProduceOptions options;
  private final HttpClient client;
  private final PrintStream out;

  /** Where each partition's batches go: its leader; {@code null}: the one {@code --url} broker. */
  private final LeaderRoutes routes;

  /** {@code --url} for every partition, when there are no routes; sender thread only. */
  private URI[] viaUrl;

  ProduceRun(ProduceOptions options, HttpClient client, PrintStream out) {
    this(options, client, out, null);
  }

  ProduceRun(ProduceOptions options, HttpClient client, PrintStream out, LeaderRoutes routes) {
    this.options = options;
    this.client = client;
    this.out = out;
    this.routes = routes;
  }

  /** Figures of one phase. {@code records} counts acknowledged records only. */
  record PhaseResult(
      long requests,
      long records,
      long errors,
      long elapsedNanos,
      Histogram latencyUs,
      Set<String> errorSamples) {

    double recordsPerSec() {
      return elapsedNanos == 0 ? 0 : records * 1e9 / elapsedNanos;
    }
  }

  PhaseResult warmUp() throws InterruptedException {
    return runPhase(options.warmupRecords(), 1);
  }

  PhaseResult measure() throws InterruptedException {
    return runPhase(options.records(), 2);
  }

  PhaseResult runPhase(long records, long seed) throws InterruptedException {
    Histogram latencyUs = new ConcurrentHistogram(HIGHEST_LATENCY_US, 3);
    Set<String> errorSamples = Collections.synchronizedSet(new LinkedHashSet<>());
    if (records == 0) {
      return new PhaseResult(0, 0, 0, 0, latencyUs, errorSamples);
    }
    int batch = options.batchRecords();
    long fullRequests = records / batch;
    int lastBatch = (int) (records % batch);
    ProduceBodies full =
        fullRequests > 0
            ? ProduceBodies.pool(options.format(), batch, options.recordSizeBytes(), seed)
            : null;
    ProduceBodies tail =
        lastBatch > 0
            ? ProduceBodies.pool(options.format(), lastBatch, options.recordSizeBytes(), seed + 100)
            : null;
    URI[] targetsInUse = null;
    HttpRequest.Builder[] perPartition = new HttpRequest.Builder[options.partitions()];
    Semaphore window = new Semaphore(options.concurrency());
    AtomicLong ackedRecords = new AtomicLong();
    AtomicLong okRequests = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    long requests = fullRequests + (lastBatch > 0 ? 1 : 0);
    long sent = 0;
    long startNanos = System.nanoTime();
    AtomicLong lastAckNanos = new AtomicLong(startNanos);
    AtomicLong failedSinceAck = new AtomicLong();
    String gaveUp = null;
    for (; sent < requests; sent++) {
      window.acquire();
      gaveUp =
          reasonToGiveUp(errors.get(), okRequests.get(), failedSinceAck.get(), lastAckNanos.get());
      if (gaveUp != null) {
        window.release();
        break;
      }
      int partition = (int) (sent % perPartition.length);
      if (routes != null) {
        routes.maybeRefresh();
      }
      URI[] targets = targets();
      if (targets != targetsInUse) { // the first request, or the leaders moved
        targetsInUse = targets;
        for (int p = 0; p < perPartition.length; p++) {
          perPartition[p] = requestTo(targets[p], p);
        }
      }
      boolean isTail = sent == fullRequests;
      int count = isTail ? lastBatch : batch;
      byte[] body = isTail ? tail.next() : full.next();
      HttpRequest request =
          perPartition[partition].copy().POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
      long sendNanos = System.nanoTime();
      client
          .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
          .whenComplete(
              (response, failure) -> {
                try {
                  long latencyMicros = (System.nanoTime() - sendNanos) / 1_000;
                  latencyUs.recordValue(Math.min(latencyMicros, HIGHEST_LATENCY_US));
                  String problem =
                      failure != null
                          ? failure.getClass().getSimpleName() + ": " + failure.getMessage()
                          : Responses.checkProduce(response.statusCode(), response.body(), count);
                  if (problem == null) {
                    okRequests.incrementAndGet();
                    ackedRecords.addAndGet(count);
                    failedSinceAck.set(0);
                    lastAckNanos.set(System.nanoTime());
                  } else {
                    failedSinceAck.incrementAndGet();
                    if (routes != null) {
                      routes.markStale();
                    }
                    errors.incrementAndGet();
                    if (errorSamples.size() < 5) {
                      errorSamples.add(problem);
                    }
                  }
                } finally {
                  window.release();
                }
              });
    }
    window.acquire(options.concurrency());
    long elapsedNanos = System.nanoTime() - startNanos;
    window.release(options.concurrency());
    if (gaveUp != null) {
      out.println(gaveUp);
      errors.addAndGet(requests - sent);
    }
    return new PhaseResult(
        requests, ackedRecords.get(), errors.get(), elapsedNanos, latencyUs, errorSamples);
  }

  /**
   * Why the phase stops sending, or {@code null}: the broker is not there (every request so far
   * failed), or nothing has been acknowledged for {@code --request-timeout-ms} and requests keep
   * failing (every leader gone: as a Kafka producer fails its batches after {@code
   * delivery.timeout.ms}, rather than a run that waits out a back-off for every request left).
   */
  private String reasonToGiveUp(long errors, long ok, long failedSinceAck, long lastAckNanos) {
    if (errors >= FAIL_FAST_ERRORS && ok == 0) {
      return "gave up after " + errors + " failed requests and none acknowledged";
    }
    long quietMs = (System.nanoTime() - lastAckNanos) / 1_000_000;
    if (failedSinceAck > 0 && quietMs > options.requestTimeoutMs()) {
      return "gave up: requests kept failing and none was acknowledged for "
          + quietMs
          + " ms (--request-timeout-ms "
          + options.requestTimeoutMs()
          + ")";
    }
    return null;
  }

  /** Each partition's base URL now: its leader's, or {@code --url} for every partition. */
  private URI[] targets() {
    if (routes != null) {
      return routes.leaders();
    }
    if (viaUrl == null) {
      viaUrl = new URI[options.partitions()];
      Arrays.fill(viaUrl, options.url());
    }
    return viaUrl;
  }

  private HttpRequest.Builder requestTo(URI base, int partition) {
    return BenchAuth.apply(
            HttpRequest.newBuilder(
                BenchUrls.partitionRecords(base, options.topic(), partition, options.acks())))
        .timeout(Duration.ofMillis(options.requestTimeoutMs()))
        .header("Content-Type", options.format().contentType)
        .header("Accept", "application/vnd.kafka.v2+json, application/json");
  }
}
