package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.LocalReplica;
import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Three brokers on separate hosts ({@link TestNetwork}: a network namespace and an address each, on
 * one bridge), the test JVM a client in the root namespace. First that nothing assumes loopback:
 * every broker listens on and advertises its own address, and forwarding, replica fetch, the
 * dashboard's fan-out and a real Kafka client all work across hosts. Then a fault no signal can
 * make: the leader cut off from its followers and the controller while clients still reach it.
 *
 * <p>One cluster for the class (logs under {@code e2e-logs/HostsClusterIT/}), with the settings of
 * {@link ReplicationFaultsIT} (lag time 2 s, {@code acks=all} timeout 5 s, the default 3 s broker
 * session). Needs root: skipped without it on a developer's machine, failed on CI.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostsClusterIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final long REPLICA_LAG_TIME_MAX_MS = 2_000;
  static final Duration FAILOVER = Duration.ofSeconds(30);
  static final Duration HEAL = Duration.ofSeconds(60);
  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;

  @TempDir static Path data;
  static TestNetwork network;
  static TestCluster cluster;
  static ClusterClient client;

  @BeforeAll
  static void startCluster() {
    TestNetwork.assumeAvailable();
    network = TestNetwork.create(3);
    cluster =
        TestCluster.onHosts(
            network,
            data,
            e2e.logDir(),
            List.of(
                "--tributary.replica-lag-time-max-ms=" + REPLICA_LAG_TIME_MAX_MS,
                "--tributary.request-timeout-ms=5000",
                "--tributary.dashboard.fault-actions=true"));
    client = new ClusterClient(cluster);
    cluster.mark("hosts: " + network);
    cluster.startAll();
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
    if (network != null) {
      network.close();
    }
  }

  /** Every link up, every broker running and unfenced, whatever an earlier test left. */
  @BeforeEach
  void everyLinkAndBrokerUp() {
    network.heal();
    cluster.healAll();
    await("every broker alive in the metadata")
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> brokerStates(cluster.get(1)).values().stream().allMatch("alive"::equals));
  }

  /** A test that failed with a broker's fetching paused must not leave it so for the next one. */
  @AfterEach
  void fetchingResumed() throws Exception {
    network.heal();
    for (int id : pausedFetching) {
      if (cluster.get(id).isAlive() && !cluster.get(id).isPaused()) {
        pauseFetching(id, 1); // a pause of 1 s replaces the long one
      }
    }
    pausedFetching.clear();
  }

  @Test
  @Order(1)
  void eachBrokerListensOnAndAdvertisesItsOwnAddressAndEverythingWorksAcrossHosts()
      throws Exception {
    // Registered at its own address, as every broker sees the metadata.
    for (BrokerProcess via : cluster.all()) {
      Map<Integer, String> hosts = new LinkedHashMap<>();
      for (JsonNode b : client.getJson(via, V3 + "/brokers").path("data")) {
        hosts.put(b.path("broker_id").asInt(), b.path("host").asString());
        for (JsonNode listener : b.path("listeners")) {
          assertThat(listener.path("host").asString())
              .as("listener %s of broker %d", listener, b.path("broker_id").asInt())
              .isEqualTo(network.ip(b.path("broker_id").asInt()));
        }
      }
      assertThat(hosts)
          .as("brokers as broker %d sees them", via.brokerId())
          .isEqualTo(Map.of(1, network.ip(1), 2, network.ip(2), 3, network.ip(3)));
    }

    // Every listening socket in a broker's namespace is on its own address (HTTP, Kafka, Raft), or
    // on loopback, which only that namespace reaches; none on the wildcard or 127.0.0.1 for them.
    for (BrokerProcess broker : cluster.all()) {
      List<String> listening = listeningAddresses(broker.netns());
      System.out.println("listening in " + broker.netns() + ": " + listening);
      String ip = broker.host();
      assertThat(listening)
          .as("listening sockets in %s", broker.netns())
          .contains(
              ip + ":" + broker.port(),
              ip + ":" + broker.kafkaPort(),
              ip + ":" + cluster.raftPort(broker.brokerId()))
          .allMatch(
              address -> address.startsWith(ip + ":") || address.startsWith("127."),
              "on " + ip + " or loopback");
      Set<String> servicePorts =
          Set.of(
              ":" + broker.port(),
              ":" + broker.kafkaPort(),
              ":" + cluster.raftPort(broker.brokerId()));
      assertThat(listening)
          .filteredOn(address -> address.startsWith("127."))
          .as("the broker's own listeners on loopback in %s", broker.netns())
          .noneMatch(address -> servicePorts.stream().anyMatch(address::endsWith));
    }

    // A REST produce to a broker that does not lead the partition is forwarded to the leader.
    String topic = "hosts-rest";
    client.createTopic(topic, 1, 3, Map.of("min.insync.replicas", "2"));
    awaitFullIsr(topic, 1);
    int leader = client.partition(topic, 0).leader();
    BrokerProcess notLeader =
        cluster.all().stream().filter(b -> b.brokerId() != leader).findFirst().orElseThrow();
    HttpResponse<String> produced =
        client.send(
            "POST",
            notLeader,
            "/topics/" + topic + "/partitions/0?acks=all",
            "{\"records\":[{\"value\":\"across-hosts\"}]}");
    assertThat(produced.statusCode()).as(produced.body()).isEqualTo(200);
    assertThat(client.json.readTree(produced.body()).path("offsets").get(0).path("offset").asLong())
        .isZero();
    awaitFullIsr(topic, 1); // the followers fetched it from the leader's address
    assertThat(client.readPartition(cluster.get(leader), topic, 0))
        .extracting(HistoryChecker.Entry::value)
        .containsExactly("across-hosts");

    // A real Kafka client in the root namespace, bootstrapped with the brokers' addresses.
    String kafkaTopic = "hosts-kafka";
    client.createTopic(kafkaTopic, 3, 3, Map.of());
    KafkaClients kafka = new KafkaClients(cluster);
    assertThat(kafka.bootstrap()).doesNotContain("127.0.0.1");
    List<String> sent = kafka.produce(kafkaTopic, 3, "v", 30);
    List<String> read = new ArrayList<>();
    for (List<ConsumerRecord<String, String>> records :
        kafka.readFromBeginning(kafkaTopic, 3).values()) {
      records.forEach(r -> read.add(r.value()));
    }
    assertThat(read).containsExactlyInAnyOrderElementsOf(sent);

    // The dashboard's cluster view, from each broker, shows every broker and reached each one.
    for (BrokerProcess via : cluster.all()) {
      JsonNode state = client.getJson(via, "/dashboard/state");
      Map<Integer, String> seen = new LinkedHashMap<>();
      for (JsonNode b : state.path("brokers")) {
        seen.put(
            b.path("broker_id").asInt(),
            b.path("host").asString()
                + " "
                + b.path("state").asString()
                + " reachable="
                + b.path("reachable").asString());
      }
      Map<Integer, String> expected = new LinkedHashMap<>();
      for (int id = 1; id <= 3; id++) {
        expected.put(id, network.ip(id) + " alive reachable=true");
      }
      assertThat(seen).as("/dashboard/state of broker %d", via.brokerId()).isEqualTo(expected);
    }
  }

  /**
   * The leader of a partition (not the active controller), producing with {@code acks=all}, loses
   * its links to the other two brokers (its followers and the controller) while clients still reach
   * it. It must acknowledge nothing new; the controller fences it once its session ends and elects
   * a new leader from the ISR; healed, it rejoins as a follower and truncates what it appended and
   * never acknowledged.
   */
  @Test
  @Order(2)
  void aLeaderCutOffFromFollowersAndControllerAcknowledgesNothingAndTruncatesAfterHealing()
      throws Exception {
    cutLeaderOff("cut-leader", false);
  }

  /**
   * As above, with the leader on the active controller's broker: the two others, a majority of the
   * quorum, elect a new controller, which fences the old one's broker.
   */
  @Test
  @Order(3)
  void aLeaderOnTheControllersBrokerCutOffLikewiseLosesNothing() throws Exception {
    cutLeaderOff("cut-controller-leader", true);
  }

  /**
   * The last in-sync replica cut off from everyone and then killed, with {@code
   * min.insync.replicas} 2 (replication factor 2): its follower had stopped fetching and left the
   * ISR, so acknowledged records may exist only on the leader. The partition must go offline rather
   * than lose them: the controller fences the leader and leaves it the ISR's only member with no
   * leader, and does not elect the live, out-of-sync follower (no unclean election), even once it
   * fetches again; writes fail. When the old leader comes back it leads again, the follower catches
   * up, and no acknowledged record is lost.
   */
  @Test
  @Order(4)
  void theLastInSyncReplicaIsolatedThenKilledLeavesThePartitionOfflineNotLossy() throws Exception {
    String topic = "last-isr";
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, 1, 2, Map.of("min.insync.replicas", "2"));
    awaitFullIsr(topic, 1);
    PartitionState before = client.partition(topic, 0);
    int leader = before.leader();
    int follower = before.replicas().stream().filter(id -> id != leader).findFirst().orElseThrow();
    BrokerProcess bystander =
        cluster.all().stream()
            .filter(b -> !before.replicas().contains(b.brokerId()))
            .findFirst()
            .orElseThrow();
    ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, 1, 21L);
    awaitAcknowledged(history, topic, 0, System.nanoTime(), 10);

    cluster.mark("broker " + follower + " stops fetching " + topic + "-0");
    pauseFetching(follower, 300);
    await("the ISR of " + topic + "-0 down to its leader " + leader)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.partition(bystander, topic, 0).isr().equals(List.of(leader)));

    cluster.mark("isolating broker " + leader + ", the last in-sync replica of " + topic + "-0");
    network.isolate(leader);
    await("broker " + leader + " fenced; " + topic + "-0 without a leader")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                "fenced".equals(brokerStates(bystander).get(leader))
                    && client.partition(bystander, topic, 0).leader() == -1);
    assertThat(client.partition(bystander, topic, 0).isr())
        .as("the fenced last member stays in the ISR")
        .containsExactly(leader);
    cluster.get(leader).kill();
    cluster.mark("broker " + leader + " killed; broker " + follower + " fetches again");
    pauseFetching(follower, 1); // a pause of 1 s replaces the long one

    // Offline, not unclean: the follower is alive and would take any leadership offered.
    await("no leader for " + topic + "-0 while its only in-sync replica is down")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                "alive".equals(brokerStates(bystander).get(follower))
                    && client.partition(bystander, topic, 0).leader() == -1);
    List<String> refused = produceTo(history, bystander, topic, 0);
    assertThat(
            history.ops().stream()
                .filter(op -> refused.contains(op.value()))
                .map(HistoryChecker.Op::outcome))
        .as("a produce while the partition is offline")
        .doesNotContain(Outcome.OK);

    cluster.mark("healing; broker " + leader + " restarts");
    network.heal();
    cluster.restart(leader);
    await(topic + "-0 led by broker " + leader + " again")
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> client.partition(bystander, topic, 0).leader() == leader);
    long back = System.nanoTime();
    awaitAcknowledged(history, topic, 0, back, 5);
    load.close();
    awaitFullIsr(topic, 1);
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, 1));
    System.out.printf("%s: %s%n", topic, result.summary());
    result.assertNoViolations();
  }

  /**
   * The negative control over the network: the checker must report loss when a topic allows it.
   * {@code min.insync.replicas} 1 and unclean election on; the follower stops fetching and leaves
   * the ISR; the leader alone acknowledges a batch, then is cut off from the other brokers (clients
   * still reach it); the controller fences it and elects the out-of-sync follower, which takes
   * writes at the same offsets; healed, the old leader truncates the batch it acknowledged.
   */
  @Test
  @Order(5)
  void theCheckerReportsLossWhenAnIsolatedLeaderIsReplacedUncleanly() throws Exception {
    String topic = "unclean-network";
    client.createTopic(
        topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    awaitFullIsr(topic, 1);
    PartitionState before = client.partition(topic, 0);
    int leader = before.leader();
    int follower = before.replicas().stream().filter(id -> id != leader).findFirst().orElseThrow();
    Set<Integer> others = new TreeSet<>(Set.of(1, 2, 3));
    others.remove(leader);
    BrokerProcess majority = cluster.get(others.iterator().next());
    HistoryChecker history = new HistoryChecker(topic);

    produceTo(history, cluster.get(leader), topic, 0);
    pauseFetching(follower, 300);
    // acks=all waits for the whole ISR: this produce is acknowledged once the follower, caught up
    // no more, has left it (after replica.lag.time.max.ms), by the leader alone.
    List<String> onlyOnLeader = produceTo(history, cluster.get(leader), topic, 0);
    await("the ISR of " + topic + "-0 down to its leader " + leader)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.partition(majority, topic, 0).isr().equals(List.of(leader)));

    cluster.mark("cutting broker " + leader + " off from " + others + " (unclean control)");
    network.cut(leader, others);
    pauseFetching(follower, 1);
    await(topic + "-0 led uncleanly by broker " + follower)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.partition(majority, topic, 0).leader() == follower);
    List<String> onFollower = produceTo(history, cluster.get(follower), topic, 0);
    network.heal();
    awaitFullIsr(topic, 1);

    Result result = history.check(ReplicationChecks.views(cluster, client, topic, 1));
    System.out.println(topic + ": " + result.summary() + "\n" + result.firstOfEachKind(5));
    assertThat(
            history.ops().stream()
                .filter(op -> onlyOnLeader.contains(op.value()) || onFollower.contains(op.value()))
                .map(HistoryChecker.Op::outcome))
        .as("both batches acknowledged")
        .containsOnly(Outcome.OK);
    assertThat(result.of(HistoryChecker.Kind.LOST))
        .as(result.summary())
        .isNotEmpty()
        .allSatisfy(
            v ->
                assertThat(
                        onlyOnLeader.stream()
                            .anyMatch(value -> v.detail().contains("'" + value + "'")))
                    .isTrue());
  }

  /**
   * A seeded random soak of network faults ({@link NetworkNemesis}: partitions, bridges, one-way
   * and lossy links, kills and pauses) under an {@code acks=all} load, for {@code
   * -Dtributary.chaos.seconds} (10 by default; {@code ./tributary chaos --network --minutes N} for
   * longer), then heal, full ISR, and the checker: nothing acknowledged lost, no divergent copy.
   */
  @Test
  @Order(6)
  void randomNetworkFaultsLoseNoAcknowledgedRecord() throws Exception {
    long seconds = Long.getLong("tributary.chaos.seconds", 10);
    long seed = Long.getLong("tributary.seed", System.nanoTime());
    System.out.println(
        "network chaos: "
            + seconds
            + " s, seed "
            + seed
            + " (replay: -Dtributary.seed="
            + seed
            + ")");
    String topic = "network-chaos";
    int partitions = 3;
    client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    awaitFullIsr(topic, partitions);
    HistoryChecker history = new HistoryChecker(topic);
    List<String> faults;
    try (ProducerLoad load =
        ProducerLoad.start(cluster, client, history, topic, partitions, seed)) {
      faults =
          new NetworkNemesis(network, cluster, seed)
              .run(
                  seconds,
                  fault -> {
                    cluster.mark("network chaos: " + fault);
                    System.out.println("network chaos: " + fault);
                  });
    }
    awaitFullIsr(topic, partitions);
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, partitions));
    System.out.println(
        "network chaos: " + faults.size() + " faults, seed " + seed + ": " + result.summary());
    assertThat(history.ops().stream().filter(op -> op.outcome() == Outcome.OK).count())
        .as("seed %d: %s", seed, result.summary())
        .isPositive();
    assertThat(result.violations())
        .as(
            "seed %d, faults %s: %s%n%s",
            seed, faults, result.summary(), result.firstOfEachKind(20))
        .isEmpty();
  }

  private static final Set<Integer> pausedFetching = new TreeSet<>();

  private static void pauseFetching(int brokerId, int seconds) throws Exception {
    if (seconds > 1) {
      pausedFetching.add(brokerId);
    }
    HttpResponse<String> paused =
        client.send(
            "POST",
            cluster.get(brokerId),
            "/dashboard/actions/brokers/" + brokerId + "/pause-fetching",
            "{\"seconds\":" + seconds + "}");
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(202);
  }

  /**
   * The scenario: {@code topic} with 3 partitions, rf 3, min ISR 2 (one led by each broker, as the
   * controller spreads preferred leaders) under an {@code acks=all} load; the partition led by the
   * controller's broker (or by another one) loses its leader's links to the other two brokers.
   */
  private static void cutLeaderOff(String topic, boolean leaderIsController) throws Exception {
    int partitions = 3;
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    awaitFullIsr(topic, partitions);
    int controller = controllerSeenBy(cluster.get(1));
    PartitionState before =
        client.partitions(topic).stream()
            .filter(p -> (p.leader() == controller) == leaderIsController)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no partition of "
                            + topic
                            + (leaderIsController ? " led by" : " not led by")
                            + " the controller "
                            + controller));
    int partition = before.partition();
    ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, partitions, 20L);
    awaitAcknowledged(history, topic, partition, System.nanoTime(), 10);

    int leader = before.leader();
    Set<Integer> others = new TreeSet<>(Set.of(1, 2, 3));
    others.remove(leader);
    BrokerProcess majority = cluster.get(others.iterator().next());

    cluster.mark(
        "cutting broker "
            + leader
            + " (leads "
            + topic
            + "-"
            + partition
            + "; controller "
            + controller
            + ")");
    network.cut(leader, others);
    long cutNanos = System.nanoTime();
    // A produce straight to the old leader, which clients still reach: it appends, and cannot
    // acknowledge (acks=all times out after 5 s). Sent now, so it overlaps the wait for the fence.
    CompletableFuture<List<String>> probe =
        CompletableFuture.supplyAsync(
            () -> produceTo(history, cluster.get(leader), topic, partition));

    await("broker " + leader + " fenced and " + topic + "-" + partition + " led by another broker")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                "fenced".equals(brokerStates(majority).get(leader))
                    && client.partition(majority, topic, partition).leader() >= 0
                    && client.partition(majority, topic, partition).leader() != leader);
    long newLeaderNanos = System.nanoTime();
    PartitionState during = client.partition(majority, topic, partition);
    assertThat(before.isr()).as("the ISR the new leader came from").contains(during.leader());
    assertThat(controllerSeenBy(majority)).as("the controller the majority sees").isIn(others);
    LocalReplica fenced = client.localReplica(cluster.get(leader), topic, partition).orElseThrow();
    // Writes go on without the old leader: a produce to the new one is acknowledged at once (the
    // load's own thread for this partition may still be waiting on the old leader).
    List<String> afterFailover = produceTo(history, cluster.get(during.leader()), topic, partition);
    assertThat(
            history.ops().stream()
                .filter(op -> afterFailover.contains(op.value()))
                .map(HistoryChecker.Op::outcome))
        .as("a produce to the new leader %d", during.leader())
        .containsOnly(Outcome.OK);

    // The old leader acknowledged nothing since: its high watermark stayed where the followers
    // left it, and the probe got no acknowledgement but left a suffix beyond that high watermark.
    List<String> probed =
        probe.get(ClusterClient.REQUEST_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
    LocalReplica cut = client.localReplica(cluster.get(leader), topic, partition).orElseThrow();
    assertThat(cut.highWatermark())
        .as(
            "old leader's HW, fenced: %s; before healing: %s",
            fenced.statusLine(), cut.statusLine())
        .isEqualTo(fenced.highWatermark());
    assertThat(cut.logEndOffset())
        .as("old leader's log end offset after the probe: " + cut.statusLine())
        .isGreaterThan(cut.highWatermark());
    assertThat(
            history.ops().stream()
                .filter(op -> probed.contains(op.value()))
                .map(HistoryChecker.Op::outcome))
        .as("the probe sent to the cut-off leader")
        .hasSize(probed.size())
        .doesNotContain(Outcome.OK);

    cluster.mark("healing the network");
    network.heal();
    long healNanos = System.nanoTime();
    load.close();
    awaitFullIsr(topic, partitions);
    long fullIsrNanos = System.nanoTime();
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, partitions));
    long acknowledged = history.ops().stream().filter(op -> op.outcome() == Outcome.OK).count();
    System.out.printf(
        "%s: broker %d (controller %d) cut; new leader %d of %s-%d after %d ms; full ISR"
            + " %d ms after heal; %d records acknowledged; %s%n",
        topic,
        leader,
        controller,
        during.leader(),
        topic,
        partition,
        (newLeaderNanos - cutNanos) / 1_000_000,
        (fullIsrNanos - healNanos) / 1_000_000,
        acknowledged,
        result.summary());
    result.assertNoViolations();
    assertThat(acknowledged).isPositive();
    for (HistoryChecker.View view : ReplicationChecks.views(cluster, client, topic, partitions)) {
      assertThat(view.partitions().getOrDefault(partition, List.of()))
          .extracting(HistoryChecker.Entry::value)
          .as("the probe's records in %s (truncated from the old leader)", view.name())
          .doesNotContainAnyElementsOf(probed);
    }
    assertThat(brokerStates(cluster.get(leader)).get(leader)).isEqualTo("alive");
  }

  // -------------------------------------------------------------------------------- helpers

  static void awaitFullIsr(String topic, int partitions) {
    ReplicationChecks.awaitFullIsr(cluster, client, topic, partitions, HEAL);
  }

  static void awaitAcknowledged(
      HistoryChecker history, String topic, int partition, long sinceNanos, int count) {
    await(count + " records acknowledged on " + topic + "-" + partition)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> history.acknowledgedSentAfter(sinceNanos, partition) >= count);
  }

  static int controllerSeenBy(BrokerProcess via) throws Exception {
    return client.getJson(via, V3).path("controller_id").asInt();
  }

  static Map<Integer, String> brokerStates(BrokerProcess via) throws Exception {
    Map<Integer, String> states = new LinkedHashMap<>();
    for (JsonNode b : client.getJson(via, V3 + "/brokers").path("data")) {
      states.put(b.path("broker_id").asInt(), b.path("state").asString());
    }
    return states;
  }

  /**
   * One {@code acks=all} batch to {@code partition} sent straight to {@code via}, recorded in
   * {@code history} whatever the answer; its values.
   */
  static List<String> produceTo(
      HistoryChecker history, BrokerProcess via, String topic, int partition) {
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < ProducerLoad.RECORDS_PER_BATCH; i++) {
      keys.add("probe" + i);
      values.add(history.nextValue());
      body.append(i == 0 ? "" : ",");
      body.append("{\"key\":\"probe").append(i).append("\",\"value\":\"");
      body.append(values.get(i)).append("\"}");
    }
    body.append("]}");
    long sentNanos = System.nanoTime();
    try {
      String path = "/topics/" + topic + "/partitions/" + partition + "?acks=all";
      history.record(
          keys, values, partition, sentNanos, client.send("POST", via, path, body.toString()));
    } catch (Exception e) {
      history.record(keys, values, partition, sentNanos, e);
    }
    return values;
  }

  /** The local addresses of the TCP sockets listening in namespace {@code netns}. */
  static List<String> listeningAddresses(String netns) throws Exception {
    Process ss = new ProcessBuilder("ss", "-N", netns, "-Hltn").redirectErrorStream(true).start();
    String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ss.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ss.exitValue()).as(out).isZero();
    List<String> addresses = new ArrayList<>();
    for (String line : out.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length >= 4) {
        // An IPv4 address on a dual-stack Java socket shows as [::ffff:a.b.c.d]:port.
        addresses.add(fields[3].replace("[::ffff:", "").replace("]", ""));
      }
    }
    return new TreeSet<>(addresses).stream().toList();
  }
}
