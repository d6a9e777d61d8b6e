package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load {@link BalanceService} gathers before it plans: broker 1's own ({@link
 * BrokerLoadService}) and brokers 2's and 3's through a fake {@link PeerLoads}, with a timeout on
 * the manual clock. The planner's own tests cover what it does with the figures; these check that
 * they reach it.
 */
class BalanceServiceLoadTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);
  private static final long TIMEOUT_MS = 2_000;

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private final Map<Integer, CompletableFuture<BrokerLoadReport>> peers = new HashMap<>();
  private BalanceService balance;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    LogDirsService logDirs =
        new LogDirsService(broker, dir.resolve("logs"), () -> false, AccessControl.ALLOW_ALL);
    AdminService admin =
        new AdminService(broker, broker.config(), AccessControl.ALLOW_ALL, broker.waiters);
    balance =
        new BalanceService(
            broker,
            admin,
            AccessControl.ALLOW_ALL,
            harness.clock,
            harness.clock,
            new BrokerLoadService(broker, logDirs, harness.clock),
            id -> peers.getOrDefault(id, new CompletableFuture<>()),
            TIMEOUT_MS);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static BrokerLoadReport empty(int brokerId) {
    return new BrokerLoadReport(brokerId, Map.of(), Map.of());
  }

  @Test
  void aBrokerThatDoesNotAnswerInTimeIsListedAndThePlanIsStillMade() {
    harness.placeTopic("t", Map.of(), Placement.on(1), Placement.on(1));
    peers.put(2, CompletableFuture.completedFuture(empty(2)));
    // broker 3 never answers

    CompletableFuture<BalanceProposal> proposed = balance.proposeAsync(ALICE, Set.of());
    assertThat(proposed).as("waits for broker 3, holding no thread").isNotDone();
    harness.clock.advance(TIMEOUT_MS);

    BalanceProposal proposal = proposed.join();
    assertThat(proposal.loadMissingFrom()).containsExactly(3);
    assertThat(proposal.sizeBytes()).containsOnlyKeys(1, 2);
    assertThat(proposal.plan().moves()).hasSize(1);
  }

  @Test
  void anUnreachableBrokerIsListedWithoutWaiting() {
    harness.placeTopic("t", Map.of(), Placement.on(1));
    peers.put(2, CompletableFuture.failedFuture(new IOException("connection refused")));
    peers.put(3, CompletableFuture.completedFuture(empty(3)));

    CompletableFuture<BalanceProposal> proposed = balance.proposeAsync(ALICE, Set.of());

    assertThat(proposed).isDone();
    assertThat(proposed.join().loadMissingFrom()).containsExactly(2);
  }

  @Test
  void theMeasuredBytesInDecideWhichOfEquallyCountedPartitionsMoves() {
    harness.placeTopic("t", Map.of(), Placement.on(1), Placement.on(1), Placement.on(1));
    harness.append(new TopicPartition("t", 0), ReplicaHarness.batch("a"));
    harness.append(new TopicPartition("t", 1), ReplicaHarness.batch("b"));
    harness.append(
        new TopicPartition("t", 2),
        ReplicaHarness.batch("a long value, ".repeat(200), "and another, ".repeat(200)));
    peers.put(2, CompletableFuture.completedFuture(empty(2)));
    peers.put(3, CompletableFuture.completedFuture(empty(3)));

    BalancePlan weighed = balance.propose(ALICE, Set.of());
    BalancePlan counted = broker.balanceService(AccessControl.ALLOW_ALL).propose(ALICE, Set.of());

    assertThat(counted.moves())
        .as("without figures, partition order decides")
        .extracting(m -> m.partition().partition())
        .containsExactly(0, 1);
    assertThat(weighed.bytesInGiven()).isTrue();
    assertThat(weighed.moves())
        .as("the busy t-2 leaves broker 1, which evens bytes-in best")
        .extracting(m -> m.partition().partition(), BalancePlan.Move::targetReplicas)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, List.of(3)),
            org.assertj.core.groups.Tuple.tuple(2, List.of(2)));
  }

  @Test
  void eachPartitionsBytesInComesFromItsLeadersReportAndItsSizeFromTheLeaderOrLargestReplica() {
    harness.placeTopic("u", Map.of(), Placement.replicated(0, 2, 3), Placement.replicated(0, 3, 2));
    TopicPartition u0 = new TopicPartition("u", 0);
    TopicPartition u1 = new TopicPartition("u", 1);
    Map<Integer, BrokerLoadReport> reports =
        Map.of(
            2,
            new BrokerLoadReport(2, Map.of(u0, 100L, u1, 70L), Map.of(u0, 5.0, u1, 99.0)),
            3,
            new BrokerLoadReport(3, Map.of(u0, 90L), Map.of()));

    var options =
        ClusterLoads.weigh(
            dev.tributary.metadata.BalanceOptions.NONE, harness.controllerImage(), reports);

    assertThat(options.bytesInPerSec())
        .as("broker 2's figure for u-1 is stale: broker 3 leads it, and reported none")
        .containsOnly(entry(u0, 5.0));
    assertThat(options.sizeBytes())
        .as("u-1's leader gave no size: the largest replica's")
        .containsOnly(entry(u0, 100L), entry(u1, 70L));
  }
}
