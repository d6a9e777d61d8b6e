package dev.tributary.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads partitions {@code 0..partitions-1} from their beginning offsets to the end offsets seen at
 * the start, one thread per partition, and counts records and value bytes.
 *
 * <p>Each reader fetches with the JDK's blocking {@link HttpURLConnection} (one kept-alive
 * connection per thread) and parses the answer with Jackson's streaming parser as it arrives. The
 * asynchronous {@link HttpClient}, used here before, spent about a quarter of this tool's CPU in
 * its selector thread and hand-offs, and as much again compiling them; the tool shares the machine
 * with the broker it measures, so that CPU came out of the broker's rate (docs/benchmarks.md).
 *
 * <p>Concurrency: each reader thread owns its partition's position; they share only atomic totals.
 * The figures span from the first fetch to the last reader's end.
 */
final class ConsumeRun {
  private static final int CONNECT_TIMEOUT_MS = 5_000;

  /**
   * How much of an answer one socket read may take. The parser asks for 8,000 bytes at a time, and
   * the JDK's connection stream made a {@code read} and an {@code available} system call for each:
   * about a sixth of the reader threads' CPU on 2.4 MB answers. Through this buffer a read takes
   * what has arrived, up to 64 KiB.
   */
  private static final int READ_BUFFER_BYTES = 64 * 1024;

  private final ConsumeOptions options;
  private final HttpClient client;
  private final PrintStream out;
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong valueBytes = new AtomicLong();
  private final AtomicLong fetches = new AtomicLong();

  ConsumeRun(ConsumeOptions options, HttpClient client, PrintStream out) {
    this.options = options;
    this.client = client;
    this.out = out;
  }

  record Result(
      long records, long valueBytes, long fetches, long elapsedNanos, List<String> errors) {
    double recordsPerSec() {
      return elapsedNanos == 0 ? 0 : records * 1e9 / elapsedNanos;
    }
  }

  Result run() throws Exception {
    TopicSetup admin = new TopicSetup(client, out);
    List<TopicSetup.Offsets> offsets = new ArrayList<>();
    long available = 0;
    for (int p = 0; p < options.partitions(); p++) {
      TopicSetup.Offsets o = admin.offsets(options.url(), options.topic(), p);
      offsets.add(o);
      available += o.endOffset() - o.beginningOffset();
      out.printf("partition %d: offsets %d..%d%n", p, o.beginningOffset(), o.endOffset());
    }
    if (options.records() > available) {
      out.printf(
          "warning: --records %d but only %d records are in the log; reading to the end%n",
          options.records(), available);
    }
    List<String> errors = new ArrayList<>();
    List<Thread> readers = new ArrayList<>();
    long startNanos = System.nanoTime();
    for (int p = 0; p < options.partitions(); p++) {
      int partition = p;
      Thread t =
          new Thread(
              () -> {
                try {
                  readPartition(partition, offsets.get(partition));
                } catch (Exception e) {
                  synchronized (errors) {
                    errors.add("partition " + partition + ": " + e.getMessage());
                  }
                }
              },
              "bench-consume-" + p);
      readers.add(t);
      t.start();
    }
    for (Thread t : readers) {
      t.join();
    }
    return new Result(
        records.get(), valueBytes.get(), fetches.get(), System.nanoTime() - startNanos, errors);
  }

  private void readPartition(int partition, TopicSetup.Offsets range) throws Exception {
    long offset = range.beginningOffset();
    long lastProgressNanos = System.nanoTime();
    while (offset < range.endOffset() && !limitReached()) {
      Responses.FetchSummary fetched = fetch(partition, offset);
      if (fetched.records() == 0) {
        if (System.nanoTime() - lastProgressNanos > options.timeoutMs() * 1_000_000) {
          throw new BenchException(
              "no records for "
                  + options.timeoutMs()
                  + " ms at offset "
                  + offset
                  + " (end offset "
                  + range.endOffset()
                  + ")");
        }
        continue;
      }
      if (fetched.lastOffset() < offset) {
        throw new BenchException(
            "fetch at offset " + offset + " returned last offset " + fetched.lastOffset());
      }
      records.addAndGet(fetched.records());
      valueBytes.addAndGet(fetched.valueBytes());
      offset = fetched.lastOffset() + 1;
      lastProgressNanos = System.nanoTime();
    }
  }

  /** One fetch from {@code offset}, summarized while it is read. */
  private Responses.FetchSummary fetch(int partition, long offset) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection)
            BenchUrls.fetch(
                    options.url(),
                    options.topic(),
                    partition,
                    offset,
                    options.maxBytes(),
                    options.fetchTimeoutMs())
                .toURL()
                .openConnection();
    connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
    connection.setReadTimeout(Math.toIntExact(options.fetchTimeoutMs() + options.timeoutMs()));
    connection.setRequestProperty("Accept", "application/vnd.kafka.binary.v2+json");
    BenchAuth.apply(connection);
    int status = connection.getResponseCode();
    fetches.incrementAndGet();
    if (status != 200) {
      String body;
      try (InputStream error = connection.getErrorStream()) {
        body = error == null ? "" : new String(error.readAllBytes(), StandardCharsets.UTF_8);
      }
      throw new BenchException(
          "fetch at offset "
              + offset
              + " answered HTTP "
              + status
              + ": "
              + Responses.abbreviate(body));
    }
    // Read to the end and closed: the connection goes back to the JDK's keep-alive cache.
    try (InputStream body = connection.getInputStream()) {
      return Responses.summarizeFetch(new BufferedInputStream(body, READ_BUFFER_BYTES));
    }
  }

  private boolean limitReached() {
    return options.records() > 0 && records.get() >= options.records();
  }
}
