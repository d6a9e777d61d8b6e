package dev.tributary.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.HdrHistogram.Histogram;

/**
 * Load generator for a Tributary broker's HTTP API (plain Java, no Spring): {@code produce} and
 * {@code consume}.
 *
 * <p>Runs from the broker's fat jar: {@code java -cp tributary.jar
 * -Dloader.main=dev.tributary.bench.Bench org.springframework.boot.loader.launch.PropertiesLauncher
 * produce ...}, or {@code ./tributary bench ...}. MB means 2^20 bytes of record values, as in
 * Kafka's ProducerPerformance, so the figures compare directly. Exit status: 0 ok, 1 some requests
 * failed or the run could not go on, 2 bad command line.
 */
public final class Bench {
  static final String USAGE =
      """
      Usage: bench produce [options]   send batches of records and report throughput and latency
             bench consume [options]   read partitions from the beginning and report throughput
             bench <command> --help    options of a command
      Prints human-readable lines, then one machine-readable line starting with RESULT.
      """;

  /**
   * A leader lookup during a run waits at most this long per broker: a paused broker accepts the
   * connection and never answers, and the sender waits for the lookup.
   */
  private static final Duration LEADER_LOOKUP_TIMEOUT = Duration.ofSeconds(2);

  private Bench() {}

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    if (argv.length == 0 || Arrays.asList("help", "--help", "-h").contains(argv[0])) {
      out.print(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    String command = argv[0];
    String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
    String usage =
        switch (command) {
          case "produce" -> ProduceOptions.USAGE;
          case "consume" -> ConsumeOptions.USAGE;
          default -> null;
        };
    if (usage == null) {
      err.println("bench: unknown command '" + command + "'");
      err.print(USAGE);
      return 2;
    }
    try {
      Args args =
          Args.parse(rest, command.equals("produce") ? ProduceOptions.KNOWN : ConsumeOptions.KNOWN);
      if (args.helpRequested()) {
        out.print(usage);
        return 0;
      }
      return command.equals("produce")
          ? produce(ProduceOptions.parse(args), out)
          : consume(ConsumeOptions.parse(args), out);
    } catch (Args.UsageException e) {
      err.println("bench " + command + ": " + e.getMessage());
      err.print(usage);
      return 2;
    } catch (BenchException e) {
      err.println("bench " + command + ": " + e.getMessage());
      return 1;
    } catch (java.net.ConnectException e) {
      err.println(
          "bench " + command + ": cannot connect to the broker (" + e + "); is it running?");
      return 1;
    } catch (Exception e) {
      err.println("bench " + command + ": failed: " + e);
      return 1;
    }
  }

  static int produce(ProduceOptions o, PrintStream out) throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2, daemon("bench-http"));
    try {
      HttpClient client = client(executor);
      new TopicSetup(client, out)
          .ensureTopic(
              o.url(), o.topic(), o.partitions(), o.replicationFactor(), o.minInsyncReplicas());
      out.printf(
          "produce: %s topic %s, %d partitions, %d-byte %s records in batches of %d, %d in flight, acks=%s%n",
          o.url(),
          o.topic(),
          o.partitions(),
          o.recordSizeBytes(),
          o.format().name().toLowerCase(Locale.ROOT),
          o.batchRecords(),
          o.concurrency(),
          o.acks());
      LeaderRoutes routes = null;
      if (o.toLeaders()) {
        TopicSetup lookups = new TopicSetup(client, out, LEADER_LOOKUP_TIMEOUT);
        routes = LeaderRoutes.lookUp(lookups, o.url(), o.topic(), o.partitions(), out);
        out.printf(
            "sending each partition straight to its leader, as a Kafka client does: %s%n",
            java.util.Arrays.toString(routes.leaders()));
      }
      ProduceRun run = new ProduceRun(o, client, out, routes);
      if (o.warmupRecords() > 0) {
        ProduceRun.PhaseResult warm = run.warmUp();
        out.printf(
            "warm-up: %d records in %.1f s (%.0f records/s), %d errors (not counted below)%n",
            warm.records(), warm.elapsedNanos() / 1e9, warm.recordsPerSec(), warm.errors());
        printErrorSamples(warm, out);
      }
      long cpuBefore = processCpuNanos();
      long wallBefore = System.nanoTime();
      ProduceRun.PhaseResult r = run.measure();
      long cpuNanos = processCpuNanos() - cpuBefore;
      long wallNanos = System.nanoTime() - wallBefore;
      double seconds = r.elapsedNanos() / 1e9;
      double mbPerSec = r.recordsPerSec() * o.recordSizeBytes() / (1024.0 * 1024.0);
      Histogram h = r.latencyUs();
      out.printf(
          "measured: %d records acknowledged in %.2f s (%d requests)%n",
          r.records(), seconds, r.requests());
      out.printf("throughput: %.0f records/s, %.2f MB/s of values%n", r.recordsPerSec(), mbPerSec);
      out.printf(
          "request latency ms: p50=%.2f p99=%.2f p99.9=%.2f max=%.2f%n",
          ms(h.getValueAtPercentile(50)),
          ms(h.getValueAtPercentile(99)),
          ms(h.getValueAtPercentile(99.9)),
          ms(h.getMaxValue()));
      out.printf("errors: %d failed requests%n", r.errors());
      printErrorSamples(r, out);
      printCpuNote(cpuNanos, wallNanos, out);
      out.printf(
          Locale.ROOT,
          "RESULT produce records_per_sec=%.0f mb_per_sec=%.2f p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f"
              + " records=%d errors=%d%n",
          r.recordsPerSec(),
          mbPerSec,
          ms(h.getValueAtPercentile(50)),
          ms(h.getValueAtPercentile(99)),
          ms(h.getValueAtPercentile(99.9)),
          ms(h.getMaxValue()),
          r.records(),
          r.errors());
      return r.errors() == 0 ? 0 : 1;
    } finally {
      executor.shutdownNow();
    }
  }

  static int consume(ConsumeOptions o, PrintStream out) throws Exception {
    // The JDK keeps 5 idle connections per server by default: with more readers than that, the
    // rest would open a connection per fetch. Read once, before the first connection is made.
    if (System.getProperty("http.maxConnections") == null) {
      System.setProperty("http.maxConnections", String.valueOf(Math.max(5, o.partitions())));
    }
    ExecutorService executor = Executors.newFixedThreadPool(2, daemon("bench-http"));
    try {
      HttpClient client = client(executor);
      long cpuBefore = processCpuNanos();
      long wallBefore = System.nanoTime();
      ConsumeRun.Result r = new ConsumeRun(o, client, out).run();
      long cpuNanos = processCpuNanos() - cpuBefore;
      long wallNanos = System.nanoTime() - wallBefore;
      double mbPerSec =
          r.elapsedNanos() == 0 ? 0 : r.valueBytes() * 1e9 / r.elapsedNanos() / (1024.0 * 1024.0);
      out.printf(
          "consumed: %d records, %.1f MB of values in %.2f s with %d fetches%n",
          r.records(), r.valueBytes() / (1024.0 * 1024.0), r.elapsedNanos() / 1e9, r.fetches());
      out.printf("throughput: %.0f records/s, %.2f MB/s of values%n", r.recordsPerSec(), mbPerSec);
      r.errors().forEach(e -> out.println("error: " + e));
      printCpuNote(cpuNanos, wallNanos, out);
      out.printf(
          Locale.ROOT,
          "RESULT consume records_per_sec=%.0f mb_per_sec=%.2f records=%d fetches=%d errors=%d%n",
          r.recordsPerSec(),
          mbPerSec,
          r.records(),
          r.fetches(),
          r.errors().size());
      return r.errors().isEmpty() ? 0 : 1;
    } finally {
      executor.shutdownNow();
    }
  }

  private static HttpClient client(ExecutorService executor) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .executor(executor)
        .build();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static void printErrorSamples(ProduceRun.PhaseResult r, PrintStream out) {
    synchronized (r.errorSamples()) {
      r.errorSamples().forEach(e -> out.println("  e.g. " + e));
    }
  }

  /** The generator shares the machine with the broker: say how much CPU it took. */
  private static void printCpuNote(long cpuNanos, long wallNanos, PrintStream out) {
    if (cpuNanos < 0 || wallNanos == 0) {
      return;
    }
    out.printf(
        "generator CPU: %.0f%% of one core on average (%d cores on this machine, shared with the broker)%n",
        100.0 * cpuNanos / wallNanos, Runtime.getRuntime().availableProcessors());
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }
}
