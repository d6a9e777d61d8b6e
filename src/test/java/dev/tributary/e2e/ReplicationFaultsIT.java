package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.LocalReplica;
import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import dev.tributary.e2e.HistoryChecker.View;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Partition replication under faults, end to end: three broker processes, topics with replication
 * factor 3 and {@code min.insync.replicas=2}, an {@code acks=all} load ({@link ProducerLoad})
 * throughout each fault, then, once healed, every produce checked by {@link HistoryChecker} against
 * the leaders (through the API) and every replica's own files ({@link ReplicaLogs}). The faults:
 * SIGKILL and SIGTERM of a leader, five leader bounces in a row, SIGKILL of the controller's
 * broker, SIGSTOP of a follower and of a leader, two of three brokers down, a torn segment tail on
 * a crashed follower, and the leader's wall clock jumping minutes either way. Last, a negative
 * control: with {@code min.insync.replicas=1} and unclean leader election, the checker must find
 * acknowledged records lost.
 *
 * <p>One cluster for the class (its logs under {@code e2e-logs/ReplicationFaultsIT/}); every test
 * uses its own topic and starts with every broker running; {@code replica.lag.time.max.ms} is 2 s
 * and the {@code acks=all} timeout 5 s so faults show quickly.
 *
 * <p>Near the 700-line limit for tests: the next fault scenario goes into a new class. Nothing
 * shares a running cluster between IT classes (E2eFixture gives each class its own, started in
 * {@code @BeforeAll} as {@link #startCluster} does, logged under {@code e2e-logs/<Class>/} and
 * killed after the class), so the new class starts one with these settings; what both need goes
 * into {@link ReplicationChecks} (move {@code Run} there, taking the cluster and client), not a
 * copy.
 */
class ReplicationFaultsIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final long REPLICA_LAG_TIME_MAX_MS = 2_000;
  static final long BROKER_SESSION_TIMEOUT_MS = 3_000; // the broker defaults
  static final long BROKER_HEARTBEAT_INTERVAL_MS = 500;
  static final Duration FAILOVER = Duration.ofSeconds(30);
  static final Duration HEAL = Duration.ofSeconds(60);

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;

  @BeforeAll
  static void startCluster() {
    cluster =
        new TestCluster(
            data,
            e2e.logDir(),
            3,
            List.of(
                "--tributary.replica-lag-time-max-ms=" + REPLICA_LAG_TIME_MAX_MS,
                "--tributary.request-timeout-ms=5000",
                "--tributary.dashboard.fault-actions=true")); // the clock skew
    client = new ClusterClient(cluster);
    cluster.startAll();
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Whatever an earlier test left behind: every broker runs again. */
  @BeforeEach
  void everyBrokerRuns() {
    cluster.healAll();
  }

  // ------------------------------------------------------------------------------------------------ scenarios

  @Test
  void sigkillOfALeaderLosesNoAcknowledgedRecord() throws Exception {
    Run run = Run.start("kill-leader", 3);
    run.awaitAcknowledged(0, System.nanoTime(), 10);
    int leader = client.partition(run.topic, 0).leader();

    cluster.get(leader).kill();
    long killedNanos = System.nanoTime();
    awaitLeader(run.topic, 0, id -> id >= 0 && id != leader);
    run.awaitAcknowledged(0, killedNanos, 10); // writes go on with the new leader (and an ISR of 2)

    cluster.restart(leader);
    run.finish().assertNoViolations();
  }

  @Test
  void sigtermOfALeaderMovesLeadershipAndLosesNothing() throws Exception {
    Run run = Run.start("stop-leader", 3);
    run.awaitAcknowledged(0, System.nanoTime(), 10);
    int leader = client.partition(run.topic, 0).leader();

    long stoppedNanos = System.nanoTime();
    assertThat(cluster.get(leader).stop())
        .as("exit code of broker %d after SIGTERM", leader)
        .isIn(0, 143);
    awaitLeader(run.topic, 0, id -> id >= 0 && id != leader);
    run.awaitAcknowledged(0, stoppedNanos, 10);

    cluster.restart(leader);
    run.finish().assertNoViolations();
  }

  @Test
  void sigkillOfTheControllersBrokerLosesNothing() throws Exception {
    Run run = Run.start("kill-controller", 3);
    run.awaitAcknowledged(-1, System.nanoTime(), 10);
    int controller = client.controllerId();

    cluster.get(controller).kill();
    long killedNanos = System.nanoTime();
    await("a new controller")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              int now = client.controllerId();
              return now >= 0 && now != controller;
            });
    for (int p = 0; p < run.partitions; p++) {
      run.awaitAcknowledged(
          p, killedNanos, 5); // every partition, including those the dead broker led
    }

    cluster.restart(controller);
    run.finish().assertNoViolations();
  }

  @Test
  void aPausedFollowerLeavesTheIsrAndComesBack() throws Exception {
    Run run = Run.start("pause-follower", 3);
    run.awaitAcknowledged(0, System.nanoTime(), 10);
    PartitionState p0 = client.partition(run.topic, 0);
    int controller = client.controllerId();
    int follower =
        p0.replicas().stream()
            .filter(id -> id != p0.leader() && id != controller)
            .findFirst()
            .orElseGet(
                () ->
                    p0.replicas().stream()
                        .filter(id -> id != p0.leader())
                        .findFirst()
                        .orElseThrow());

    cluster.get(follower).pause();
    long pausedNanos = System.nanoTime();
    await("broker " + follower + " out of the ISR of " + run.topic + "-0")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              List<Integer> isr = client.partition(run.topic, 0).isr();
              return isr.size() == 2 && !isr.contains(follower);
            });
    long shrunkNanos = System.nanoTime();
    System.out.printf(
        "pause-follower: ISR of p0 shrank without broker %d %d ms after SIGSTOP (lag time %d ms); "
            + "broker states then: %s%n",
        follower,
        (shrunkNanos - pausedNanos) / 1_000_000,
        REPLICA_LAG_TIME_MAX_MS,
        client.brokerStates());
    assertThat((shrunkNanos - pausedNanos) / 1_000_000)
        .as("ms until the ISR shrank")
        .isGreaterThanOrEqualTo(
            REPLICA_LAG_TIME_MAX_MS - 500); // not before the lag time (allowing for clock slack)
    run.awaitAcknowledged(
        0, shrunkNanos, 10); // writes go on with min.insync.replicas=2 met by the other two

    cluster.get(follower).resume();
    awaitFullIsr(run.topic, run.partitions);
    run.finish().assertNoViolations();
  }

  @Test
  void withTwoOfThreeBrokersDownNothingIsAcknowledgedAndWritesResumeAfterRestart()
      throws Exception {
    Run run = Run.start("kill-two", 3);
    run.awaitAcknowledged(-1, System.nanoTime(), 10);
    int survivor = client.controllerId();
    List<Integer> victims =
        cluster.all().stream().map(BrokerProcess::brokerId).filter(id -> id != survivor).toList();

    for (int id : victims) {
      cluster.get(id).kill();
    }
    long killedNanos = System.nanoTime();
    // A produce is answered on every partition and none is acknowledged: no partition has two live
    // in-sync replicas, and without a quorum majority no ISR can shrink to the survivor. (Each
    // answer takes the acks=all timeout, 5 s: one per partition is enough.)
    await("produce answers with two brokers down")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              for (int p = 0; p < run.partitions; p++) {
                int partition = p;
                if (run.history.ops().stream()
                        .filter(
                            op -> op.sentPartition() == partition && op.sentNanos() >= killedNanos)
                        .count()
                    < ProducerLoad.RECORDS_PER_BATCH) {
                  return false;
                }
              }
              return true;
            });
    assertThat(run.history.acknowledgedSentAfter(killedNanos, -1))
        .as("records acknowledged though sent after 2 of 3 brokers died")
        .isZero();
    System.out.println("kill-two: answers while down: " + run.history.check(List.of()).summary());

    long restartNanos = System.nanoTime();
    for (int id : victims) {
      cluster.get(id).launch();
    }
    for (int id : victims) {
      cluster.get(id).awaitReady();
    }
    for (int p = 0; p < run.partitions; p++) {
      run.awaitAcknowledged(p, restartNanos, 5);
    }
    run.finish().assertNoViolations();
  }

  /**
   * Partition 0's leader bounced three times (SIGKILL, SIGTERM, SIGKILL; {@code
   * -Dtributary.bounces=N} for more), each followed by a restart and a wait until the ISR is full
   * again. Preferred leader election is minutes away, so each bounce hits the broker that took over
   * from the previous one: three bounces reach all three brokers. Longer runs of such faults are
   * ReplicationChaosIT's and CrashSoakIT's; a bounce costs about 12 s of the CI budget.
   */
  @Test
  void aLeaderBouncedRepeatedlyHardAndCleanLosesNothing() throws Exception {
    Run run = Run.start("bounce-leader", 3);
    run.awaitAcknowledged(0, System.nanoTime(), 10);
    int bounces = Integer.getInteger("tributary.bounces", 3);
    for (int bounce = 1; bounce <= bounces; bounce++) {
      PartitionState before = client.partition(run.topic, 0);
      int leader = before.leader();
      boolean hard = bounce % 2 == 1;
      long faultNanos = System.nanoTime();
      if (hard) {
        cluster.get(leader).kill();
      } else {
        assertThat(cluster.get(leader).stop())
            .as("exit code of broker %d after SIGTERM", leader)
            .isIn(0, 143);
      }
      awaitLeader(run.topic, 0, id -> id >= 0 && id != leader);
      run.awaitAcknowledged(0, faultNanos, 5);
      PartitionState after = client.partition(run.topic, 0);
      cluster.restart(leader);
      awaitFullIsr(run.topic, run.partitions);
      System.out.printf(
          "bounce-leader: bounce %d (%s) of broker %d: leader %d e%d -> %d e%d; full ISR again %d ms "
              + "after the fault%n",
          bounce,
          hard ? "SIGKILL" : "SIGTERM",
          leader,
          leader,
          before.leaderEpoch(),
          after.leader(),
          after.leaderEpoch(),
          (System.nanoTime() - faultNanos) / 1_000_000);
      assertThat(after.leaderEpoch())
          .as("leader epoch after bounce %d", bounce)
          .isGreaterThan(before.leaderEpoch());
    }
    run.finish().assertNoViolations();
  }

  /**
   * A SIGSTOPped leader is fenced after its broker session and replaced in the next leader epoch;
   * the load goes through the other brokers meanwhile (a request to the frozen one would hang).
   * Resumed, the old leader learns the new epoch, steps down, truncates what only it had, and
   * rejoins the ISR. Whatever it answered once resumed is in the history too: an acknowledgement it
   * gave for a record it then truncated would be reported as lost.
   */
  @Test
  void aPausedLeaderIsReplacedAndStepsDownWhenResumed() throws Exception {
    Run run = Run.start("pause-leader", 3);
    run.awaitAcknowledged(-1, System.nanoTime(), 10);
    int controller = client.controllerId();
    // A leader that is not also the controller: this is about the partition leader, not a
    // controller failover.
    List<PartitionState> states = client.partitions(run.topic);
    PartitionState before =
        states.stream().filter(p -> p.leader() != controller).findFirst().orElse(states.get(0));
    int partition = before.partition();
    int leader = before.leader();
    String tp = run.topic + "-" + partition;

    cluster.get(leader).pause();
    long pausedNanos = System.nanoTime();
    await("a new leader for " + tp)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              int now = client.partition(run.topic, partition).leader();
              return now >= 0 && now != leader;
            });
    long electedNanos = System.nanoTime();
    PartitionState elected = client.partition(run.topic, partition);
    System.out.printf(
        "pause-leader: %s led by broker %d e%d -> broker %d e%d %d ms after SIGSTOP (session %d ms)%n",
        tp,
        leader,
        before.leaderEpoch(),
        elected.leader(),
        elected.leaderEpoch(),
        (electedNanos - pausedNanos) / 1_000_000,
        BROKER_SESSION_TIMEOUT_MS);
    assertThat(elected.leaderEpoch())
        .as("leader epoch of " + tp)
        .isEqualTo(before.leaderEpoch() + 1);
    // Not before the session can have expired: it runs from the last heartbeat, at most one
    // interval before SIGSTOP
    // (plus slack for polling and scheduling).
    assertThat((electedNanos - pausedNanos) / 1_000_000)
        .as("ms until a new leader")
        .isGreaterThanOrEqualTo(BROKER_SESSION_TIMEOUT_MS - BROKER_HEARTBEAT_INTERVAL_MS - 250);
    run.awaitAcknowledged(partition, electedNanos, 10);

    long logBeforeResume = Files.size(cluster.get(leader).logFile());
    cluster.get(leader).resume();
    await("broker " + leader + " steps down as leader of " + tp)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              PartitionState seen = client.partition(cluster.get(leader), run.topic, partition);
              Optional<LocalReplica> local =
                  client.localReplica(cluster.get(leader), run.topic, partition);
              return seen.leader() >= 0
                  && seen.leader() != leader
                  && local.isPresent()
                  && !local.get().leader();
            });
    Result result = run.finish();
    // For the report: what the old leader did on resuming (appends of requests it had taken in
    // before SIGSTOP are
    // truncated away here), as it logged it.
    String logSinceResume = logSince(cluster.get(leader), logBeforeResume);
    logSinceResume
        .lines()
        .filter(line -> line.contains(" " + tp + " ") || line.contains(" " + tp + ":"))
        .filter(line -> line.contains("Resigned") || line.contains("Truncated"))
        .forEach(
            line ->
                System.out.println(
                    "pause-leader: broker "
                        + leader
                        + " logged: "
                        + line.replaceFirst("^.*? : ", "")));
    result.assertNoViolations();
    // Whatever it truncated is on the cluster's timeline, as its broker reported it (the report
    // goes to the controller after the cut, so wait for it).
    long truncations =
        logSinceResume.lines().filter(line -> line.contains("Truncated " + tp + " from")).count();
    if (truncations > 0) {
      await("the timeline shows broker " + leader + "'s truncation of " + tp)
          .atMost(FAILOVER)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> truncationEvents(leader, run.topic, partition) >= truncations);
    }
    System.out.printf("pause-leader: %d truncation(s) of %s, on the timeline%n", truncations, tp);
  }

  /** The timeline's replica_truncated events for one replica, as broker 1's state shows them. */
  private static long truncationEvents(int replica, String topic, int partition) throws Exception {
    long found = 0;
    for (JsonNode e : client.getJson(cluster.get(1), "/dashboard/state").path("events")) {
      if (e.path("type").asString().equals("replica_truncated")
          && e.path("broker_id").asInt() == replica
          && e.path("topic").asString().equals(topic)
          && e.path("partition").asInt() == partition) {
        found++;
      }
    }
    return found;
  }

  /**
   * A follower crashes, and its active segment for partition 0 is then torn: the last batch cut in
   * half and garbage appended, as a crash mid-write would leave it. Restarted, its recovery
   * truncates the file at the first bad byte, and it fetches the rest from the leader again; its
   * files end up identical to the others'.
   */
  @Test
  void aTornTailOnACrashedFollowerIsTruncatedAndFetchedAgain() throws Exception {
    Run run = Run.start("torn-tail", 3);
    run.awaitAcknowledged(0, System.nanoTime(), 20);
    PartitionState p0 = client.partition(run.topic, 0);
    int controller = client.controllerId();
    int follower =
        p0.replicas().stream()
            .filter(id -> id != p0.leader() && id != controller)
            .findFirst()
            .orElseGet(
                () ->
                    p0.replicas().stream()
                        .filter(id -> id != p0.leader())
                        .findFirst()
                        .orElseThrow());
    BrokerProcess broker = cluster.get(follower);

    broker.kill();
    Path segment = ReplicationChecks.activeSegment(broker.dataDir(), run.topic, 0);
    int recordsBefore = ReplicaLogs.read(broker.dataDir(), run.topic, 0).size();
    Tear tear = Tear.lastBatchInHalfPlusGarbage(segment, run.topic.hashCode());
    System.out.printf(
        "torn-tail: broker %d's %s held %d records in %d bytes; its last batch (at %d, %d bytes) cut "
            + "in half and %d garbage bytes appended: now %d bytes%n",
        follower,
        segment.getFileName(),
        recordsBefore,
        tear.sizeBefore(),
        tear.lastBatchPosition(),
        tear.lastBatchSize(),
        tear.garbageBytes(),
        tear.sizeAfter());

    long logStart = Files.size(broker.logFile());
    cluster.restart(follower);
    String logSinceRestart = logSince(broker, logStart);
    assertThat(logSinceRestart)
        .as("broker %d's log after its restart (%s)", follower, broker.logFile())
        .contains("recovery truncated")
        .contains(segment.getFileName().toString());
    run.finish().assertNoViolations();
  }

  /**
   * The leader's wall clock jumps 10 minutes ahead, then 20 back, then is put right, each through
   * another broker (relayed). Just before the first jump one follower stops fetching for 1 s (less
   * than the lag time), so it is a few records behind when the leader's clock jumps: on the wall
   * clock it would look 10 minutes behind and leave the ISR. The ISR lag runs on the monotonic
   * clock, so the ISR stays full throughout (sampled every 100 ms for the lag time and a second
   * after each jump), and nothing acknowledged is lost.
   */
  @Test
  void aLeaderWhoseWallClockJumpsKeepsAFullIsrAndLosesNothing() throws Exception {
    Run run = Run.start("skew-leader", 1);
    run.awaitAcknowledged(0, System.nanoTime(), 10);
    int leader = client.partition(run.topic, 0).leader();
    BrokerProcess via = cluster.get(leader == 1 ? 2 : 1);
    int follower = leader == 3 ? 2 : 3;
    String clock = "/dashboard/actions/brokers/" + leader + "/clock";
    List<Map.Entry<Long, List<Integer>>> samples = new ArrayList<>(); // the skew, the ISR seen
    try {
      for (long skewMs : new long[] {600_000, -600_000, 0}) {
        if (skewMs > 0) {
          String pause = "/dashboard/actions/brokers/" + follower + "/pause-fetching";
          assertThat(client.send("POST", via, pause, "{\"seconds\":1}").statusCode())
              .isEqualTo(202);
        }
        HttpResponse<String> set = client.send("POST", via, clock, "{\"skew_ms\":" + skewMs + "}");
        assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
        long jumpedNanos = System.nanoTime();
        long sampleNanos = (REPLICA_LAG_TIME_MAX_MS + 1_000) * 1_000_000;
        await("ISR samples of " + run.topic + "-0 with broker " + leader + "'s clock at " + skewMs)
            .atMost(FAILOVER)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> {
                  samples.add(Map.entry(skewMs, client.partition(run.topic, 0).isr()));
                  return System.nanoTime() - jumpedNanos >= sampleNanos;
                });
        run.awaitAcknowledged(0, jumpedNanos, 10);
      }
    } finally {
      client.send("POST", via, clock, "{\"skew_ms\":0}");
    }
    System.out.printf(
        "skew-leader: broker %d's wall clock +10 min, -10 min, 0: %d ISR samples%n",
        leader, samples.size());
    assertThat(samples)
        .allSatisfy(s -> assertThat(s.getValue()).as("ISR at skew " + s.getKey()).hasSize(3));
    run.finish().assertNoViolations();
  }

  /** What {@code broker} logged after the first {@code fromByte} bytes of its log file. */
  private static String logSince(BrokerProcess broker, long fromByte) throws Exception {
    byte[] log = Files.readAllBytes(broker.logFile());
    return new String(log, (int) fromByte, log.length - (int) fromByte, StandardCharsets.UTF_8);
  }

  /** How {@link #aTornTailOnACrashedFollowerIsTruncatedAndFetchedAgain} tore a segment file. */
  private record Tear(
      long sizeBefore,
      long sizeAfter,
      long lastBatchPosition,
      int lastBatchSize,
      int garbageBytes) {
    /**
     * Record batch framing: base offset (8 bytes), then the batch length (4) counting the bytes
     * after it.
     */
    static Tear lastBatchInHalfPlusGarbage(Path segment, long seed) throws Exception {
      try (FileChannel file =
          FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        long size = file.size();
        long position = 0;
        long last = -1;
        int lastSize = 0;
        ByteBuffer header = ByteBuffer.allocate(12);
        while (position + 12 <= size) {
          header.clear();
          file.read(header, position);
          int batchSize = 12 + header.getInt(8);
          if (position + batchSize > size) {
            break;
          }
          last = position;
          lastSize = batchSize;
          position += batchSize;
        }
        assertThat(last).as("a complete batch in " + segment).isGreaterThanOrEqualTo(0);
        file.truncate(last + lastSize / 2);
        byte[] garbage = new byte[97];
        new Random(seed).nextBytes(garbage);
        file.write(ByteBuffer.wrap(garbage), file.size());
        file.force(true);
        return new Tear(size, file.size(), last, lastSize, garbage.length);
      }
    }
  }

  /**
   * The negative control: the checker must report loss when the cluster is configured to allow it.
   * Replicas on two brokers A (leader) and B, the third broker C only keeps the metadata quorum's
   * majority. B dies; A alone takes acknowledged writes ({@code min.insync.replicas=1}); A dies; B
   * comes back, is elected uncleanly ({@code unclean.leader.election.enable=true}) and takes writes
   * at the same offsets; A comes back as a follower.
   */
  @Test
  void theCheckerReportsLossAfterAnUncleanLeaderElection() throws Exception {
    String topic = "unclean-control";
    client.createTopic(
        topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    awaitFullIsr(topic, 1);
    PartitionState p0 = client.partition(topic, 0);
    int a = p0.leader();
    int b = p0.replicas().stream().filter(id -> id != a).findFirst().orElseThrow();
    HistoryChecker history = new HistoryChecker(topic);

    List<String> inSync = produce(history, cluster.get(a), topic);
    cluster.get(b).kill();
    await("ISR of " + topic + "-0 down to broker " + a)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.partition(topic, 0).isr().equals(List.of(a)));
    List<String> onlyOnA = produce(history, cluster.get(a), topic);

    cluster.get(a).kill();
    cluster.restart(b); // B and the third broker make a quorum majority again
    awaitLeader(topic, 0, id -> id == b);
    List<String> onB = produce(history, cluster.get(b), topic);
    cluster.restart(a);
    awaitFullIsr(topic, 1);

    Result result = history.check(views(topic, 1));
    System.out.println("unclean-control: " + result.summary() + "\n" + result.firstOfEachKind(5));
    assertThat(List.of(inSync, onlyOnA, onB))
        .allSatisfy(batch -> assertThat(batch).hasSize(ProducerLoad.RECORDS_PER_BATCH));
    assertThat(result.of(HistoryChecker.Kind.LOST))
        .as(result.summary())
        .isNotEmpty()
        .allSatisfy(
            v ->
                assertThat(
                        onlyOnA.stream().anyMatch(value -> v.detail().contains("'" + value + "'")))
                    .isTrue());
  }

  // ------------------------------------------------------------------------------------------------ helpers

  /** A topic with replication factor 3 and min.insync.replicas=2 under {@link ProducerLoad}. */
  private static final class Run {
    final String topic;
    final int partitions;
    final HistoryChecker history;
    final ProducerLoad load;

    private Run(String topic, int partitions) {
      this.topic = topic;
      this.partitions = partitions;
      this.history = new HistoryChecker(topic);
      client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
      awaitFullIsr(topic, partitions);
      this.load = ProducerLoad.start(cluster, client, history, topic, partitions, topic.hashCode());
    }

    static Run start(String topic, int partitions) {
      return new Run(topic, partitions);
    }

    /**
     * Waits until {@code count} records sent at or after {@code sinceNanos} to {@code partition}
     * (-1: any) are acknowledged.
     */
    void awaitAcknowledged(int partition, long sinceNanos, int count) {
      await(count + " records acknowledged on " + topic + (partition < 0 ? "" : "-" + partition))
          .atMost(FAILOVER)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> history.acknowledgedSentAfter(sinceNanos, partition) >= count);
    }

    /** Stops the load, waits until the cluster has healed, and checks the whole history. */
    Result finish() throws Exception {
      load.close();
      awaitFullIsr(topic, partitions);
      Result result = history.check(views(topic, partitions));
      System.out.println(topic + ": " + result.summary());
      assertThat(history.ops().stream().filter(op -> op.outcome() == Outcome.OK).count())
          .as(result.summary())
          .isPositive();
      return result;
    }
  }

  static void awaitFullIsr(String topic, int partitions) {
    ReplicationChecks.awaitFullIsr(cluster, client, topic, partitions, HEAL);
  }

  static void awaitLeader(String topic, int partition, java.util.function.IntPredicate wanted) {
    await("a leader for " + topic + "-" + partition)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> wanted.test(client.partition(topic, partition).leader()));
  }

  static List<View> views(String topic, int partitions) throws Exception {
    return ReplicationChecks.views(cluster, client, topic, partitions);
  }

  /**
   * One batch of keyed records to partition 0 through {@code via}, recorded in {@code history}; the
   * acknowledged values.
   */
  private static List<String> produce(HistoryChecker history, BrokerProcess via, String topic)
      throws Exception {
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < ProducerLoad.RECORDS_PER_BATCH; i++) {
      keys.add("k" + i);
      values.add(history.nextValue());
      body.append(i == 0 ? "" : ",")
          .append("{\"key\":\"k")
          .append(i)
          .append("\",\"value\":\"")
          .append(values.get(i))
          .append("\"}");
    }
    body.append("]}");
    long sentNanos = System.nanoTime();
    HttpResponse<String> answer =
        client.send("POST", via, "/topics/" + topic + "/partitions/0?acks=all", body.toString());
    history.record(keys, values, 0, sentNanos, answer);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    Set<String> sent = Set.copyOf(values);
    return history.ops().stream()
        .filter(op -> sent.contains(op.value()) && op.outcome() == Outcome.OK)
        .map(HistoryChecker.Op::value)
        .toList();
  }
}
