package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Randomized replication chaos: three brokers, a topic with replication factor 3 and {@code
 * min.insync.replicas=2} under an {@code acks=all} {@link ProducerLoad}, while a seeded schedule
 * picks a random broker and a random fault: SIGKILL then restart, SIGSTOP for 1-6 s then SIGCONT,
 * or SIGTERM (controlled shutdown) then restart. Never more than one broker is down or paused at a
 * time, so two replicas can always take writes; the next fault does not wait for the ISR to be full
 * again, though. Then the cluster heals and {@link HistoryChecker} compares every produce with the
 * leaders' logs and each replica's files, as {@link ReplicationFaultsIT} does after each named
 * fault.
 *
 * <p>Faults start for {@code -Dtributary.chaos.seconds} (default 10); the long run is {@code
 * ./tributary chaos --minutes N}. In a plain {@code ./mvnw verify} it runs only where the machine
 * cannot build network namespaces: where it can (root, as on CI), {@code
 * HostsClusterIT.randomNetworkFaultsLoseNoAcknowledgedRecord} is the short soak, with the same
 * faults ({@link NetworkNemesis} kills, pauses and SIGTERMs too) plus network ones, on a cluster
 * that is already running, so one randomized soak per build is enough. The seed ({@code
 * -Dtributary.seed}, default random) is printed at the start and in the failure message; with it
 * the same fault schedule replays (the timing of the cluster's answers still varies).
 */
class ReplicationChaosIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final int PARTITIONS = 3;
  static final Duration HEAL = Duration.ofSeconds(90);

  @TempDir Path data;
  private TestCluster cluster;

  @AfterEach
  void stopCluster() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void randomCrashesPausesAndRestartsLoseNoAcknowledgedRecord() throws Exception {
    Assumptions.assumeTrue(
        System.getProperty("tributary.chaos.seconds") != null || !TestNetwork.available(),
        "the network soak (HostsClusterIT) is this build's randomized soak; "
            + "-Dtributary.chaos.seconds=N runs this one");
    long seconds = Long.getLong("tributary.chaos.seconds", 10);
    long seed = Long.getLong("tributary.seed", System.nanoTime());
    System.out.println(
        "chaos: " + seconds + " s, seed " + seed + " (replay with -Dtributary.seed=" + seed + ")");
    try {
      run(seconds, new Random(seed));
    } catch (Throwable failure) {
      throw new AssertionError(
          "chaos run with seed "
              + seed
              + " failed (replay with -Dtributary.seed="
              + seed
              + "; broker logs in "
              + e2e.logDir()
              + "): "
              + failure,
          failure);
    }
  }

  private void run(long seconds, Random random) throws Exception {
    cluster =
        new TestCluster(
            data,
            e2e.logDir(),
            3,
            List.of(
                "--tributary.replica-lag-time-max-ms=2000", "--tributary.request-timeout-ms=5000"));
    ClusterClient client = new ClusterClient(cluster);
    cluster.startAll();
    String topic = "chaos";
    client.createTopic(topic, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
    ReplicationChecks.awaitFullIsr(cluster, client, topic, PARTITIONS, HEAL);
    HistoryChecker history = new HistoryChecker(topic);
    List<String> faults = new ArrayList<>();
    long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    try (ProducerLoad load =
        ProducerLoad.start(cluster, client, history, topic, PARTITIONS, random.nextLong())) {
      while (System.nanoTime() < deadlineNanos) {
        pace(
            500
                + random.nextInt(
                    2_500)); // the gap between faults: part of the schedule, not a wait for a state
        BrokerProcess victim = cluster.get(1 + random.nextInt(3));
        int fault = random.nextInt(3);
        long startNanos = System.nanoTime();
        String what;
        switch (fault) {
          case 0 -> {
            long downMs = random.nextInt(3_000);
            victim.kill();
            pace(downMs);
            victim.start();
            what = "SIGKILL, down " + downMs + " ms";
          }
          case 1 -> {
            long pausedMs = 1_000 + random.nextInt(5_001);
            victim.pause();
            pace(pausedMs);
            victim.resume();
            what = "SIGSTOP for " + pausedMs + " ms";
          }
          default -> {
            int exit = victim.stop();
            assertThat(exit)
                .as("exit code of broker %d after SIGTERM", victim.brokerId())
                .isIn(0, 143);
            victim.start();
            what = "SIGTERM and restart";
          }
        }
        faults.add(
            String.format(
                "broker %d: %s (%d ms in all)",
                victim.brokerId(), what, (System.nanoTime() - startNanos) / 1_000_000));
        System.out.println(
            "chaos: " + faults.get(faults.size() - 1) + "; " + history.check(List.of()).summary());
      }
    }
    ReplicationChecks.awaitFullIsr(cluster, client, topic, PARTITIONS, HEAL);
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, PARTITIONS));
    System.out.println("chaos: " + faults.size() + " faults: " + faults);
    System.out.println("chaos: " + result.summary());
    assertThat(history.ops().stream().filter(op -> op.outcome() == Outcome.OK).count())
        .as(result.summary())
        .isPositive();
    result.assertNoViolations();
  }

  /**
   * Lets the schedule's time pass (the fault lasts that long); never used to wait for a condition.
   */
  private static void pace(long millis) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
  }
}
