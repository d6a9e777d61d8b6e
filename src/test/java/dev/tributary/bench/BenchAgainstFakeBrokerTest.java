package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the whole generator against {@link FakeBroker}: what it sends, how it counts, what it
 * prints.
 */
class BenchAgainstFakeBrokerTest {
  private record Run(int exitCode, String out, String err) {
    Map<String, String> result() {
      String line =
          out.lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b).orElseThrow();
      return Stream.of(line.split(" "))
          .skip(2)
          .map(kv -> kv.split("=", 2))
          .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
    }
  }

  private static Run bench(String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Bench.run(
            argv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * A produce of {@code records} in batches of {@code batch} with no warm-up, then {@code more}.
   */
  private static Run produceWithoutWarmup(String url, int records, int batch, String... more) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "produce",
                "--url",
                url,
                "--records",
                String.valueOf(records),
                "--batch",
                String.valueOf(batch),
                "--warmup-records",
                "0"));
    argv.addAll(List.of(more));
    return bench(argv.toArray(String[]::new));
  }

  @Test
  void produceSendsWarmupPlusRecordsRoundRobinWithABoundedWindow() throws Exception {
    try (FakeBroker broker = new FakeBroker()) {
      Run run =
          bench(
              "produce",
              "--url",
              broker.url(),
              "--partitions",
              "3",
              "--records",
              "1050",
              "--batch",
              "100",
              "--warmup-records",
              "300",
              "--concurrency",
              "4",
              "--acks",
              "1");
      assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
      assertThat(broker.createdPartitions.get()).isEqualTo(3);
      // 3 warm-up requests, then 10 full batches and one of 50: 1350 records over 3 partitions.
      assertThat(broker.produceRequests.get()).isEqualTo(14);
      assertThat(
              broker.values.get(0).size()
                  + broker.values.get(1).size()
                  + broker.values.get(2).size())
          .isEqualTo(1350);
      assertThat(broker.values.get(0)).hasSize(100 + 400);
      assertThat(broker.values.get(1)).hasSize(100 + 350);
      assertThat(broker.values.get(2)).hasSize(100 + 300);
      assertThat(broker.maxInFlight.get()).isBetween(1, 4);
      assertThat(broker.acksSeen).allMatch("acks=1"::equals);
      assertThat(broker.contentTypes).allMatch("application/vnd.kafka.binary.v2+json"::equals);
      Map<String, String> result = run.result();
      assertThat(result).containsEntry("errors", "0").containsEntry("records", "1050");
      assertThat(Double.parseDouble(result.get("records_per_sec"))).isPositive();
      assertThat(Double.parseDouble(result.get("p99_ms")))
          .isGreaterThanOrEqualTo(Double.parseDouble(result.get("p50_ms")));
    }
  }

  @Test
  void produceCountsErrorCodesAndExitsNonZero() throws Exception {
    try (FakeBroker broker = new FakeBroker()) {
      broker.failEvery = 5;
      Run run =
          produceWithoutWarmup(broker.url(), 2000, 100, "--format", "json", "--concurrency", "2");
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.result()).containsEntry("errors", "4").containsEntry("records", "1600");
      assertThat(run.out()).contains("e.g. error_code 50003");
      assertThat(broker.contentTypes).allMatch("application/vnd.kafka.json.v2+json"::equals);
    }
  }

  @Test
  void consumeReadsEveryPartitionToTheEndAndCountsValueBytes() throws Exception {
    try (FakeBroker broker = new FakeBroker()) {
      assertThat(produceWithoutWarmup(broker.url(), 3000, 250, "--record-size", "10").exitCode())
          .isZero();
      Run run = bench("consume", "--url", broker.url(), "--max-bytes", "4096");
      assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
      Map<String, String> result = run.result();
      assertThat(result).containsEntry("records", "3000").containsEntry("errors", "0");
      Matcher m = Pattern.compile("([0-9.]+) MB of values").matcher(run.out());
      assertThat(m.find()).isTrue();
      assertThat(Double.parseDouble(m.group(1))).isEqualTo(0.0); // 30,000 bytes prints as 0.0 MB
      assertThat(Long.parseLong(result.get("fetches"))).isGreaterThan(3);
    }
  }

  @Test
  void produceLooksTheLeadersUpAgainWhenALeaderIsGone() throws Exception {
    try (FakeBroker alive = new FakeBroker()) {
      FakeBroker gone = new FakeBroker();
      gone.close(); // its port now refuses connections, as a killed broker's does
      alive.otherBrokers.put(2, gone.port());
      alive.leaderAnswers.add(2); // the lookup at the start names broker 2 for every partition
      Run run = produceWithoutWarmup(alive.url(), 3000, 100, "--concurrency", "4");
      long errors = Long.parseLong(run.result().get("errors"));
      // Only the requests in flight when the first failure came back are lost: the next send
      // waits for a new lookup, which names this broker.
      assertThat(errors).as(run.out()).isBetween(1L, 4L);
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.result()).containsEntry("records", String.valueOf(3000 - 100 * errors));
      assertThat(alive.produceRequests.get()).isEqualTo(30 - errors);
      assertThat(run.out())
          .contains(
              "straight to its leader, as a Kafka client does: [http://127.0.0.1:" + gone.port())
          .contains("leaders changed (asked " + alive.url() + "): [" + alive.url());
    }
  }

  @Test
  void produceGivesUpWhenNothingIsAcknowledgedForTheRequestTimeout() throws Exception {
    try (FakeBroker broker = new FakeBroker()) {
      broker.failFrom = 11; // ten requests are acknowledged, then every one fails (no leader left)
      Run run =
          produceWithoutWarmup(
              broker.url(), 3000, 100, "--concurrency", "1", "--request-timeout-ms", "1000");
      assertThat(run.exitCode()).isEqualTo(1);
      // Unsent requests count as failed: 30 requests, 10 acknowledged.
      assertThat(run.result()).containsEntry("records", "1000").containsEntry("errors", "20");
      assertThat(run.out())
          .contains("gave up: requests kept failing and none was acknowledged for");
      // Each failure waits out the 250 ms lookup back-off, so the second without an acknowledgement
      // ends the run after a handful of the twenty: it does not wait out a back-off for each.
      assertThat(broker.produceRequests.get()).isLessThan(30);
    }
  }

  @Test
  void consumeShowsTheBrokersRefusalAndExitsNonZero() throws Exception {
    try (FakeBroker broker = new FakeBroker()) {
      broker.values.put(0, new ArrayList<>(List.of("AAE=", "AAI=")));
      broker.refuseFetchesWith = 403;
      Run run = bench("consume", "--url", broker.url(), "--partitions", "1");
      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.result()).containsEntry("records", "0").containsEntry("errors", "1");
      assertThat(run.out())
          .contains("partition 0: fetch at offset 0 answered HTTP 403")
          .contains("Not authorized to read topic bench")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void unreachableBrokerIsAFriendlyErrorNotAStackTrace() {
    Run run = bench("produce", "--url", "http://127.0.0.1:1", "--records", "10");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("cannot connect").doesNotContain("\tat ");
  }

  @Test
  void usageErrorsExitWithTwoAndHelpWithZero() {
    assertThat(bench("produce", "--acks", "7").exitCode()).isEqualTo(2);
    assertThat(bench("frobnicate").exitCode()).isEqualTo(2);
    Run help = bench("produce", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("--record-size");
  }
}
