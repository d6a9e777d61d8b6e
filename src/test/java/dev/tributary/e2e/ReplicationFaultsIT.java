package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.LocalReplica;
import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import dev.tributary.e2e.HistoryChecker.View;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition replication under faults, end to end: three broker processes, topics with replication factor 3 and
 * {@code min.insync.replicas=2}, an {@code acks=all} load ({@link ProducerLoad}) throughout each fault, then, once
 * healed, every produce checked by {@link HistoryChecker} against the leaders (through the API) and every replica's
 * own files ({@link ReplicaLogs}). Last, a negative control: with {@code min.insync.replicas=1} and unclean leader
 * election, the checker must find acknowledged records lost.
 *
 * <p>One cluster for the class (its logs under {@code e2e-logs/ReplicationFaultsIT/}); every test uses its own topic
 * and starts with every broker running; {@code replica.lag.time.max.ms} is 2 s and the {@code acks=all} timeout 5 s
 * so faults show quickly.
 */
class ReplicationFaultsIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final long REPLICA_LAG_TIME_MAX_MS = 2_000;
  static final Duration FAILOVER = Duration.ofSeconds(30);
  static final Duration HEAL = Duration.ofSeconds(60);

  @TempDir static Path data;
  static TestCluster cluster;
  static ClusterClient client;

  @BeforeAll
  static void startCluster() {
    cluster = new TestCluster(data, e2e.logDir(), 3, List.of(
        "--tributary.replica-lag-time-max-ms=" + REPLICA_LAG_TIME_MAX_MS, "--tributary.request-timeout-ms=5000"));
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
    for (BrokerProcess broker : cluster.all()) {
      if (broker.isPaused()) {
        broker.resume();
      }
    }
    cluster.startAll();
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
    assertThat(cluster.get(leader).stop()).as("exit code of broker %d after SIGTERM", leader).isIn(0, 143);
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
    await("a new controller").atMost(FAILOVER).pollInterval(Duration.ofMillis(200))
        .until(() -> { int now = client.controllerId(); return now >= 0 && now != controller; });
    for (int p = 0; p < run.partitions; p++) {
      run.awaitAcknowledged(p, killedNanos, 5); // every partition, including those the dead broker led
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
    int follower = p0.replicas().stream().filter(id -> id != p0.leader() && id != controller).findFirst()
        .orElseGet(() -> p0.replicas().stream().filter(id -> id != p0.leader()).findFirst().orElseThrow());

    cluster.get(follower).pause();
    long pausedNanos = System.nanoTime();
    await("broker " + follower + " out of the ISR of " + run.topic + "-0")
        .atMost(FAILOVER).pollInterval(Duration.ofMillis(100))
        .until(() -> {
          List<Integer> isr = client.partition(run.topic, 0).isr();
          return isr.size() == 2 && !isr.contains(follower);
        });
    long shrunkNanos = System.nanoTime();
    System.out.printf("pause-follower: ISR of p0 shrank without broker %d %d ms after SIGSTOP (lag time %d ms); "
            + "broker states then: %s%n", follower, (shrunkNanos - pausedNanos) / 1_000_000, REPLICA_LAG_TIME_MAX_MS,
        client.brokerStates());
    assertThat((shrunkNanos - pausedNanos) / 1_000_000).as("ms until the ISR shrank")
        .isGreaterThanOrEqualTo(REPLICA_LAG_TIME_MAX_MS - 500); // not before the lag time (allowing for clock slack)
    run.awaitAcknowledged(0, shrunkNanos, 10); // writes go on with min.insync.replicas=2 met by the other two

    cluster.get(follower).resume();
    awaitFullIsr(run.topic, run.partitions);
    run.finish().assertNoViolations();
  }

  @Test
  void withTwoOfThreeBrokersDownNothingIsAcknowledgedAndWritesResumeAfterRestart() throws Exception {
    Run run = Run.start("kill-two", 3);
    run.awaitAcknowledged(-1, System.nanoTime(), 10);
    int survivor = client.controllerId();
    List<Integer> victims = cluster.all().stream().map(BrokerProcess::brokerId).filter(id -> id != survivor).toList();

    for (int id : victims) {
      cluster.get(id).kill();
    }
    long killedNanos = System.nanoTime();
    // Produces are attempted on every partition and none is acknowledged: no partition has two live in-sync
    // replicas, and without a quorum majority no ISR can shrink to the survivor.
    await("produce attempts with two brokers down").atMost(FAILOVER).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          for (int p = 0; p < run.partitions; p++) {
            int partition = p;
            if (run.history.ops().stream().filter(op -> op.sentPartition() == partition && op.sentNanos() >= killedNanos)
                .count() < 2 * ProducerLoad.RECORDS_PER_BATCH) {
              return false;
            }
          }
          return true;
        });
    assertThat(run.history.acknowledgedSentAfter(killedNanos, -1))
        .as("records acknowledged though sent after 2 of 3 brokers died").isZero();
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
   * The negative control: the checker must report loss when the cluster is configured to allow it. Replicas on two
   * brokers A (leader) and B, the third broker C only keeps the metadata quorum's majority. B dies; A alone takes
   * acknowledged writes ({@code min.insync.replicas=1}); A dies; B comes back, is elected uncleanly
   * ({@code unclean.leader.election.enable=true}) and takes writes at the same offsets; A comes back as a follower.
   */
  @Test
  void theCheckerReportsLossAfterAnUncleanLeaderElection() throws Exception {
    String topic = "unclean-control";
    client.createTopic(topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    awaitFullIsr(topic, 1);
    PartitionState p0 = client.partition(topic, 0);
    int a = p0.leader();
    int b = p0.replicas().stream().filter(id -> id != a).findFirst().orElseThrow();
    HistoryChecker history = new HistoryChecker(topic);

    List<String> inSync = produce(history, cluster.get(a), topic);
    cluster.get(b).kill();
    await("ISR of " + topic + "-0 down to broker " + a).atMost(FAILOVER).pollInterval(Duration.ofMillis(100))
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
    assertThat(List.of(inSync, onlyOnA, onB)).allSatisfy(batch -> assertThat(batch).hasSize(ProducerLoad.RECORDS_PER_BATCH));
    assertThat(result.of(HistoryChecker.Kind.LOST)).as(result.summary()).isNotEmpty()
        .allSatisfy(v -> assertThat(onlyOnA.stream().anyMatch(value -> v.detail().contains("'" + value + "'"))).isTrue());
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

    /** Waits until {@code count} records sent at or after {@code sinceNanos} to {@code partition} (-1: any) are acknowledged. */
    void awaitAcknowledged(int partition, long sinceNanos, int count) {
      await(count + " records acknowledged on " + topic + (partition < 0 ? "" : "-" + partition))
          .atMost(FAILOVER).pollInterval(Duration.ofMillis(100))
          .until(() -> history.acknowledgedSentAfter(sinceNanos, partition) >= count);
    }

    /** Stops the load, waits until the cluster has healed, and checks the whole history. */
    Result finish() throws Exception {
      load.close();
      awaitFullIsr(topic, partitions);
      Result result = history.check(views(topic, partitions));
      System.out.println(topic + ": " + result.summary());
      assertThat(history.ops().stream().filter(op -> op.outcome() == Outcome.OK).count()).as(result.summary())
          .isPositive();
      return result;
    }
  }

  /**
   * Waits until every partition of {@code topic} has a leader, an ISR of all its replicas, and every replica at the
   * leader's log end offset with its high watermark there too (nothing in flight), as each broker reports itself.
   */
  static void awaitFullIsr(String topic, int partitions) {
    await(topic + " fully replicated").atMost(HEAL).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          List<PartitionState> states = client.partitions(topic);
          if (states.size() != partitions) {
            return false;
          }
          for (PartitionState p : states) {
            if (p.leader() < 0 || !new HashSet<>(p.isr()).equals(new HashSet<>(p.replicas()))) {
              return false;
            }
            Optional<LocalReplica> leader = client.localReplica(cluster.get(p.leader()), topic, p.partition());
            if (leader.isEmpty() || !leader.get().leader() || leader.get().highWatermark() != leader.get().logEndOffset()) {
              return false;
            }
            for (int id : p.replicas()) {
              Optional<LocalReplica> replica = client.localReplica(cluster.get(id), topic, p.partition());
              if (replica.isEmpty() || replica.get().logEndOffset() != leader.get().logEndOffset()) {
                return false;
              }
            }
          }
          return true;
        });
  }

  static void awaitLeader(String topic, int partition, java.util.function.IntPredicate wanted) {
    await("a leader for " + topic + "-" + partition).atMost(FAILOVER).pollInterval(Duration.ofMillis(100))
        .until(() -> wanted.test(client.partition(topic, partition).leader()));
  }

  /**
   * The views to check: the leaders' copy through the API, then each broker's own files for the partitions it
   * hosts. Call only after {@link #awaitFullIsr}.
   */
  static List<View> views(String topic, int partitions) throws Exception {
    List<PartitionState> states = client.partitions(topic);
    Map<Integer, List<HistoryChecker.Entry>> api = new TreeMap<>();
    for (PartitionState p : states) {
      api.put(p.partition(), client.readPartition(cluster.get(p.leader()), topic, p.partition()));
    }
    List<View> views = new ArrayList<>(List.of(new View("leader via API", api)));
    for (BrokerProcess broker : cluster.all()) {
      Map<Integer, List<HistoryChecker.Entry>> disk = new LinkedHashMap<>();
      for (PartitionState p : states) {
        if (p.replicas().contains(broker.brokerId())) {
          disk.put(p.partition(), ReplicaLogs.read(broker.dataDir(), topic, p.partition()));
        }
      }
      views.add(new View("broker " + broker.brokerId() + " files", disk));
    }
    assertThat(views).hasSize(1 + cluster.all().size());
    return views;
  }

  /** One batch of keyed records to partition 0 through {@code via}, recorded in {@code history}; the acknowledged values. */
  private static List<String> produce(HistoryChecker history, BrokerProcess via, String topic) throws Exception {
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < ProducerLoad.RECORDS_PER_BATCH; i++) {
      keys.add("k" + i);
      values.add(history.nextValue());
      body.append(i == 0 ? "" : ",").append("{\"key\":\"k").append(i).append("\",\"value\":\"").append(values.get(i))
          .append("\"}");
    }
    body.append("]}");
    long sentNanos = System.nanoTime();
    HttpResponse<String> answer = client.http.send(
        HttpRequest.newBuilder(URI.create(via.url("/topics/" + topic + "/partitions/0?acks=all")))
            .timeout(ClusterClient.REQUEST_TIMEOUT).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    history.record(keys, values, 0, sentNanos, answer);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    Set<String> sent = Set.copyOf(values);
    return history.ops().stream().filter(op -> sent.contains(op.value()) && op.outcome() == Outcome.OK)
        .map(HistoryChecker.Op::value).toList();
  }
}
