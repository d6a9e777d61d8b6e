package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A seeded schedule of faults on a cluster of separate hosts ({@link TestNetwork}): one at a time,
 * each healed by itself before the next, a random broker (and peer) each time:
 *
 * <ul>
 *   <li>cut off from everyone, clients included;
 *   <li>cut off from one or both other brokers, clients still reaching it (a partition: a minority
 *       of one, or a bridge where the others do not see each other);
 *   <li>a one-way link (packets from it to one peer dropped);
 *   <li>a lossy link (30–70 % of its packets to one peer dropped, TCP retransmits);
 *   <li>SIGKILL then restart, SIGTERM (a controlled shutdown) then restart, or SIGSTOP then
 *       SIGCONT;
 *   <li>a slow disk: every log write and fsync of the broker 50–400 ms longer, through the
 *       dashboard's fault action {@code /dashboard/actions/brokers/{id}/disk}, then healed (0);
 *   <li>a skewed clock: the broker's wall clock jumps 1–10 minutes ahead or behind, through the
 *       dashboard's fault action {@code /dashboard/actions/brokers/{id}/clock}, then is put right
 *       (0); its monotonic clock runs on;
 *   <li>a slow link: everything the broker sends (to peers and clients) limited to 200–2000 kbit/s
 *       ({@link TestNetwork#slow}: a tbf queue, so queueing delay that grows with the traffic, not
 *       a fixed latency, which needs netem), then healed.
 * </ul>
 *
 * Each lasts 1–4 s (kills: down up to 3 s, plus the restart), with 0.5–2 s between faults. The
 * schedule depends only on the seed; the cluster's answers and their timing do not. (Adding a kind
 * of fault changes the schedule a seed gives: seeds from before the slow disk, and from before the
 * clock skew and the slow link, replay other faults.)
 */
final class NetworkNemesis {
  private final TestNetwork network;
  private final TestCluster cluster;
  private final ClusterClient client;
  private final Random random;
  private final List<String> faults = new ArrayList<>();

  /** The broker whose disk is slow now, or 0; healed in {@link #run}'s end if a fault failed. */
  private int slowDisk;

  /** The broker whose wall clock is skewed now, or 0; put right in {@link #run}'s end likewise. */
  private int skewedClock;

  /**
   * @param client sets the slow disk and the clock skew through the dashboard (the cluster needs
   *     {@code tributary.dashboard.fault-actions=true})
   */
  NetworkNemesis(TestNetwork network, TestCluster cluster, ClusterClient client, long seed) {
    this.network = network;
    this.cluster = cluster;
    this.client = client;
    this.random = new Random(seed);
  }

  /**
   * Runs faults until {@code seconds} have passed (the last may end a few seconds later), then
   * heals every link, disk and clock and starts or resumes every broker; {@code afterEach} gets
   * each fault's line.
   */
  List<String> run(long seconds, Consumer<String> afterEach) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    int brokers = cluster.all().size();
    try {
      while (System.nanoTime() < deadline) {
        pace(500 + random.nextInt(1_500));
        int victim = 1 + random.nextInt(brokers);
        int peer = 1 + (victim + random.nextInt(brokers - 1)) % brokers; // any other broker
        long lastsMs = 1_000 + random.nextInt(3_001);
        long start = System.nanoTime();
        String what = inject(random.nextInt(10), victim, peer, lastsMs);
        String line =
            String.format("%s (%d ms in all)", what, (System.nanoTime() - start) / 1_000_000);
        faults.add(line);
        afterEach.accept(line);
      }
    } finally {
      network.heal(); // a slow link's qdisc too
      cluster.healAll();
      if (slowDisk != 0) {
        try {
          setDiskDelay(slowDisk, 0); // a fault that failed midway
        } catch (RuntimeException | AssertionError e) {
          // Best effort, not to hide the failure under way: a broker that is down comes back with
          // a healthy disk (the delay lives in memory only).
        }
      }
      if (skewedClock != 0) {
        try {
          setClockSkew(skewedClock, 0);
        } catch (RuntimeException | AssertionError e) {
          // Best effort as above: the skew too lives in memory only.
        }
      }
    }
    return List.copyOf(faults);
  }

  private String inject(int fault, int victim, int peer, long lastsMs) {
    BrokerProcess broker = cluster.get(victim);
    switch (fault) {
      case 0 -> {
        network.isolate(victim);
        pace(lastsMs);
        network.heal();
        return "broker " + victim + " isolated from everyone for " + lastsMs + " ms";
      }
      case 1 -> {
        Set<Integer> peers = new TreeSet<>(Set.of(peer));
        if (random.nextBoolean()) {
          cluster.all().forEach(b -> peers.add(b.brokerId()));
          peers.remove(victim);
        }
        network.cut(victim, peers);
        pace(lastsMs);
        network.heal();
        return "broker " + victim + " cut off from brokers " + peers + " for " + lastsMs + " ms";
      }
      case 2 -> {
        network.oneWay(victim, peer);
        pace(lastsMs);
        network.heal();
        return "packets " + victim + " -> " + peer + " dropped for " + lastsMs + " ms";
      }
      case 3 -> {
        int percent = 30 + random.nextInt(41);
        network.lossy(victim, peer, percent);
        pace(lastsMs);
        network.heal();
        return percent + " % of packets " + victim + " -> " + peer + " lost for " + lastsMs + " ms";
      }
      case 4 -> {
        long downMs = random.nextInt(3_000);
        try {
          broker.kill();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        pace(downMs);
        broker.start();
        return "broker " + victim + " SIGKILLed, down " + downMs + " ms, restarted";
      }
      case 5 -> {
        try {
          assertThat(broker.stop()).as("exit code of broker %d after SIGTERM", victim).isIn(0, 143);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        broker.start();
        return "broker " + victim + " SIGTERMed and restarted";
      }
      case 7 -> {
        long delayMs = 50 + random.nextInt(351);
        setDiskDelay(victim, delayMs);
        pace(lastsMs);
        setDiskDelay(victim, 0);
        return "broker " + victim + "'s disk " + delayMs + " ms slower for " + lastsMs + " ms";
      }
      case 8 -> {
        long skewMs = (random.nextBoolean() ? 1 : -1) * (60_000 + random.nextInt(540_001));
        setClockSkew(victim, skewMs);
        pace(lastsMs);
        setClockSkew(victim, 0);
        return String.format(
            "broker %d's wall clock %+d ms off for %d ms", victim, skewMs, lastsMs);
      }
      case 9 -> {
        int kbitPerSec = 200 + random.nextInt(1_801);
        network.slow(victim, kbitPerSec);
        pace(lastsMs);
        network.heal();
        return String.format(
            "broker %d's link slowed to %d kbit/s for %d ms", victim, kbitPerSec, lastsMs);
      }
      default -> {
        broker.pause();
        pace(lastsMs);
        broker.resume();
        assertThat(broker.isAlive()).isTrue();
        return "broker " + victim + " SIGSTOPped for " + lastsMs + " ms";
      }
    }
  }

  /**
   * Sets broker {@code brokerId}'s disk delay through the dashboard's fault action, asking the
   * broker itself (every link is up between faults, so it answers).
   */
  private void setDiskDelay(int brokerId, long delayMs) {
    faultAction(brokerId, "disk", "{\"delay_ms\":" + delayMs + "}");
    slowDisk = delayMs == 0 ? 0 : brokerId;
  }

  /**
   * Sets broker {@code brokerId}'s wall-clock skew (absolute, 0 puts it right) the same way. The
   * broker is marked skewed before it is asked, so that an answer lost on the way still gets the
   * skew undone at the end.
   */
  private void setClockSkew(int brokerId, long skewMs) {
    if (skewMs != 0) {
      skewedClock = brokerId;
    }
    faultAction(brokerId, "clock", "{\"skew_ms\":" + skewMs + "}");
    if (skewMs == 0) {
      skewedClock = 0;
    }
  }

  /**
   * {@code POST /dashboard/actions/brokers/{brokerId}/{action}} to the broker itself; must be 200.
   */
  private void faultAction(int brokerId, String action, String body) {
    HttpResponse<String> answer;
    try {
      answer =
          client.send(
              "POST",
              cluster.get(brokerId),
              "/dashboard/actions/brokers/" + brokerId + "/" + action,
              body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    assertThat(answer.statusCode())
        .as("%s of broker %d: %s", action, brokerId, answer.body())
        .isEqualTo(200);
  }

  /** Lets the schedule's time pass; never a wait for a condition. */
  private static void pace(long millis) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
  }
}
