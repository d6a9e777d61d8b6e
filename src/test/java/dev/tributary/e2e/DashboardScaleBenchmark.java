package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.browser.HeadlessChromium;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Not a test (it asserts only that the page works): the dashboard at scale, for docs/benchmarks.md.
 * Three brokers, a topic of {@code -Dtributary.bench.partitions} partitions (default 1,000,
 * replication factor 3), the page open on broker 1. Measures the time to the first full render, the
 * page's long tasks and the change-to-screen latency under a load that moves hundreds of high
 * watermarks a second, and the serving broker's CPU with the page open and idle versus closed. Run
 * alone, on a quiet machine:
 *
 * <pre>
 * ./mvnw verify -Dit.test=DashboardScaleBenchmark -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Results are printed and appended to {@code target/dashboard-scale.txt}.
 */
class DashboardScaleBenchmark {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final int PARTITIONS = Integer.getInteger("tributary.bench.partitions", 1000);
  static final String TOPIC = "big";

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;
  static HeadlessChromium browser;

  @BeforeAll
  static void start() {
    cluster =
        new TestCluster(data, e2e.logDir(), 3, List.of("--tributary.request-timeout-ms=30000"));
    client = new ClusterClient(cluster);
    cluster.startAll();
    browser = HeadlessChromium.start(1400, 1000);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (browser != null) {
      browser.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theDashboardAtScale() throws Exception {
    createTopic();
    ReplicationChecks.awaitFullIsr(cluster, client, TOPIC, PARTITIONS, Duration.ofMinutes(3));
    Thread.sleep(5_000); // let the brokers settle after creating the logs
    BrokerProcess serving = cluster.get(1);

    double closedCpu = cpuMsPerSecond(serving, 15);
    ((ChromeDriver) browser.driver())
        .executeCdpCommand(
            "Page.addScriptToEvaluateOnNewDocument",
            Map.of(
                "source",
                """
        window.__longTasks = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
            .observe({ type: 'longtask', buffered: true });"""));
    long openedMs = System.currentTimeMillis();
    browser.driver().get(serving.url("/"));
    await("all partitions rendered")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                browser.texts("#partitions tr[data-partition]").size() >= Math.min(50, PARTITIONS)
                    && String.valueOf(PARTITIONS)
                        .equals(
                            String.valueOf(
                                browser.script(
                                    "return window.tributaryDashboard.state().partitions.size"))));
    long firstRenderMs = System.currentTimeMillis() - openedMs;
    List<Double> renderTasks = longTasks();
    Thread.sleep(5_000);
    browser.script("window.__longTasks = [];");
    double idleOpenCpu = cpuMsPerSecond(serving, 15);
    List<Double> idleTasks = longTasks();

    // Load: 200 keyed records every 100 ms spread over every partition, so hundreds of HWs move
    // each second.
    browser.script("window.__longTasks = []; window.__hwSeen = {};");
    List<Long> latencies = new ArrayList<>();
    long loadEndMs = System.currentTimeMillis() + 20_000;
    int batch = 0;
    long loadStartCpu = cpuTicks(serving);
    long loadStartMs = System.currentTimeMillis();
    while (System.currentTimeMillis() < loadEndMs) {
      produceSpread(batch++);
      if (batch % 10 == 0) {
        latencies.add(probeLatency());
      }
      Thread.sleep(100);
    }
    double loadCpu =
        (cpuTicks(serving) - loadStartCpu)
            * 1000.0
            / clockTicks()
            / ((System.currentTimeMillis() - loadStartMs) / 1000.0);
    List<Double> loadTasks = longTasks();

    assertThat(latencies).isNotEmpty();
    List<Long> sorted = latencies.stream().sorted().toList();
    report(
        String.format(
            "%d partitions (RF 3, 3 brokers): first full render %d ms (long tasks: %s); idle page: long tasks %s; "
                + "serving broker CPU, page closed %.0f ms/s, page open and idle %.0f ms/s, page open under load %.0f ms/s; "
                + "under load (%d batches of 200 records, acks=1, spread over all partitions) long tasks: %s; produce "
                + "to screen for partition 0 (probe records, acks=all): n=%d median %d ms max %d ms",
            PARTITIONS,
            firstRenderMs,
            summary(renderTasks),
            summary(idleTasks),
            closedCpu,
            idleOpenCpu,
            loadCpu,
            batch,
            summary(loadTasks),
            sorted.size(),
            sorted.get(sorted.size() / 2),
            sorted.get(sorted.size() - 1)));
  }

  private static void createTopic() throws Exception {
    String body =
        "{\"topic_name\":\""
            + TOPIC
            + "\",\"partitions_count\":"
            + PARTITIONS
            + ",\"replication_factor\":3}";
    HttpResponse<String> created =
        client.send(
            "POST", cluster.get(2), "/v3/clusters/" + TestCluster.CLUSTER_ID + "/topics", body);
    // Many partitions take the other brokers a while to set up: 503 "not yet seen here" is no
    // failure.
    assertThat(created.statusCode()).as(created.body()).isIn(201, 503);
  }

  private static void produceSpread(int batch) throws IOException, InterruptedException {
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 200; i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"key\":\"k")
          .append(batch * 200 + i)
          .append("\",\"value\":1}");
    }
    HttpResponse<String> response =
        client.send(
            "POST", cluster.get(1), "/topics/" + TOPIC + "?acks=1", body.append("]}").toString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  /**
   * Produces one record to partition 0 and returns how long its new HW takes to show on the page.
   */
  private static long probeLatency() throws Exception {
    HttpResponse<String> response =
        client.send(
            "POST",
            cluster.get(1),
            "/topics/" + TOPIC + "/partitions/0?acks=all",
            "{\"records\":[{\"value\":1}]}");
    long ackedMs = System.currentTimeMillis();
    long offset =
        client.json.readTree(response.body()).path("offsets").get(0).path("offset").asLong();
    String row = "#partitions tr[data-partition='" + TOPIC + "-0']";
    Object seen = null;
    long deadline = ackedMs + 10_000;
    while (seen == null && System.currentTimeMillis() < deadline) {
      seen =
          browser.script(
              """
          const row = document.querySelector(arguments[0]);
          const hw = row ? Number(row.getAttribute('data-hw') || -1) : -1;
          return hw > arguments[1] ? Date.now() : null;""",
              row,
              offset);
      if (seen == null) {
        Thread.sleep(5);
      }
    }
    assertThat(seen).as("HW past offset %d on the page", offset).isNotNull();
    return ((Number) seen).longValue() - ackedMs;
  }

  private static List<Double> longTasks() {
    Object tasks = browser.script("return window.__longTasks || [];");
    return ((List<?>) tasks).stream().map(t -> ((Number) t).doubleValue()).toList();
  }

  private static String summary(List<Double> tasks) {
    double total = tasks.stream().mapToDouble(Double::doubleValue).sum();
    double max = tasks.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    return String.format("%d, total %.0f ms, longest %.0f ms", tasks.size(), total, max);
  }

  private static double cpuMsPerSecond(BrokerProcess broker, int seconds) throws Exception {
    long before = cpuTicks(broker);
    Thread.sleep(seconds * 1000L);
    return (cpuTicks(broker) - before) * 1000.0 / clockTicks() / seconds;
  }

  /** utime + stime of the broker process, in clock ticks (Linux /proc). */
  private static long cpuTicks(BrokerProcess broker) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + broker.pid() + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  private static long clockTicks() {
    return 100; // USER_HZ on Linux
  }

  private static void report(String line) throws IOException {
    System.out.println(line);
    Path file = Path.of("target", "dashboard-scale.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(
        file, line + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
