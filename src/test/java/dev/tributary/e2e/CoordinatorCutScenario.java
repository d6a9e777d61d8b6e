package dev.tributary.e2e;

import static dev.tributary.e2e.HostsClusterSupport.FAILOVER;
import static dev.tributary.e2e.HostsClusterSupport.HEAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * {@link HostsClusterIT}'s group coordinator cut off from its group's members: two Kafka consumers
 * in the root namespace, where the clients run, read a topic under an {@code acks=all} load and
 * commit after each poll. The broker coordinating their group loses its links to the clients only;
 * the other brokers still reach it, so it keeps leading its {@code __consumer_offsets} partition
 * and stays the coordinator. The members can neither heartbeat nor commit: once their session ends
 * the coordinator expires them and the group is empty, and the committed offsets stay where they
 * were. Healed, the members find the coordinator again, rejoin, and read on from the committed
 * offsets: every acknowledged record is consumed (at least once), the group commits the end of
 * every partition, and no committed offset ever went backwards. The test watches the group through
 * another broker, which relays to the coordinator over the links that still work.
 */
final class CoordinatorCutScenario {
  private static final String V3 = "/v3/clusters/" + TestCluster.CLUSTER_ID;

  private final HostsClusterSupport hosts;
  private final TestNetwork network;
  private final TestCluster cluster;
  private final ClusterClient client;

  /** Every committed offset the test saw, per partition, in the order seen. */
  private final Map<Integer, List<Long>> committedSeen = new TreeMap<>();

  CoordinatorCutScenario(HostsClusterSupport hosts) {
    this.hosts = hosts;
    this.network = hosts.network;
    this.cluster = hosts.cluster;
    this.client = hosts.client;
  }

  void run(String topic) throws Exception {
    int partitions = 3;
    String group = topic + "-group";
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    hosts.awaitFullIsr(topic, partitions);
    KafkaClients kafka = new KafkaClients(cluster);
    ProducerLoad load = ProducerLoad.start(cluster, client, history, topic, partitions, 31L);
    List<GroupMemberThread> members = new ArrayList<>();
    try {
      members.add(new GroupMemberThread(kafka, group, "member-1", topic));
      members.add(new GroupMemberThread(kafka, group, "member-2", topic));
      BrokerProcess anyBroker = cluster.get(1);
      await("group " + group + " stable with two members, committing every partition")
          .atMost(FAILOVER)
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions() // 404 until the first member has joined
          .until(
              () ->
                  "STABLE".equals(groupState(anyBroker, group))
                      && memberCount(anyBroker, group) == 2
                      && committed(anyBroker, group).size() == partitions);
      int coordinator =
          client
              .getJson(anyBroker, V3 + "/consumer-groups/" + group)
              .path("coordinator_id")
              .asInt();
      BrokerProcess watcher =
          cluster.all().stream().filter(b -> b.brokerId() != coordinator).findFirst().orElseThrow();

      cluster.mark("cutting coordinator " + coordinator + " of " + group + " off from its clients");
      network.cutFromClients(coordinator);
      long cutNanos = System.nanoTime();
      await("the members of " + group + " expired by coordinator " + coordinator)
          .atMost(FAILOVER)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                sampleCommitted(watcher, group);
                return "EMPTY".equals(groupState(watcher, group));
              });
      long emptyNanos = System.nanoTime();
      Map<Integer, Long> whenEmpty = committed(watcher, group);
      Thread.sleep(2_000); // the members keep polling and trying to commit
      assertThat(committed(watcher, group))
          .as("offsets committed while no member reaches the coordinator")
          .isEqualTo(whenEmpty);
      assertThat(
              client
                  .getJson(watcher, V3 + "/consumer-groups/" + group)
                  .path("coordinator_id")
                  .asInt())
          .as("the coordinator, still leading its offsets partition")
          .isEqualTo(coordinator);

      cluster.mark("healing the network");
      network.heal();
      long healNanos = System.nanoTime();
      await("group " + group + " stable again with both members")
          .atMost(HEAL)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                sampleCommitted(watcher, group);
                return "STABLE".equals(groupState(watcher, group))
                    && memberCount(watcher, group) == 2;
              });
      long stableNanos = System.nanoTime();
      load.close();
      Set<String> acknowledged = new HashSet<>();
      history.ops().stream()
          .filter(op -> op.outcome() == HistoryChecker.Outcome.OK)
          .forEach(op -> acknowledged.add(op.value()));
      Map<Integer, Long> ends = kafka.endOffsets(topic, partitions);
      await("every acknowledged record consumed and the ends of " + topic + " committed")
          .atMost(HEAL)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                Set<String> seen = new HashSet<>();
                members.forEach(m -> seen.addAll(m.seen()));
                return seen.containsAll(acknowledged)
                    && sampleCommitted(watcher, group).equals(ends);
              });

      committedSeen.forEach(
          (partition, offsets) ->
              assertThat(offsets)
                  .as("offsets committed for %s-%d, in the order seen", topic, partition)
                  .isSorted());
      long consumed = members.stream().mapToLong(GroupMemberThread::records).sum();
      long failedCommits = members.stream().mapToLong(GroupMemberThread::failedCommits).sum();
      System.out.printf(
          "%s: coordinator %d cut off from its clients; group empty after %d ms; stable %d ms"
              + " after heal; %d records acknowledged, %d consumed (%d again after the"
              + " rebalance), %d commits failed%n",
          group,
          coordinator,
          (emptyNanos - cutNanos) / 1_000_000,
          (stableNanos - healNanos) / 1_000_000,
          acknowledged.size(),
          consumed,
          consumed - acknowledged.size(),
          failedCommits);
      assertThat(acknowledged).isNotEmpty();
    } finally {
      network.heal();
      for (GroupMemberThread member : members) {
        member.close();
      }
      load.close();
    }
  }

  private String groupState(BrokerProcess via, String group) throws Exception {
    return client.getJson(via, V3 + "/consumer-groups/" + group).path("state").asString();
  }

  private int memberCount(BrokerProcess via, String group) throws Exception {
    return client.getJson(via, V3 + "/consumer-groups/" + group + "/consumers").path("data").size();
  }

  /** The group's committed offsets by partition (only those committed), as {@code via} relays. */
  private Map<Integer, Long> committed(BrokerProcess via, String group) throws Exception {
    Map<Integer, Long> offsets = new TreeMap<>();
    for (JsonNode lag :
        client.getJson(via, V3 + "/consumer-groups/" + group + "/lags").path("data")) {
      if (lag.path("current_offset").isNumber()) {
        offsets.put(lag.path("partition_id").asInt(), lag.path("current_offset").asLong());
      }
    }
    return offsets;
  }

  /** Reads the committed offsets and records them for the monotonicity check; returns them. */
  private Map<Integer, Long> sampleCommitted(BrokerProcess via, String group) throws Exception {
    Map<Integer, Long> offsets = committed(via, group);
    offsets.forEach((p, o) -> committedSeen.computeIfAbsent(p, k -> new ArrayList<>()).add(o));
    return offsets;
  }
}
