package dev.tributary.e2e;

import static dev.tributary.e2e.HostsClusterSupport.FAILOVER;
import static dev.tributary.e2e.HostsClusterSupport.HEAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import dev.tributary.fuzz.HostileRequests;
import java.net.http.HttpResponse;
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
 * dashboard's fan-out and a real Kafka client all work across hosts. Then faults no signal can
 * make: the leader cut off from its followers and the controller while clients still reach it
 * ({@link LeaderCutScenario}), the last in-sync replica isolated, the negative control, a random
 * soak, and the controller cut off into a minority.
 *
 * <p>One cluster for the class (logs under {@code e2e-logs/HostsClusterIT/}), with the settings of
 * {@link ReplicationFaultsIT} (lag time 2 s, {@code acks=all} timeout 5 s, the default 3 s broker
 * session), and the waits and views of {@link HostsClusterSupport}. Needs root: skipped without it
 * on a developer's machine, failed on CI.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostsClusterIT {
  @RegisterExtension static final E2eFixture e2e = new E2eFixture();
  static final long REPLICA_LAG_TIME_MAX_MS = 2_000;
  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;

  @TempDir static Path data;
  static HostsClusterSupport hosts;
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
    hosts = new HostsClusterSupport(network, cluster);
    client = hosts.client;
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
        .until(
            () -> hosts.brokerStates(cluster.get(1)).values().stream().allMatch("alive"::equals));
  }

  /** A test that failed with a broker's fetching paused must not leave it so for the next one. */
  @AfterEach
  void fetchingResumed() throws Exception {
    network.heal();
    hosts.resumePausedFetching();
  }

  @Test
  @Order(1)
  void eachBrokerListensOnAndAdvertisesItsOwnAddressAndEverythingWorksAcrossHosts()
      throws Exception {
    // Registered at its own address, as every broker sees the metadata.
    for (BrokerProcess via : cluster.all()) {
      Map<Integer, String> registered = new LinkedHashMap<>();
      for (JsonNode b : client.getJson(via, V3 + "/brokers").path("data")) {
        registered.put(b.path("broker_id").asInt(), b.path("host").asString());
        for (JsonNode listener : b.path("listeners")) {
          assertThat(listener.path("host").asString())
              .as("listener %s of broker %d", listener, b.path("broker_id").asInt())
              .isEqualTo(network.ip(b.path("broker_id").asInt()));
        }
      }
      assertThat(registered)
          .as("brokers as broker %d sees them", via.brokerId())
          .isEqualTo(Map.of(1, network.ip(1), 2, network.ip(2), 3, network.ip(3)));
    }

    // Every listening socket in a broker's namespace is on its own address (HTTP, Kafka, Raft), or
    // on loopback, which only that namespace reaches; none on the wildcard or 127.0.0.1 for them.
    for (BrokerProcess broker : cluster.all()) {
      List<String> listening = HostsClusterSupport.listeningAddresses(broker.netns());
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
    hosts.awaitFullIsr(topic, 1);
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
    hosts.awaitFullIsr(topic, 1); // the followers fetched it from the leader's address
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
    new LeaderCutScenario(hosts).run("cut-leader", false);
  }

  /**
   * As above, with the leader on the active controller's broker: the two others, a majority of the
   * quorum, elect a new controller, which fences the old one's broker.
   */
  @Test
  @Order(3)
  void aLeaderOnTheControllersBrokerCutOffLikewiseLosesNothing() throws Exception {
    new LeaderCutScenario(hosts).run("cut-controller-leader", true);
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
    hosts.awaitFullIsr(topic, 1);
    PartitionState before = client.partition(topic, 0);
    int leader = before.leader();
    int follower = before.replicas().stream().filter(id -> id != leader).findFirst().orElseThrow();
    BrokerProcess bystander =
        cluster.all().stream()
            .filter(b -> !before.replicas().contains(b.brokerId()))
            .findFirst()
            .orElseThrow();
    ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, 1, 21L);
    hosts.awaitAcknowledged(history, topic, 0, System.nanoTime(), 10);

    cluster.mark("broker " + follower + " stops fetching " + topic + "-0");
    hosts.pauseFetching(follower, 300);
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
                "fenced".equals(hosts.brokerStates(bystander).get(leader))
                    && client.partition(bystander, topic, 0).leader() == -1);
    assertThat(client.partition(bystander, topic, 0).isr())
        .as("the fenced last member stays in the ISR")
        .containsExactly(leader);
    cluster.get(leader).kill();
    cluster.mark("broker " + leader + " killed; broker " + follower + " fetches again");
    hosts.pauseFetching(follower, 1); // a pause of 1 s replaces the long one

    // Offline, not unclean: the follower is alive and would take any leadership offered.
    await("no leader for " + topic + "-0 while its only in-sync replica is down")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                "alive".equals(hosts.brokerStates(bystander).get(follower))
                    && client.partition(bystander, topic, 0).leader() == -1);
    List<String> refused = hosts.produceTo(history, bystander, topic, 0);
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
    hosts.awaitAcknowledged(history, topic, 0, back, 5);
    load.close();
    hosts.awaitFullIsr(topic, 1);
    Result result = history.check(ReplicationChecks.views(cluster, client, topic, 1));
    System.out.printf("%s: %s%n", topic, result.summary());
    result.assertNoViolations();
  }

  /**
   * The negative control over the network: the checker must report loss when a topic allows it.
   * {@code min.insync.replicas} 1 and unclean election on; the follower stops fetching and leaves
   * the ISR; the leader alone acknowledges a batch, then is cut off from the other brokers (clients
   * still reach it); the controller fences it and elects the out-of-sync follower, which takes
   * writes at the same offsets; healed, the old leader truncates the batch it acknowledged. A Kafka
   * consumer that had read that batch is told its log was truncated ({@link TruncationReader}).
   */
  @Test
  @Order(5)
  void theCheckerReportsLossWhenAnIsolatedLeaderIsReplacedUncleanly() throws Exception {
    String topic = "unclean-network";
    client.createTopic(
        topic, 1, 2, Map.of("min.insync.replicas", "1", "unclean.leader.election.enable", "true"));
    hosts.awaitFullIsr(topic, 1);
    PartitionState before = client.partition(topic, 0);
    int leader = before.leader();
    int follower = before.replicas().stream().filter(id -> id != leader).findFirst().orElseThrow();
    Set<Integer> others = new TreeSet<>(Set.of(1, 2, 3));
    others.remove(leader);
    BrokerProcess majority = cluster.get(others.iterator().next());
    HistoryChecker history = new HistoryChecker(topic);

    hosts.produceTo(history, cluster.get(leader), topic, 0);
    hosts.pauseFetching(follower, 300);
    // acks=all waits for the whole ISR: this produce is acknowledged once the follower, caught up
    // no more, has left it (after replica.lag.time.max.ms), by the leader alone.
    List<String> onlyOnLeader = hosts.produceTo(history, cluster.get(leader), topic, 0);
    await("the ISR of " + topic + "-0 down to its leader " + leader)
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.partition(majority, topic, 0).isr().equals(List.of(leader)));
    // A Kafka consumer has read everything, the batch only the leader holds included.
    List<String> onFollower;
    try (TruncationReader reader = new TruncationReader(new KafkaClients(cluster), topic, 0)) {
      long position = reader.readToEnd();

      cluster.mark("cutting broker " + leader + " off from " + others + " (unclean control)");
      network.cut(leader, others);
      hosts.pauseFetching(follower, 1);
      await(topic + "-0 led uncleanly by broker " + follower)
          .atMost(FAILOVER)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> client.partition(majority, topic, 0).leader() == follower);
      hosts.awaitLeads(follower, topic, 0);
      onFollower = hosts.produceTo(history, cluster.get(follower), topic, 0);
      network.heal();
      hosts.awaitFullIsr(topic, 1);

      // The new leader's records now sit at offsets the consumer has passed: it is told, naming
      // where its log and the leader's part, below its position.
      assertThat(reader.awaitTruncation(FAILOVER))
          .as("the divergent offset a consumer at %d is told of", position)
          .isBetween(0L, position - onlyOnLeader.size());
    }

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
   * and lossy links, kills and pauses, a slow disk) under an {@code acks=all} load, for {@code
   * -Dtributary.chaos.seconds} (10 by default; {@code ./tributary chaos --network --minutes N} for
   * longer), then heal, full ISR, and the checker: nothing acknowledged lost, no divergent copy.
   * Alongside, {@link NetworkFuzz} sends hostile requests to random brokers (on a topic of its
   * own): no answer may be a 500, hold a stack trace or lack the error shape; healed, every broker
   * ready.
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
    hosts.awaitFullIsr(topic, partitions);
    HistoryChecker history = new HistoryChecker(topic);
    HostileRequests.Names fuzzed = fuzzTarget();
    List<String> faults;
    NetworkFuzz fuzz = NetworkFuzz.start(cluster, seed, fuzzed);
    try (ProducerLoad load =
        ProducerLoad.start(cluster, client, history, topic, partitions, seed)) {
      faults =
          new NetworkNemesis(network, cluster, client, seed)
              .run(
                  seconds,
                  fault -> {
                    cluster.mark("network chaos: " + fault);
                    System.out.println("network chaos: " + fault);
                  });
    } finally {
      fuzz.close();
    }
    System.out.println("network chaos: fuzz: " + fuzz.summary());
    hosts.awaitFullIsr(topic, partitions);
    await("every broker ready after the soak")
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              for (BrokerProcess b : cluster.all()) {
                if (client.send("GET", b, "/actuator/health/readiness", null).statusCode() != 200) {
                  return false;
                }
              }
              return true;
            });
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
    List<String> hostile = fuzz.violations();
    assertThat(hostile)
        .as(
            "the fuzz alongside (seed %d, %s), the first:%n%s",
            seed,
            fuzz.summary(),
            String.join("\n", hostile.subList(0, Math.min(5, hostile.size()))))
        .isEmpty();
  }

  /**
   * A topic of its own (one record in it) and a consumer group with an instance {@code c} for the
   * soak's fuzz, so that its produces and commits never touch the checked topic.
   */
  private static HostileRequests.Names fuzzTarget() {
    String topic = "network-fuzz";
    client.createTopic(topic, 1, 3, Map.of());
    hosts.awaitFullIsr(topic, 1);
    await("a record in " + topic)
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                client
                        .send(
                            "POST",
                            client.anyLive(),
                            "/topics/" + topic + "/partitions/0",
                            "{\"records\":[{\"value\":1}]}")
                        .statusCode()
                    == 200);
    // The group coordinator may still be loading (503); a retry after a lost answer finds c (409).
    await("consumer instance c in group " + topic)
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                Set.of(200, 409)
                    .contains(
                        client
                            .send(
                                "POST",
                                client.anyLive(),
                                "/consumers/" + topic,
                                "{\"name\":\"c\",\"format\":\"json\"}")
                            .statusCode()));
    return new HostileRequests.Names(topic, topic, TestCluster.CLUSTER_ID, true);
  }

  /**
   * The controller in a minority: the active controller's broker cut off from the two others, while
   * clients still reach it. The two others, a majority of the Raft quorum, elect a new controller
   * among themselves, fence the cut-off broker once its session ends, and go on writing metadata (a
   * topic created through one of them); a topic created through the cut-off broker fails with an
   * error and creates nothing, whether sent at once (the old controller may still think it leads)
   * or once the majority has moved on. Healed, the old controller's broker rejoins the quorum as a
   * follower: every broker sees the same controller and the topic created meanwhile, and none sees
   * the refused ones; it is unfenced.
   */
  @Test
  @Order(7)
  void aControllerCutOffIntoAMinorityIsReplacedAndItsBrokerCreatesNothing() throws Exception {
    await("one active controller, as every broker sees it")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> hosts.controllerAgreedOn().isPresent());
    int controller = hosts.controllerAgreedOn().orElseThrow();
    Set<Integer> others = new TreeSet<>(Set.of(1, 2, 3));
    others.remove(controller);
    BrokerProcess cut = cluster.get(controller);
    List<BrokerProcess> majority = others.stream().map(cluster::get).toList();
    String refusedAtOnce = "minority-refused-at-once";
    String refusedLater = "minority-refused-later";
    String createdInMajority = "minority-created-in-majority";

    cluster.mark("cutting broker " + controller + ", the active controller, off from " + others);
    network.cut(controller, others);
    long cutNanos = System.nanoTime();
    // Sent at once, while the old controller may still think it leads: it overlaps the election.
    CompletableFuture<HostsClusterSupport.Answer> atOnce =
        CompletableFuture.supplyAsync(() -> hosts.createTopicVia(cut, refusedAtOnce, 1, 3));

    await("a new controller among " + others + ", as both of them see it")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              int seen = hosts.controllerSeenBy(majority.get(0));
              return others.contains(seen) && hosts.controllerSeenBy(majority.get(1)) == seen;
            });
    long newControllerNanos = System.nanoTime();
    int newController = hosts.controllerSeenBy(majority.get(0));
    await("broker " + controller + " fenced by the majority")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> "fenced".equals(hosts.brokerStates(majority.get(0)).get(controller)));
    long fencedNanos = System.nanoTime();

    // Metadata writes go on in the majority (replication factor 2: the fenced broker gets none).
    HostsClusterSupport.Answer created =
        hosts.createTopicVia(majority.get(0), createdInMajority, 2, 2);
    assertThat(created.status()).as("create through majority broker %s", created).isEqualTo(201);

    // The cut-off broker: neither request may succeed, and each must say why.
    HostsClusterSupport.Answer later = hosts.createTopicVia(cut, refusedLater, 1, 3);
    HostsClusterSupport.Answer first =
        atOnce.get(ClusterClient.REQUEST_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
    int controllerSeenByCut = hosts.controllerSeenBy(cut);
    for (HostsClusterSupport.Answer refused : List.of(first, later)) {
      assertThat(refused.status())
          .as("create through the cut-off broker %d: %s", controller, refused)
          .isBetween(400, 599);
      JsonNode error = client.json.readTree(refused.body());
      assertThat(error.path("error_code").isInt()).as("error body %s", refused).isTrue();
      assertThat(error.path("message").asString()).as("error body %s", refused).isNotBlank();
    }

    cluster.mark("healing the network");
    network.heal();
    long healNanos = System.nanoTime();
    // The old controller's broker rejoins as a follower: its log lacks what the majority committed
    // meanwhile, so it cannot win an election, whatever its term.
    await("one controller among " + others + " as every broker sees it, every broker alive")
        .atMost(HEAL)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!hosts.controllerAgreedOn().map(others::contains).orElse(false)) {
                return false;
              }
              for (BrokerProcess via : cluster.all()) {
                if (!hosts.brokerStates(via).values().stream().allMatch("alive"::equals)
                    || hosts.partitionsSeenBy(via, createdInMajority) != 2) {
                  return false;
                }
              }
              return true;
            });
    long convergedNanos = System.nanoTime();
    int healedController = hosts.controllerAgreedOn().orElseThrow();
    for (BrokerProcess via : cluster.all()) {
      assertThat(hosts.partitionsSeenBy(via, refusedAtOnce))
          .as(
              "partitions of %s as broker %d sees them (refused: %s)",
              refusedAtOnce, via.brokerId(), first)
          .isZero();
      assertThat(hosts.partitionsSeenBy(via, refusedLater))
          .as(
              "partitions of %s as broker %d sees them (refused: %s)",
              refusedLater, via.brokerId(), later)
          .isZero();
    }
    System.out.printf(
        "controller-minority: controller %d cut; new controller %d after %d ms, %d fenced after"
            + " %d ms; create through the cut-off broker (which saw controller %d): at once %s;"
            + " later %s; all following controller %d %d ms after heal%n",
        controller,
        newController,
        (newControllerNanos - cutNanos) / 1_000_000,
        controller,
        (fencedNanos - cutNanos) / 1_000_000,
        controllerSeenByCut,
        first,
        later,
        healedController,
        (convergedNanos - healNanos) / 1_000_000);
  }

  /**
   * The broker coordinating a consumer group cut off from the group's members (Kafka consumers in
   * the root namespace) while the other brokers still reach it: the group empties and its committed
   * offsets hold still; healed, the members rejoin and consume every acknowledged record, and no
   * committed offset goes backwards ({@link CoordinatorCutScenario}).
   */
  @Test
  @Order(8)
  void aCoordinatorCutOffFromItsMembersEmptiesTheGroupAndLosesNoOffset() throws Exception {
    new CoordinatorCutScenario(hosts).run("coordinator-cut");
  }
}
