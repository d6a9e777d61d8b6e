package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The balancer's plan over images replayed from records, as a controller would see them: what it
 * moves, where, what it leaves alone, and that its targets go through {@link ReassignmentControl}.
 * Last, the same invariants over seeded random clusters.
 */
class BalancePlannerTest {
  private final ClusterHarness h = new ClusterHarness(1);

  /**
   * Puts topic {@code name} on {@code assignments} by hand: every replica in the ISR, the first
   * unfenced one leading (none: offline).
   */
  static void topic(ClusterHarness h, String name, List<List<Integer>> assignments) {
    Uuid topicId = new Uuid(7, h.image.topicsByName().size() + 1);
    h.commit(List.of(new MetadataRecord.TopicCreated(topicId, name)));
    for (int p = 0; p < assignments.size(); p++) {
      List<Integer> replicas = assignments.get(p);
      int leader = replicas.stream().filter(h.image::isUnfenced).findFirst().orElse(-1);
      h.commit(
          List.of(
              new MetadataRecord.PartitionChange(topicId, p, replicas, replicas, leader, 0, 0)));
    }
  }

  private static int replicasAfter(BalancePlan plan, int brokerId) {
    return plan.broker(brokerId).orElseThrow().replicasAfter();
  }

  private static int leadersAfter(BalancePlan plan, int brokerId) {
    return plan.broker(brokerId).orElseThrow().preferredLeadersAfter();
  }

  @Test
  void aFourthEmptyBrokerGetsAQuarterOfTheReplicasAndOfThePreferredLeaders() {
    h.startBrokers(1, 2, 3);
    h.createTopic("orders", 8, 3);
    h.createTopic("__consumer_offsets", 4, 3); // internal topics are ordinary partitions here
    h.startBrokers(4);

    BalancePlan plan = BalancePlanner.plan(h.image);

    for (int id = 1; id <= 4; id++) {
      assertThat(replicasAfter(plan, id)).as("replicas of broker %d", id).isEqualTo(9);
      assertThat(leadersAfter(plan, id)).as("preferred leaders of broker %d", id).isEqualTo(3);
    }
    assertThat(plan.broker(4).orElseThrow().replicasBefore()).isZero();
    assertThat(plan.replicasToCopy()).as("only broker 4's share is copied").isEqualTo(9);
    assertThat(plan.skipped()).isEmpty();
  }

  @Test
  void aBalancedClusterYieldsNoMoves() {
    h.startBrokers(1, 2, 3);
    h.createTopic("orders", 6, 2);
    h.createTopic("payments", 3, 3);

    BalancePlan plan = BalancePlanner.plan(h.image);

    assertThat(plan.isBalanced()).isTrue();
    assertThat(plan.reassignmentTargets()).isEmpty();
    assertThat(plan.render()).startsWith("0 move(s), 0 replica(s) to copy, 0 partition(s) skipped");
  }

  @Test
  void anExcludedBrokerEndsEmptyAndTheOthersShareItsReplicas() {
    h.startBrokers(1, 2, 3, 4);
    h.createTopic("orders", 8, 2);

    BalancePlan plan = BalancePlanner.plan(h.image, BalanceOptions.NONE.withExcluded(Set.of(4)));

    assertThat(plan.broker(4).orElseThrow().role()).isEqualTo(BalancePlan.BrokerRole.EXCLUDED);
    assertThat(replicasAfter(plan, 4)).isZero();
    assertThat(leadersAfter(plan, 4)).isZero();
    for (int id = 1; id <= 3; id++) {
      assertThat(replicasAfter(plan, id)).as("16 replicas over 3 brokers").isBetween(5, 6);
    }
    assertThat(plan.moves()).allSatisfy(m -> assertThat(m.targetReplicas()).doesNotContain(4));
  }

  @Test
  void aPartitionThatCannotLeaveAnExcludedBrokerIsSkippedNotShrunk() {
    h.startBrokers(1, 2, 3);
    topic(h, "wide", List.of(List.of(1, 2, 3), List.of(2, 3, 1)));
    topic(h, "narrow", List.of(List.of(3, 1), List.of(2, 3)));

    BalancePlan plan = BalancePlanner.plan(h.image, BalanceOptions.NONE.withExcluded(Set.of(3)));

    assertThat(plan.skipped())
        .extracting(BalancePlan.Skipped::partition)
        .containsExactly(new TopicPartition("wide", 0), new TopicPartition("wide", 1));
    assertThat(plan.skipped().get(0).reason())
        .isEqualTo(
            "cannot leave broker(s) [3]: replication factor 3 needs as many eligible brokers,"
                + " there are 2 [1, 2]");
    assertThat(plan.moves())
        .extracting(BalancePlan.Move::partition)
        .containsExactly(new TopicPartition("narrow", 0), new TopicPartition("narrow", 1));
    assertThat(plan.moves()).allSatisfy(m -> assertThat(m.targetReplicas()).hasSize(2));
    assertThat(replicasAfter(plan, 3)).as("only the skipped partitions stay").isEqualTo(2);
  }

  @Test
  void fencedBrokersLoseTheirReplicasAndGetNone() {
    h.startBrokers(1, 2, 3, 4);
    h.createTopic("orders", 8, 2);
    h.commit(h.cluster.fenceBroker(h.image, 4, h.epoch(4)));
    h.register(5, ClusterHarness.incarnation(5, 1)); // registered, never unfenced: empty and fenced

    BalancePlan plan = BalancePlanner.plan(h.image);

    for (int id : List.of(4, 5)) {
      assertThat(plan.broker(id).orElseThrow().role()).isEqualTo(BalancePlan.BrokerRole.FENCED);
      assertThat(replicasAfter(plan, id)).as("replicas of fenced broker %d", id).isZero();
    }
    assertThat(plan.broker(4).orElseThrow().replicasBefore()).isEqualTo(4);
    assertThat(plan.moves()).allSatisfy(m -> assertThat(m.targetReplicas()).doesNotContain(4, 5));
    for (int id = 1; id <= 3; id++) {
      assertThat(replicasAfter(plan, id)).isBetween(5, 6);
    }
  }

  @Test
  void racksGivenPutEachPartitionOnDistinctRacks() {
    h.startBrokers(1, 2, 3, 4, 5, 6);
    Map<Integer, String> racks = Map.of(1, "a", 2, "a", 3, "b", 4, "b", 5, "c", 6, "c");
    topic(
        h,
        "orders",
        List.of(List.of(1, 2), List.of(3, 4), List.of(5, 6), List.of(1, 2, 3), List.of(4, 3, 5)));

    BalancePlan plan = BalancePlanner.plan(h.image, BalanceOptions.NONE.withRacks(racks));

    assertThat(placementAfter(h.image, plan).values())
        .allSatisfy(replicas -> assertThat(rackCount(racks, replicas)).isEqualTo(replicas.size()));
    assertThat(plan.moves()).extracting(BalancePlan.Move::partition).hasSize(5);
  }

  @Test
  void racksForSomeEligibleBrokersButNotAllAreRefused() {
    h.startBrokers(1, 2, 3);
    assertThatThrownBy(
            () -> BalancePlanner.plan(h.image, BalanceOptions.NONE.withRacks(Map.of(1, "a"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[2, 3]");
  }

  @Test
  void partitionsBeingReassignedAndOfflineOnesAreSkippedWithWhy() {
    h.startBrokers(1, 2, 3);
    topic(h, "orders", List.of(List.of(1, 2), List.of(1, 2), List.of(1, 2), List.of(1, 2)));
    Uuid id = h.image.topic("orders").orElseThrow().topicId();
    h.commit(
        List.of(
            new MetadataRecord.PartitionChange(
                id, 0, List.of(3, 2, 1), List.of(1, 2), 1, 0, 1, List.of(3), List.of(1)),
            new MetadataRecord.PartitionChange(id, 1, List.of(1, 2), List.of(1), -1, 1, 1)));

    BalancePlan plan = BalancePlanner.plan(h.image);

    assertThat(plan.skipped())
        .containsExactly(
            new BalancePlan.Skipped(
                new TopicPartition("orders", 0),
                List.of(3, 2),
                "being reassigned (adding [3], removing [1])"),
            new BalancePlan.Skipped(
                new TopicPartition("orders", 1), List.of(1, 2), "offline: no leader"));
    assertThat(plan.moves())
        .extracting(m -> m.partition().partition())
        .doesNotContain(0, 1)
        .isNotEmpty();
  }

  @Test
  void bytesInChoosesAmongMovesThatEvenTheCountsEqually() {
    h.startBrokers(1, 2);
    topic(h, "t", List.of(List.of(1), List.of(1), List.of(1), List.of(1)));
    Map<TopicPartition, Double> rates =
        Map.of(tp("t", 0), 10.0, tp("t", 1), 10.0, tp("t", 2), 40.0, tp("t", 3), 40.0);

    BalancePlan blind = BalancePlanner.plan(h.image);
    BalancePlan plan = BalancePlanner.plan(h.image, BalanceOptions.NONE.withBytesInPerSec(rates));

    assertThat(blind.moves()).extracting(m -> m.partition().partition()).containsExactly(0, 1);
    assertThat(plan.moves()).extracting(m -> m.partition().partition()).containsExactly(0, 2);
    assertThat(plan.broker(1).orElseThrow().bytesInAfter()).isEqualTo(50.0);
    assertThat(plan.broker(2).orElseThrow().bytesInAfter()).isEqualTo(50.0);
    assertThat(plan.render()).contains("bytes-in/s").contains("100.0 → 50.0");
  }

  @Test
  void smallerPartitionsMoveFirst() {
    h.startBrokers(1, 2);
    topic(h, "t", List.of(List.of(1), List.of(1)));
    BalanceOptions sizes =
        BalanceOptions.NONE.withSizeBytes(Map.of(tp("t", 0), 5_000L, tp("t", 1), 10L));

    assertThat(BalancePlanner.plan(h.image, sizes).moves())
        .extracting(m -> m.partition().partition())
        .containsExactly(1);
  }

  @Test
  void rendersOneLinePerMoveThenABrokerTable() {
    h.startBrokers(1, 2, 3);
    topic(h, "orders", List.of(List.of(1), List.of(1)));
    h.register(4, ClusterHarness.incarnation(4, 1));

    assertThat(BalancePlanner.plan(h.image).render())
        .isEqualTo(
            """
            1 move(s), 1 replica(s) to copy, 0 partition(s) skipped
            orders-0: [1] → [2]
            broker  state      replicas  leaders
            1       eligible   2 → 1     2 → 1
            2       eligible   0 → 1     0 → 1
            3       eligible   0 → 0     0 → 0
            4       fenced     0 → 0     0 → 0
            """);
  }

  @Test
  void thePlanIsDeterministic() {
    ClusterHarness other = new ClusterHarness(1);
    for (ClusterHarness cluster : List.of(h, other)) {
      cluster.startBrokers(1, 2, 3);
      cluster.createTopic("orders", 12, 2);
      cluster.createTopic("events", 5, 3);
      cluster.startBrokers(4, 5);
    }
    BalanceOptions options =
        BalanceOptions.NONE
            .withRacks(Map.of(1, "a", 2, "b", 3, "a", 4, "b", 5, "c"))
            .withBytesInPerSec(Map.of(tp("orders", 3), 7.0, tp("events", 1), 3.0));

    BalancePlan plan = BalancePlanner.plan(h.image, options);

    assertThat(plan.isBalanced()).isFalse();
    assertThat(BalancePlanner.plan(h.image, options)).isEqualTo(plan);
    assertThat(BalancePlanner.plan(other.image, options)).isEqualTo(plan);
    assertThat(BalancePlanner.plan(other.image, options).render()).isEqualTo(plan.render());
  }

  @Test
  void theTargetsGoThroughReassignmentControlAndLeaveABalancedCluster() {
    h.startBrokers(1, 2, 3);
    h.createTopic("orders", 8, 2);
    h.createTopic("__consumer_offsets", 5, 3);
    h.startBrokers(4);
    BalancePlan plan = BalancePlanner.plan(h.image);

    ReassignmentControl.Result result =
        ReassignmentControl.alter(h.image, plan.reassignmentTargets());

    assertThat(result.outcomes().values()).containsOnly(PartitionOutcome.DONE);
    result.records().forEach(BalancePlannerTest::checkPartitionChange);
    h.commit(result.records());
    for (BalancePlan.Move move : plan.moves()) {
      // The new replicas catch up; the ISR change that says so completes the reassignment.
      TopicImage topic = h.image.topic(move.partition().topic()).orElseThrow();
      PartitionImage p = topic.partitions().get(move.partition().partition());
      if (p.isReassigning()) {
        Map<Integer, Long> epochs = new HashMap<>();
        p.replicas().forEach(id -> epochs.put(id, h.epoch(id)));
        List<MetadataRecord> records =
            IsrControl.alterPartition(
                h.image,
                topic.topicId(),
                p.partition(),
                p.leader(),
                p.leaderEpoch(),
                p.partitionEpoch(),
                p.replicas(),
                epochs);
        records.forEach(BalancePlannerTest::checkPartitionChange);
        h.commit(records);
      }
      assertThat(h.partition(move.partition().topic(), move.partition().partition()).replicas())
          .isEqualTo(move.targetReplicas());
    }
    PreferredLeaderElection.Result elected = PreferredLeaderElection.elect(h.image, null);
    assertThat(elected.outcomes().values()).allMatch(o -> o.error() == Errors.NONE);
    h.commit(elected.records());

    BalancePlan again = BalancePlanner.plan(h.image);
    assertThat(again.isBalanced()).as(again.render()).isTrue();
    for (int id : List.of(1, 2, 3, 4)) {
      long leading =
          h.image.topicsByName().values().stream()
              .flatMap(t -> t.partitions().values().stream())
              .filter(p -> p.leader() == id)
              .count();
      assertThat(leading).as("partitions led by %d", id).isBetween(3L, 4L);
    }
  }

  /** leader ∈ ISR ⊆ replicas, no replica twice, adding and removing within the replicas. */
  static void checkPartitionChange(MetadataRecord record) {
    if (record instanceof MetadataRecord.PartitionChange c) {
      assertThat(c.replicas()).as("%s", c).doesNotHaveDuplicates().containsAll(c.isr());
      assertThat(c.isr()).as("%s", c).isNotEmpty().contains(c.leader());
      assertThat(c.replicas()).as("%s", c).containsAll(c.addingReplicas());
      assertThat(c.replicas()).as("%s", c).containsAll(c.removingReplicas());
    }
  }

  /** Every partition's replicas once the plan's moves complete. */
  static Map<TopicPartition, List<Integer>> placementAfter(MetadataImage image, BalancePlan plan) {
    Map<TopicPartition, List<Integer>> after = new HashMap<>();
    image
        .topicsByName()
        .values()
        .forEach(
            t ->
                t.partitions()
                    .values()
                    .forEach(p -> after.put(tp(t.name(), p.partition()), p.replicas())));
    plan.moves().forEach(m -> after.put(m.partition(), m.targetReplicas()));
    return after;
  }

  static long rackCount(Map<Integer, String> racks, List<Integer> brokerIds) {
    return brokerIds.stream().map(racks::get).distinct().count();
  }

  static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  // ---- seeded random clusters

  @Test
  void randomClustersKeepTheReplicationFactorSpreadReplicasAndNeverOvermove() {
    int evenlySpreadChecked = 0;
    for (long seed = 0; seed < 50; seed++) {
      evenlySpreadChecked += checkRandomCluster(seed) ? 1 : 0;
    }
    assertThat(evenlySpreadChecked)
        .as("seeds whose counts had to end within one")
        .isGreaterThan(20);
  }

  /**
   * 3-6 brokers (sometimes one fenced, sometimes one excluded, sometimes racks), 1-10 topics of RF
   * 1-3 crowded onto the first brokers; true if the counts had to end within one of the mean (no
   * racks, nothing skipped).
   */
  private static boolean checkRandomCluster(long seed) {
    Random random = new Random(seed);
    ClusterHarness c = new ClusterHarness(seed);
    int n = 3 + random.nextInt(4);
    int fenced = random.nextInt(4) == 0 ? 1 + random.nextInt(n) : -1;
    for (int id = 1; id <= n; id++) {
      if (id == fenced) {
        c.register(id, ClusterHarness.incarnation(id, 1));
      } else {
        c.startBrokers(id);
      }
    }
    int replicaCount = 0;
    for (int t = 0, topics = 1 + random.nextInt(10); t < topics; t++) {
      int rf = 1 + random.nextInt(3);
      int span = rf + random.nextInt(n - rf + 1); // some brokers may start empty
      List<List<Integer>> assignments = new ArrayList<>();
      for (int p = 0, partitions = 1 + random.nextInt(6); p < partitions; p++) {
        List<Integer> brokers = new ArrayList<>(IntStream.rangeClosed(1, span).boxed().toList());
        Collections.shuffle(brokers, random);
        assignments.add(List.copyOf(brokers.subList(0, rf)));
        replicaCount += rf;
      }
      topic(c, "t" + t, assignments);
    }
    Set<Integer> excluded = random.nextInt(4) == 0 ? Set.of(1 + random.nextInt(n)) : Set.of();
    Map<Integer, String> racks = new HashMap<>();
    if (random.nextInt(3) == 0) {
      IntStream.rangeClosed(1, n).forEach(id -> racks.put(id, "r" + id % 3));
    }
    BalanceOptions options = BalanceOptions.NONE.withExcluded(excluded).withRacks(racks);

    BalancePlan plan = BalancePlanner.plan(c.image, options);

    String why = "seed " + seed + "\n" + plan.render();
    assertThat(BalancePlanner.plan(c.image, options)).as(why).isEqualTo(plan);
    assertThat(plan.moves().size()).as(why).isLessThanOrEqualTo(replicaCount);
    assertThat(plan.replicasToCopy()).as(why).isLessThanOrEqualTo(replicaCount);
    List<Integer> eligible =
        plan.brokers().stream()
            .filter(b -> b.role() == BalancePlan.BrokerRole.ELIGIBLE)
            .map(BalancePlan.BrokerLoad::brokerId)
            .toList();
    for (BalancePlan.Move move : plan.moves()) {
      assertThat(move.targetReplicas()).as(why).hasSameSizeAs(move.currentReplicas());
      assertThat(move.targetReplicas()).as(why).doesNotHaveDuplicates();
      assertThat(eligible).as(why).containsAll(move.targetReplicas());
    }
    assertThat(plan.brokers().stream().mapToInt(BalancePlan.BrokerLoad::replicasAfter).sum())
        .as(why)
        .isEqualTo(replicaCount);
    long rackCount = rackCount(racks, eligible);
    Set<TopicPartition> skipped = new HashSet<>();
    plan.skipped().forEach(s -> skipped.add(s.partition()));
    placementAfter(c.image, plan)
        .forEach(
            (tp, after) -> {
              if (!racks.isEmpty() && !skipped.contains(tp) && after.size() <= rackCount) {
                assertThat(rackCount(racks, after))
                    .as("%s %s; %s", tp, after, why)
                    .isEqualTo(after.size());
              }
            });
    assertThat(ReassignmentControl.alter(c.image, plan.reassignmentTargets()).outcomes().values())
        .as(why)
        .allMatch(PartitionOutcome.DONE::equals);
    if (!racks.isEmpty() || !plan.skipped().isEmpty()) {
      return false;
    }
    IntSummaryStatistics counts =
        plan.brokers().stream()
            .filter(b -> eligible.contains(b.brokerId()))
            .mapToInt(BalancePlan.BrokerLoad::replicasAfter)
            .summaryStatistics();
    assertThat(counts.getMax() - counts.getMin()).as(why).isLessThanOrEqualTo(1);
    assertThat(plan.brokers())
        .filteredOn(b -> !eligible.contains(b.brokerId()))
        .allSatisfy(b -> assertThat(b.replicasAfter()).as(why).isZero());
    return true;
  }
}
