package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.metadata.IsrControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaHarness.Placement;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BalanceService} on broker 1 ({@link LocalReplicas}): brokers 1, 2 and 3 are registered and
 * unfenced; the controller is a {@link FakeController} that commits reassignments as the real one
 * does, and broker 1 applies what it committed only when the test says so ({@link
 * ReplicaHarness#catchUp}), which is when the service hears that a move started. A move completes
 * when the test commits the ISR change its leader would propose ({@link IsrControl}). The service
 * ticks on the harness's manual clock.
 */
class BalanceServiceTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);
  private static final AclBinding ALICE_ADMIN =
      new AclBinding(
          "User:alice",
          AclOperation.ADMIN,
          ResourceType.CLUSTER,
          PatternType.LITERAL,
          AclBinding.CLUSTER_NAME);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private BalanceService balance;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    balance = service(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private BalanceService service(AccessControl access) {
    return broker.balanceService(access);
  }

  /** Topic {@code t}, one single-replica partition per broker given, in order. */
  private void placeSingleReplicas(Integer... leaders) {
    harness.placeTopic(
        "t",
        Map.of(),
        IntStream.range(0, leaders.length)
            .mapToObj(i -> Placement.on(leaders[i]))
            .toArray(Placement[]::new));
  }

  /**
   * Nine single-replica partitions, five on broker 1 and four on broker 2, none on broker 3: the
   * plan moves t-0 and t-1 off broker 1 and t-5 off broker 2, each onto broker 3.
   */
  private void skewed() {
    placeSingleReplicas(1, 1, 1, 1, 1, 2, 2, 2, 2);
  }

  private static TopicPartition tp(int partition) {
    return new TopicPartition("t", partition);
  }

  private void tick() {
    harness.clock.advance(BalanceService.TICK_MS);
  }

  private BalanceService.ExecutionStatus status() {
    return balance.execution().orElseThrow();
  }

  /** The targets of every alterPartitionReassignments call the controller saw, in order. */
  @SuppressWarnings("unchecked")
  private List<Map<TopicPartition, Optional<List<Integer>>>> reassignmentCalls() {
    List<Map<TopicPartition, Optional<List<Integer>>>> targets = new ArrayList<>();
    for (FakeController.Call call : broker.controller.calls()) {
      if (call.name().equals("alterPartitionReassignments")) {
        targets.add((Map<TopicPartition, Optional<List<Integer>>>) call.arguments().get(0));
      }
    }
    return targets;
  }

  private List<FakeController.Call> electionCalls() {
    return broker.controller.calls().stream()
        .filter(call -> call.name().equals("electPreferredLeaders"))
        .toList();
  }

  private static PartitionImage partition(MetadataImage image, TopicPartition tp) {
    return image.topic(tp.topic()).orElseThrow().requirePartition(tp.partition());
  }

  /**
   * Commits (and applies here) what the controller would for the leader of {@code tp} adding every
   * replica being added to the ISR: the reassignment completes in the same record.
   */
  private void catchUpTarget(TopicPartition tp) {
    assertThat(partition(harness.controllerImage(), tp).isReassigning())
        .as("%s is being reassigned", tp)
        .isTrue();
    broker.completeReassignment(tp);
    assertThat(partition(harness.image(), tp).isReassigning()).isFalse();
  }

  private static void assertError(Throwable thrown, Errors error) {
    assertThat(thrown)
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(error));
  }

  // ------------------------------------------------------------------------------------ tests

  @Test
  void aBalancedClusterIsDoneAtOnceWithNothingSent() {
    placeSingleReplicas(1, 2, 3);

    BalanceService.ExecutionStatus started = balance.execute(ALICE, Set.of(), 2);

    assertThat(started.state()).isEqualTo(BalanceService.State.DONE);
    assertThat(started.plan().moves()).isEmpty();
    assertThat(started.done()).isEmpty();
    assertThat(started.failed()).isEmpty();
    assertThat(started.finishedAtMs()).isEqualTo(harness.clock.milliseconds());
    assertThat(balance.execution()).contains(started);
    tick();
    assertThat(broker.controller.calls()).as("no reassignment, no election").isEmpty();
  }

  @Test
  void noExecutionBeforeTheFirst() {
    assertThat(balance.execution()).isEmpty();
    assertThatThrownBy(() -> balance.stop(ALICE))
        .satisfies(e -> assertError(e, Errors.NO_REASSIGNMENT_IN_PROGRESS));
  }

  @Test
  void aSkewedClusterStartsOneMoveAtATimeAndRefusesASecondBalance() {
    skewed();

    BalancePlan plan = balance.propose(ALICE, Set.of());
    assertThat(plan.moves())
        .extracting(BalancePlan.Move::partition, BalancePlan.Move::targetReplicas)
        .containsExactly(
            tuple(tp(0), List.of(3)), tuple(tp(1), List.of(3)), tuple(tp(5), List.of(3)));
    assertThat(broker.controller.calls()).as("proposing changes nothing").isEmpty();

    BalanceService.ExecutionStatus started = balance.execute(ALICE, Set.of(), 1);

    assertThat(started.state()).isEqualTo(BalanceService.State.RUNNING);
    assertThat(started.plan()).isEqualTo(plan);
    assertThat(started.maxConcurrentMoves()).isEqualTo(1);
    assertThat(started.inFlight()).containsExactly(tp(0));
    assertThat(started.done()).isEmpty();
    assertThat(started.failed()).isEmpty();
    assertThat(reassignmentCalls()).containsExactly(Map.of(tp(0), Optional.of(List.of(3))));
    assertThat(partition(harness.controllerImage(), tp(0)).addingReplicas()).containsExactly(3);
    assertThat(partition(harness.controllerImage(), tp(1)).isReassigning()).isFalse();

    harness.catchUp();
    tick();
    tick();
    assertThat(reassignmentCalls()).as("the limit holds while t-0 moves").hasSize(1);
    assertThat(status().inFlight()).containsExactly(tp(0));

    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(), 1))
        .satisfies(e -> assertError(e, Errors.REASSIGNMENT_IN_PROGRESS))
        .hasMessageContaining("0 of 3 moves done");
    assertThat(status().state()).isEqualTo(BalanceService.State.RUNNING);
    assertThat(reassignmentCalls()).hasSize(1);
  }

  @Test
  void eachCompletedMoveMakesRoomForTheNextThenThePreferredLeadersAreElected() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();

    tick();
    assertThat(status().done()).as("t-0 is still copying").isEmpty();

    catchUpTarget(tp(0));
    tick();
    assertThat(status().done()).containsExactly(tp(0));
    assertThat(status().inFlight()).containsExactly(tp(1));
    assertThat(reassignmentCalls())
        .containsExactly(
            Map.of(tp(0), Optional.of(List.of(3))), Map.of(tp(1), Optional.of(List.of(3))));

    harness.catchUp();
    catchUpTarget(tp(1));
    tick();
    assertThat(status().done()).containsExactly(tp(0), tp(1));
    assertThat(status().inFlight()).containsExactly(tp(5));
    assertThat(electionCalls()).isEmpty();

    harness.catchUp();
    catchUpTarget(tp(5));
    tick();
    harness.catchUp();

    assertThat(electionCalls())
        .singleElement()
        .satisfies(
            call -> assertThat(call.arguments()).containsExactly(List.of(tp(0), tp(1), tp(5))));
    BalanceService.ExecutionStatus finished = status();
    assertThat(finished.state()).isEqualTo(BalanceService.State.DONE);
    assertThat(finished.done()).containsExactly(tp(0), tp(1), tp(5));
    assertThat(finished.inFlight()).isEmpty();
    assertThat(finished.failed()).isEmpty();
    assertThat(finished.finishedAtMs()).isEqualTo(harness.clock.milliseconds());
    for (int p : List.of(0, 1, 5)) {
      assertThat(partition(harness.image(), tp(p)).replicas()).containsExactly(3);
      assertThat(partition(harness.image(), tp(p)).leader()).isEqualTo(3);
    }
    assertThat(reassignmentCalls()).hasSize(3);

    tick();
    tick();
    assertThat(broker.controller.calls()).as("nothing after the end").hasSize(4);
    assertThat(balance.propose(ALICE, Set.of()).isBalanced()).isTrue();
  }

  @Test
  void aMoveWhosePartitionChangedSinceThePlanIsNeverSent() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();
    // Someone else puts t-1 on broker 2 while t-0 moves.
    harness.move(tp(1), Placement.on(2));

    catchUpTarget(tp(0));
    tick();

    BalanceService.ExecutionStatus now = status();
    assertThat(now.done()).containsExactly(tp(0));
    assertThat(now.failed()).containsOnlyKeys(tp(1));
    assertThat(now.failed().get(tp(1))).startsWith("changed since the plan").contains("[2]");
    assertThat(now.inFlight()).as("the next one starts at once").containsExactly(tp(5));

    harness.catchUp();
    catchUpTarget(tp(5));
    tick();
    harness.catchUp();

    assertThat(reassignmentCalls())
        .containsExactly(
            Map.of(tp(0), Optional.of(List.of(3))), Map.of(tp(5), Optional.of(List.of(3))));
    assertThat(partition(harness.image(), tp(1)).replicas())
        .as("their placement stands")
        .containsExactly(2);
    assertThat(electionCalls())
        .singleElement()
        .satisfies(call -> assertThat(call.arguments()).containsExactly(List.of(tp(0), tp(5))));
    assertThat(status().state()).isEqualTo(BalanceService.State.FAILED);
    assertThat(status().done()).containsExactly(tp(0), tp(5));
  }

  @Test
  void aPartitionSomeoneElseIsReassigningIsLeftToThem() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();
    MetadataImage image = harness.controllerImage();
    PartitionImage p1 = partition(image, tp(1));
    // Someone else's reassignment of t-1 to broker 2, started and not complete.
    harness.apply(
        List.of(
            new MetadataRecord.PartitionChange(
                image.topic("t").orElseThrow().topicId(),
                1,
                List.of(2, 1),
                List.of(1),
                1,
                p1.leaderEpoch(),
                p1.partitionEpoch() + 1,
                List.of(2),
                List.of(1))));

    catchUpTarget(tp(0));
    tick();

    assertThat(status().failed().get(tp(1)))
        .isEqualTo("changed since the plan: replicas [2, 1], moving");
    assertThat(reassignmentCalls()).noneMatch(targets -> targets.containsKey(tp(1)));
    assertThat(partition(harness.controllerImage(), tp(1)).targetReplicas()).containsExactly(2);
  }

  @Test
  void stopFailsThePendingMovesAndStartsNoOther() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();

    BalanceService.ExecutionStatus stopped = balance.stop(ALICE);

    assertThat(stopped.state()).isEqualTo(BalanceService.State.STOPPED);
    assertThat(stopped.finishedAtMs()).isEqualTo(harness.clock.milliseconds());
    assertThat(stopped.inFlight()).as("a started move goes on by itself").containsExactly(tp(0));
    assertThat(stopped.failed())
        .isEqualTo(
            Map.of(
                tp(1), "not started: the balance was stopped",
                tp(5), "not started: the balance was stopped"));
    assertThat(balance.execution()).contains(stopped);

    catchUpTarget(tp(0));
    for (int i = 0; i < 10; i++) {
      tick();
    }
    assertThat(reassignmentCalls()).hasSize(1);
    assertThat(electionCalls()).isEmpty();
    assertThat(status().state()).isEqualTo(BalanceService.State.STOPPED);
    assertThat(partition(harness.image(), tp(0)).replicas())
        .as("the move in flight completed without the balance")
        .containsExactly(3);

    assertThatThrownBy(() -> balance.stop(ALICE))
        .satisfies(e -> assertError(e, Errors.NO_REASSIGNMENT_IN_PROGRESS));
  }

  @Test
  void aNewBalanceMayStartOnceTheLastOneStopped() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();
    balance.stop(ALICE);

    BalanceService.ExecutionStatus again = balance.execute(ALICE, Set.of(), 1);

    assertThat(again.state()).isEqualTo(BalanceService.State.RUNNING);
    assertThat(again.plan().skipped())
        .extracting(BalancePlan.Skipped::partition)
        .as("planned around the move still in flight")
        .containsExactly(tp(0));
    assertThat(again.plan().moves())
        .extracting(BalancePlan.Move::partition)
        .containsExactly(tp(1), tp(5));
    assertThat(again.inFlight()).containsExactly(tp(1));
    for (int i = 0; i < 10; i++) {
      tick();
    }
    assertThat(reassignmentCalls()).as("the stopped run's ticks start nothing").hasSize(2);
  }

  @Test
  void severalMovesMayBeInFlightButNeverMoreThanTheLimit() {
    skewed();
    balance.execute(ALICE, Set.of(), 2);
    tick();
    harness.catchUp();

    assertThat(status().inFlight()).containsExactly(tp(0), tp(1));
    assertThat(reassignmentCalls()).noneMatch(targets -> targets.containsKey(tp(5)));
    tick();
    assertThat(status().inFlight()).hasSize(2);
    assertThat(reassignmentCalls()).noneMatch(targets -> targets.containsKey(tp(5)));

    catchUpTarget(tp(1));
    tick();
    assertThat(status().done()).containsExactly(tp(1));
    assertThat(status().inFlight()).containsExactly(tp(0), tp(5));
  }

  @Test
  void theFirstStepStartsAsManyMovesAsTheLimitAllowsInOneCall() {
    skewed();

    BalanceService.ExecutionStatus started = balance.execute(ALICE, Set.of(), 3);

    assertThat(started.inFlight()).containsExactly(tp(0), tp(1), tp(5));
    assertThat(reassignmentCalls())
        .containsExactly(
            Map.of(
                tp(0), Optional.of(List.of(3)),
                tp(1), Optional.of(List.of(3)),
                tp(5), Optional.of(List.of(3))));
  }

  @Test
  void anAuthorizationRevokedMidRunEndsTheRunFailingEveryUnfinishedMove() {
    AtomicInteger denials = new AtomicInteger();
    harness.apply(List.of(new MetadataRecord.AclCreated(ALICE_ADMIN)));
    balance = service(broker.accessControl(denials));
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    harness.catchUp();
    catchUpTarget(tp(0));
    harness.apply(List.of(new MetadataRecord.AclDeleted(ALICE_ADMIN)));

    tick();

    BalanceService.ExecutionStatus ended = status();
    assertThat(ended.state()).isEqualTo(BalanceService.State.FAILED);
    assertThat(ended.done()).containsExactly(tp(0));
    assertThat(ended.inFlight()).isEmpty();
    assertThat(ended.failed()).containsOnlyKeys(tp(1), tp(5));
    assertThat(ended.failed().get(tp(1)))
        .startsWith("the balance stopped: ")
        .contains("not authorized");
    assertThat(ended.failed().get(tp(5))).isEqualTo("not started: the balance stopped");
    assertThat(ended.finishedAtMs()).isEqualTo(harness.clock.milliseconds());
    assertThat(denials).hasValue(1);

    for (int i = 0; i < 10; i++) {
      tick();
    }
    assertThat(reassignmentCalls()).hasSize(1);
    assertThat(electionCalls()).isEmpty();
    assertThat(status()).isEqualTo(ended);
    assertThatThrownBy(() -> balance.stop(ALICE)).isInstanceOf(AuthorizationException.class);
  }

  @Test
  void anUnconfirmedStartIsSentAgainWithTheSameTarget() {
    placeSingleReplicas(1, 1, 1, 2); // one move: t-0 to broker 3
    balance.execute(ALICE, Set.of(), 1);

    // Committed, but not applied here within the propagation timeout: no answer.
    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS);

    assertThat(reassignmentCalls())
        .containsExactly(
            Map.of(tp(0), Optional.of(List.of(3))), Map.of(tp(0), Optional.of(List.of(3))));
    assertThat(status().state()).isEqualTo(BalanceService.State.RUNNING);
    assertThat(status().inFlight()).containsExactly(tp(0));
    assertThat(status().failed()).isEmpty();

    harness.catchUp();
    catchUpTarget(tp(0));
    tick();
    harness.catchUp();

    assertThat(status().state()).isEqualTo(BalanceService.State.DONE);
    assertThat(status().done()).containsExactly(tp(0));
    assertThat(reassignmentCalls()).hasSize(2);
  }

  @Test
  void aStartUnconfirmedFiveTimesFailsTheMove() {
    placeSingleReplicas(1, 1, 1, 2);
    balance.execute(ALICE, Set.of(), 1);

    harness.clock.advance(4 * AdminService.METADATA_PROPAGATION_TIMEOUT_MS);
    assertThat(reassignmentCalls()).hasSize(5);
    assertThat(status().state()).isEqualTo(BalanceService.State.RUNNING);

    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS);

    assertThat(reassignmentCalls())
        .hasSize(5)
        .allSatisfy(
            targets -> assertThat(targets).isEqualTo(Map.of(tp(0), Optional.of(List.of(3)))));
    BalanceService.ExecutionStatus ended = status();
    assertThat(ended.state()).isEqualTo(BalanceService.State.FAILED);
    assertThat(ended.inFlight()).isEmpty();
    assertThat(ended.failed().get(tp(0)))
        .startsWith("the controller did not confirm the move after 5 attempts: ");
    assertThat(electionCalls()).as("nothing moved").isEmpty();

    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS);
    assertThat(reassignmentCalls()).hasSize(5);
  }

  @Test
  void aStartUnconfirmedWhenStoppedStaysAccountedFor() {
    skewed();
    balance.execute(ALICE, Set.of(), 1);
    BalanceService.ExecutionStatus stopped = balance.stop(ALICE);
    assertThat(stopped.inFlight()).containsExactly(tp(0));

    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS);

    BalanceService.ExecutionStatus now = status();
    assertThat(now.state()).isEqualTo(BalanceService.State.STOPPED);
    assertThat(reassignmentCalls()).hasSize(1);
    List<TopicPartition> accounted = new ArrayList<>(now.done());
    accounted.addAll(now.inFlight());
    accounted.addAll(now.failed().keySet());
    assertThat(accounted).containsExactlyInAnyOrder(tp(0), tp(1), tp(5));
  }

  @Test
  void badArgumentsAreRefusedAndNothingStarts() {
    skewed();

    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(), 0))
        .satisfies(e -> assertError(e, Errors.INVALID_REQUEST))
        .hasMessageContaining("max_concurrent_moves");
    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(), 101))
        .satisfies(e -> assertError(e, Errors.INVALID_REQUEST));
    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(7), 2))
        .satisfies(e -> assertError(e, Errors.INVALID_REQUEST))
        .hasMessageContaining("Broker 7 is not registered");
    assertThatThrownBy(() -> balance.propose(ALICE, Set.of(7)))
        .satisfies(e -> assertError(e, Errors.INVALID_REQUEST));

    assertThat(balance.execution()).isEmpty();
    assertThat(broker.controller.calls()).isEmpty();
    assertThat(balance.execute(ALICE, Set.of(), 100).state())
        .as("100 is allowed")
        .isEqualTo(BalanceService.State.RUNNING);
  }

  @Test
  void anExcludedBrokerIsEmptied() {
    placeSingleReplicas(1, 2, 3);

    BalanceService.ExecutionStatus started = balance.execute(ALICE, Set.of(3), 2);

    assertThat(started.excluded()).containsExactly(3);
    assertThat(started.plan().moves())
        .singleElement()
        .satisfies(move -> assertThat(move.partition()).isEqualTo(tp(2)));
    assertThat(reassignmentCalls())
        .singleElement()
        .satisfies(t -> assertThat(t).containsOnlyKeys(tp(2)));
  }

  @Test
  void proposingNeedsReadAndExecutingAndStoppingNeedAdminOnTheCluster() {
    AtomicInteger denials = new AtomicInteger();
    balance = service(broker.accessControl(denials));
    skewed();

    assertThatThrownBy(() -> balance.propose(ALICE, Set.of()))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(), 1))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> balance.stop(ALICE)).isInstanceOf(AuthorizationException.class);
    assertThat(denials).hasValue(3);
    assertThat(broker.controller.calls()).isEmpty();

    broker.grant("User:alice", AclOperation.READ, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    assertThat(balance.propose(ALICE, Set.of()).moves()).hasSize(3);
    assertThatThrownBy(() -> balance.execute(ALICE, Set.of(), 1))
        .isInstanceOf(AuthorizationException.class);
    assertThat(balance.execution()).isEmpty();
  }
}
