package dev.tributary.e2e;

import static dev.tributary.e2e.HostsClusterSupport.FAILOVER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.ClusterClient.LocalReplica;
import dev.tributary.e2e.ClusterClient.PartitionState;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link HostsClusterIT}'s leader cut off from its followers and the controller while clients still
 * reach it, under {@code acks=all}: {@code topic} with 3 partitions, rf 3, min ISR 2 (one led by
 * each broker, as the controller spreads preferred leaders) under an {@code acks=all} load; the
 * partition led by the controller's broker (or by another one) loses its leader's links to the
 * other two brokers. The old leader must acknowledge nothing new; the controller fences it once its
 * session ends and elects a new leader from the ISR; healed, it rejoins as a follower and truncates
 * what it appended and never acknowledged.
 */
final class LeaderCutScenario {
  private final HostsClusterSupport hosts;
  private final TestNetwork network;
  private final TestCluster cluster;
  private final ClusterClient client;

  LeaderCutScenario(HostsClusterSupport hosts) {
    this.hosts = hosts;
    this.network = hosts.network;
    this.cluster = hosts.cluster;
    this.client = hosts.client;
  }

  /**
   * Runs the scenario on a new topic {@code topic}, cutting off the leader of a partition that the
   * active controller's broker leads ({@code leaderIsController}) or does not.
   */
  void run(String topic, boolean leaderIsController) throws Exception {
    int partitions = 3;
    HistoryChecker history = new HistoryChecker(topic);
    client.createTopic(topic, partitions, 3, Map.of("min.insync.replicas", "2"));
    hosts.awaitFullIsr(topic, partitions);
    int controller = hosts.controllerSeenBy(cluster.get(1));
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
    hosts.awaitAcknowledged(history, topic, partition, System.nanoTime(), 10);

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
            () -> hosts.produceTo(history, cluster.get(leader), topic, partition));

    await("broker " + leader + " fenced and " + topic + "-" + partition + " led by another broker")
        .atMost(FAILOVER)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                "fenced".equals(hosts.brokerStates(majority).get(leader))
                    && client.partition(majority, topic, partition).leader() >= 0
                    && client.partition(majority, topic, partition).leader() != leader);
    long newLeaderNanos = System.nanoTime();
    PartitionState during = client.partition(majority, topic, partition);
    assertThat(before.isr()).as("the ISR the new leader came from").contains(during.leader());
    assertThat(hosts.controllerSeenBy(majority))
        .as("the controller the majority sees")
        .isIn(others);
    LocalReplica fenced = client.localReplica(cluster.get(leader), topic, partition).orElseThrow();
    // Writes go on without the old leader: a produce to the new one is acknowledged at once (the
    // load's own thread for this partition may still be waiting on the old leader).
    hosts.awaitLeads(during.leader(), topic, partition);
    List<String> afterFailover =
        hosts.produceTo(history, cluster.get(during.leader()), topic, partition);
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
    hosts.awaitFullIsr(topic, partitions);
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
    assertThat(hosts.brokerStates(cluster.get(leader)).get(leader)).isEqualTo("alive");
  }
}
