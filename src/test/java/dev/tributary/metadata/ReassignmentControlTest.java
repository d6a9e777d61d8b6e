package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * KIP-455 reassignment in the controller: starting, completing (with the ISR change that brings the
 * last target replica in sync), retargeting and cancelling, and what fencing does meanwhile.
 * Brokers 1-5 are registered and unfenced; topic "t" has the partitions each test puts in it, in
 * leader epoch 5 and partition epoch 7. Every record computed is checked against the {@link
 * MetadataRecord.PartitionChange} invariants and committed, one offset each, as a quorum would.
 */
class ReassignmentControlTest {
  private static final Uuid TOPIC_ID = new Uuid(42, 42);
  private static final int LEADER_EPOCH = 5;
  private static final int PARTITION_EPOCH = 7;

  private final ClusterHarness h = new ClusterHarness(1);

  @BeforeEach
  void setUp() {
    h.startBrokers(1, 2, 3, 4, 5);
    h.commit(List.of(new MetadataRecord.TopicCreated(TOPIC_ID, "t")));
  }

  // ---- helpers

  private static TopicPartition tp(int partition) {
    return new TopicPartition("t", partition);
  }

  /** Puts partition {@code partition} of "t" on {@code replicas}, not being reassigned. */
  private void partition(int partition, List<Integer> replicas, List<Integer> isr, int leader) {
    h.commit(
        List.of(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, partition, replicas, isr, leader, LEADER_EPOCH, PARTITION_EPOCH)));
  }

  private PartitionImage p(int partition) {
    return h.partition("t", partition);
  }

  /** Computes the request over the current image, checks and commits its records. */
  private ReassignmentControl.Result alter(Map<TopicPartition, Optional<List<Integer>>> targets) {
    ReassignmentControl.Result result = ReassignmentControl.alter(h.image, targets);
    checkAndCommit(result.records());
    assertThat(result.outcomes().keySet())
        .as("an outcome for every partition, in the order asked")
        .containsExactlyElementsOf(targets.keySet());
    return result;
  }

  private ReassignmentControl.Result reassign(int partition, Integer... target) {
    return alter(request(move(tp(partition), target)));
  }

  private ReassignmentControl.Result cancel(int partition) {
    return alter(request(cancelOf(tp(partition))));
  }

  /**
   * The current leader of {@code partition} proposes {@code newIsr} (every broker it adds caught up
   * in its current registration); its records are checked and committed.
   */
  private List<MetadataRecord> alterIsr(int partition, List<Integer> newIsr) {
    PartitionImage current = p(partition);
    Map<Integer, Long> brokerEpochs = new HashMap<>();
    for (int id : newIsr) {
      brokerEpochs.put(id, h.epoch(id));
    }
    return checkAndCommit(
        IsrControl.alterPartition(
            h.image,
            TOPIC_ID,
            partition,
            current.leader(),
            current.leaderEpoch(),
            current.partitionEpoch(),
            newIsr,
            brokerEpochs));
  }

  private List<MetadataRecord> fence(int brokerId) {
    return checkAndCommit(h.cluster.fenceBroker(h.image, brokerId, h.epoch(brokerId)));
  }

  private List<MetadataRecord> checkAndCommit(List<MetadataRecord> records) {
    records.forEach(ReassignmentControlTest::checkInvariants);
    return h.commit(records);
  }

  /**
   * leader ∈ ISR ⊆ replicas (unless offline), a non-empty ISR, no replica twice, adding and
   * removing disjoint subsets of the replicas, and the removing replicas last (the target first,
   * Kafka's order, so the preferred leader is the target's).
   */
  private static void checkInvariants(MetadataRecord record) {
    if (!(record instanceof MetadataRecord.PartitionChange c)) {
      return;
    }
    assertThat(c.isr()).as("ISR of %s", c).isNotEmpty().doesNotHaveDuplicates();
    assertThat(c.replicas()).as("replicas of %s", c).doesNotHaveDuplicates();
    assertThat(c.replicas()).as("replicas ⊇ ISR in %s", c).containsAll(c.isr());
    if (c.leader() != -1) {
      assertThat(c.isr()).as("leader ∈ ISR in %s", c).contains(c.leader());
    }
    assertThat(c.replicas()).as("%s", c).containsAll(c.addingReplicas());
    assertThat(c.replicas()).as("%s", c).containsAll(c.removingReplicas());
    assertThat(c.addingReplicas())
        .as("adding and removing are disjoint in %s", c)
        .noneMatch(c.removingReplicas()::contains);
    int targetSize = c.replicas().size() - c.removingReplicas().size();
    assertThat(c.replicas().subList(targetSize, c.replicas().size()))
        .as("the removing replicas come last in %s", c)
        .containsExactlyInAnyOrderElementsOf(c.removingReplicas());
  }

  private static MetadataRecord.PartitionChange onlyChange(List<MetadataRecord> records) {
    assertThat(records).hasSize(1);
    return (MetadataRecord.PartitionChange) records.get(0);
  }

  // ---- starting and completing

  @Test
  void startingPutsTheTargetFirstAddsTheNewReplicasOutsideTheIsrAndKeepsTheLeader() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);

    ReassignmentControl.Result result = reassign(0, 2, 3, 4);

    assertThat(result.outcomes()).containsExactly(Map.entry(tp(0), PartitionOutcome.DONE));
    assertThat(result.records())
        .containsExactly(
            new MetadataRecord.PartitionChange(
                TOPIC_ID,
                0,
                List.of(2, 3, 4, 1),
                List.of(1, 2, 3),
                1,
                LEADER_EPOCH,
                PARTITION_EPOCH + 1,
                List.of(4),
                List.of(1)));
    PartitionImage p = p(0);
    assertThat(p.isReassigning()).isTrue();
    assertThat(p.targetReplicas()).containsExactly(2, 3, 4);
    assertThat(p.originalReplicas()).containsExactlyInAnyOrder(1, 2, 3);
  }

  @Test
  void theIsrExpansionThatBringsTheLastTargetReplicaInSyncCompletesAndMovesALeavingLeader() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);
    int startedEpoch = p(0).partitionEpoch();

    MetadataRecord.PartitionChange completed = onlyChange(alterIsr(0, List.of(1, 2, 3, 4)));

    assertThat(completed.replicas()).containsExactly(2, 3, 4);
    assertThat(completed.isr()).containsExactly(2, 3, 4);
    assertThat(completed.leader()).as("the first in-sync target replica").isEqualTo(2);
    assertThat(completed.leaderEpoch()).isEqualTo(LEADER_EPOCH + 1);
    assertThat(completed.partitionEpoch()).isGreaterThan(startedEpoch);
    assertThat(completed.addingReplicas()).isEmpty();
    assertThat(completed.removingReplicas()).isEmpty();
    assertThat(p(0).isReassigning()).isFalse();
    assertThat(p(0).replicas()).containsExactly(2, 3, 4);
  }

  @Test
  void aLeaderThatStaysKeepsItsLeaderEpochWhenTheReassignmentCompletes() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 2);
    reassign(0, 2, 3, 4);

    MetadataRecord.PartitionChange completed = onlyChange(alterIsr(0, List.of(1, 2, 3, 4)));

    assertThat(completed.replicas()).containsExactly(2, 3, 4);
    assertThat(completed.isr()).containsExactly(2, 3, 4);
    assertThat(completed.leader()).isEqualTo(2);
    assertThat(completed.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void anIsrExpansionThatLeavesATargetReplicaBehindDoesNotComplete() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 3, 4, 5);
    assertThat(p(0).addingReplicas()).containsExactly(4, 5);
    assertThat(p(0).removingReplicas()).containsExactly(1, 2);

    MetadataRecord.PartitionChange expanded = onlyChange(alterIsr(0, List.of(1, 2, 3, 4)));

    assertThat(expanded.replicas()).containsExactly(3, 4, 5, 1, 2);
    assertThat(expanded.isr()).containsExactly(1, 2, 3, 4);
    assertThat(expanded.addingReplicas()).containsExactly(4, 5);
    assertThat(expanded.removingReplicas()).containsExactly(1, 2);
    assertThat(expanded.leader()).isEqualTo(1);

    MetadataRecord.PartitionChange completed = onlyChange(alterIsr(0, List.of(1, 2, 3, 4, 5)));

    assertThat(completed.replicas()).containsExactly(3, 4, 5);
    assertThat(completed.isr()).containsExactly(3, 4, 5);
    assertThat(completed.leader()).isEqualTo(3);
    assertThat(completed.leaderEpoch()).isEqualTo(LEADER_EPOCH + 1);
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void aShrinkOrAReorderWhollyInSyncCompletesAtOnce() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition(1, List.of(1, 2, 3), List.of(1, 2, 3), 1);

    ReassignmentControl.Result result = alter(request(move(tp(0), 2, 3), move(tp(1), 3, 2, 1)));

    assertThat(result.outcomes().values()).containsOnly(PartitionOutcome.DONE);
    assertThat(result.records())
        .containsExactly(
            new MetadataRecord.PartitionChange(
                TOPIC_ID,
                0,
                List.of(2, 3),
                List.of(2, 3),
                2,
                LEADER_EPOCH + 1,
                PARTITION_EPOCH + 1),
            new MetadataRecord.PartitionChange(
                TOPIC_ID,
                1,
                List.of(3, 2, 1),
                List.of(1, 2, 3),
                1,
                LEADER_EPOCH,
                PARTITION_EPOCH + 1));
    assertThat(p(0).isReassigning()).isFalse();
    assertThat(p(1).isReassigning()).isFalse();
  }

  @Test
  void theCurrentReplicasAsTargetChangeNothing() {
    partition(0, List.of(1, 2, 3), List.of(1, 2), 1);
    MetadataImage before = h.image;

    ReassignmentControl.Result result = reassign(0, 1, 2, 3);

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().get(tp(0))).isEqualTo(PartitionOutcome.DONE);
    assertThat(result.outcomes().get(tp(0)).error()).isEqualTo(Errors.NONE);
    assertThat(h.image).isEqualTo(before);
  }

  // ---- retargeting

  @Test
  void aNewTargetDuringAReassignmentReplacesTheOldOne() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);
    int startedEpoch = p(0).partitionEpoch();

    ReassignmentControl.Result result = reassign(0, 3, 4, 5);

    assertThat(result.outcomes().get(tp(0))).isEqualTo(PartitionOutcome.DONE);
    MetadataRecord.PartitionChange retargeted = onlyChange(result.records());
    assertThat(retargeted.replicas()).containsExactly(3, 4, 5, 2, 1);
    assertThat(retargeted.isr()).containsExactly(1, 2, 3);
    assertThat(retargeted.leader()).isEqualTo(1);
    assertThat(retargeted.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(retargeted.partitionEpoch()).isEqualTo(startedEpoch + 1);
    assertThat(retargeted.removingReplicas()).containsExactly(2, 1);
    // 5 is new. Whether 4, still copying, stays "adding" is open (computed from the current
    // replicas [2, 3, 4, 1] as Kafka does, it does not): see the resubmission test below.
    assertThat(retargeted.addingReplicas()).contains(5).doesNotContain(1, 2, 3);
    assertThat(p(0).targetReplicas()).containsExactly(3, 4, 5);

    MetadataRecord.PartitionChange completed = onlyChange(alterIsr(0, List.of(1, 2, 3, 4, 5)));

    assertThat(completed.replicas()).containsExactly(3, 4, 5);
    assertThat(completed.isr()).containsExactly(3, 4, 5);
    assertThat(completed.leader()).isEqualTo(3);
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void resubmittingTheTargetOfAReassignmentInProgressKeepsItCancellable() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);

    ReassignmentControl.Result again = reassign(0, 2, 3, 4); // a retried request

    assertThat(again.outcomes().get(tp(0))).isEqualTo(PartitionOutcome.DONE);
    assertThat(p(0).addingReplicas()).containsExactly(4);
    assertThat(p(0).removingReplicas()).containsExactly(1);

    MetadataRecord.PartitionChange cancelled = onlyChange(cancel(0).records());

    assertThat(cancelled.replicas()).containsExactlyInAnyOrder(1, 2, 3);
  }

  @Test
  void retargetingToTheOriginalReplicasWhileTheNewOnesCatchUpCompletesAtOnceInTheirOrder() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);

    MetadataRecord.PartitionChange back = onlyChange(reassign(0, 1, 2, 3).records());

    assertThat(back.replicas()).containsExactly(1, 2, 3);
    assertThat(back.isr()).containsExactly(1, 2, 3);
    assertThat(back.leader()).isEqualTo(1);
    assertThat(back.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(p(0).isReassigning()).isFalse();
  }

  // ---- cancelling

  @Test
  void cancellingReturnsToTheOriginalReplicasAndTheAddingOnesLeaveTheIsr() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 3, 4, 5);
    alterIsr(0, List.of(1, 2, 3, 4)); // 4 caught up, 5 not yet

    ReassignmentControl.Result result = cancel(0);

    assertThat(result.outcomes().get(tp(0))).isEqualTo(PartitionOutcome.DONE);
    MetadataRecord.PartitionChange cancelled = onlyChange(result.records());
    // As a set: the order is today the current one less the adding replicas ([3, 1, 2] here, as
    // Kafka's revert does), not the original [1, 2, 3], so the preferred leader may change.
    assertThat(cancelled.replicas()).containsExactlyInAnyOrder(1, 2, 3);
    assertThat(cancelled.isr()).containsExactly(1, 2, 3);
    assertThat(cancelled.leader()).isEqualTo(1);
    assertThat(cancelled.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(cancelled.addingReplicas()).isEmpty();
    assertThat(cancelled.removingReplicas()).isEmpty();
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void cancellingMovesLeadershipOffAnAddingReplica() {
    partition(0, List.of(1, 2), List.of(1, 2), 1);
    reassign(0, 4, 5);
    alterIsr(0, List.of(1, 2, 4));
    fence(1);
    assertThat(p(0).leader()).as("the first in-sync replica in replica order").isEqualTo(4);
    int leaderEpoch = p(0).leaderEpoch();

    MetadataRecord.PartitionChange cancelled = onlyChange(cancel(0).records());

    assertThat(cancelled.replicas()).containsExactlyInAnyOrder(1, 2);
    assertThat(cancelled.isr()).containsExactly(2);
    assertThat(cancelled.leader()).isEqualTo(2);
    assertThat(cancelled.leaderEpoch()).isEqualTo(leaderEpoch + 1);
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void cancellingWithNoReassignmentInProgressIsRefused() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);

    ReassignmentControl.Result result = cancel(0);

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().get(tp(0)).error()).isEqualTo(Errors.NO_REASSIGNMENT_IN_PROGRESS);
    assertThat(result.outcomes().get(tp(0)).message()).contains("t-0");
  }

  @Test
  void cancellingWhenNoOriginalReplicaIsInSyncIsRefusedAndChangesNothing() {
    partition(0, List.of(1), List.of(1), 1);
    reassign(0, 4, 5);
    alterIsr(0, List.of(1, 4));
    fence(1);
    assertThat(p(0).isr()).containsExactly(4);
    MetadataImage before = h.image;

    ReassignmentControl.Result result = cancel(0);

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().get(tp(0)).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(result.outcomes().get(tp(0)).message()).contains("none of its original replicas");
    assertThat(h.image).isEqualTo(before);
    assertThat(p(0).isReassigning()).isTrue();
  }

  // ---- refusals

  @Test
  void anEmptyRepeatingOrUnregisteredTargetIsAnInvalidReplicaAssignment() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition(1, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition(2, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    MetadataImage before = h.image;

    ReassignmentControl.Result result =
        alter(request(move(tp(0)), move(tp(1), 2, 2, 3), move(tp(2), 2, 3, 9)));

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().values())
        .extracting(PartitionOutcome::error)
        .containsOnly(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(result.outcomes().get(tp(0)).message()).contains("empty");
    assertThat(result.outcomes().get(tp(1)).message()).contains("twice");
    assertThat(result.outcomes().get(tp(2)).message()).contains("[9]", "not registered");
    assertThat(h.image).isEqualTo(before);
  }

  @Test
  void anInvalidNewTargetLeavesTheReassignmentInProgressAsItWas() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);
    PartitionImage started = p(0);

    ReassignmentControl.Result result = reassign(0, 2, 9);

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().get(tp(0)).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(p(0)).isEqualTo(started);
  }

  @Test
  void anUnknownTopicOrPartitionIsRefused() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    TopicPartition missing = new TopicPartition("missing", 0);

    ReassignmentControl.Result result =
        alter(request(move(missing, 1, 2, 3), move(tp(7), 1, 2, 3), cancelOf(tp(8))));

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().values())
        .extracting(PartitionOutcome::error)
        .containsOnly(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(result.outcomes().get(missing).message()).contains("missing");
    assertThat(result.outcomes().get(tp(7)).message()).contains("t-7");
  }

  @Test
  void aRefusedPartitionDoesNotHoldBackTheOthersInTheSameRequest() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    partition(1, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    TopicPartition missing = new TopicPartition("missing", 0);

    ReassignmentControl.Result result =
        alter(request(move(tp(1), 9), move(missing, 1), move(tp(0), 2, 3, 4)));

    assertThat(result.outcomes().get(tp(1)).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(result.outcomes().get(missing).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(result.outcomes().get(tp(0))).isEqualTo(PartitionOutcome.DONE);
    assertThat(result.records())
        .singleElement()
        .satisfies(r -> assertThat(((MetadataRecord.PartitionChange) r).partition()).isZero());
    assertThat(p(0).isReassigning()).isTrue();
    assertThat(p(1).isReassigning()).isFalse();
  }

  // ---- fencing during a reassignment

  @Test
  void fencingDuringAReassignmentKeepsItsAddingAndRemovingReplicas() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 2, 3, 4);

    fence(3); // a target replica leaves the ISR
    PartitionImage p = p(0);
    assertThat(p.isr()).containsExactly(1, 2);
    assertThat(p.leader()).isEqualTo(1);
    assertThat(p.addingReplicas()).containsExactly(4);
    assertThat(p.removingReplicas()).containsExactly(1);

    fence(1); // the leader, which is leaving anyway
    p = p(0);
    assertThat(p.isr()).containsExactly(2);
    assertThat(p.leader()).isEqualTo(2);
    assertThat(p.leaderEpoch()).isEqualTo(LEADER_EPOCH + 1);
    assertThat(p.replicas()).containsExactly(2, 3, 4, 1);
    assertThat(p.addingReplicas()).containsExactly(4);
    assertThat(p.removingReplicas()).containsExactly(1);

    // Broker 3 comes back as a new incarnation; the new leader takes 3 and 4 into the ISR.
    checkAndCommit(
        h.cluster.register(
            h.image,
            3,
            ClusterHarness.incarnation(3, 2),
            List.of(AdvertisedListener.http("localhost", 9003)),
            h.nowMs));
    h.heartbeat(3);
    assertThat(p(0).isReassigning()).isTrue();
    alterIsr(0, List.of(2, 3));
    assertThat(p(0).isReassigning()).isTrue();
    MetadataRecord.PartitionChange completed = onlyChange(alterIsr(0, List.of(2, 3, 4)));

    assertThat(completed.replicas()).containsExactly(2, 3, 4);
    assertThat(completed.isr()).containsExactly(2, 3, 4);
    assertThat(completed.leader()).isEqualTo(2);
    assertThat(p(0).isReassigning()).isFalse();
  }

  @Test
  void anOfflinePartitionBeingReassignedKeepsItsListsAndGetsItsLeaderBackOnUnfencing() {
    partition(0, List.of(1), List.of(1), 1);
    reassign(0, 4, 5);

    fence(1);
    PartitionImage offline = p(0);
    assertThat(offline.leader()).isEqualTo(-1);
    assertThat(offline.isr()).containsExactly(1);
    assertThat(offline.addingReplicas()).containsExactly(4, 5);
    assertThat(offline.removingReplicas()).containsExactly(1);

    ClusterControl.HeartbeatResult unfenced = h.heartbeat(1);
    unfenced.records().forEach(ReassignmentControlTest::checkInvariants);
    PartitionImage back = p(0);
    assertThat(back.leader()).isEqualTo(1);
    assertThat(back.replicas()).containsExactly(4, 5, 1);
    assertThat(back.addingReplicas()).containsExactly(4, 5);
    assertThat(back.removingReplicas()).containsExactly(1);
  }

  @Test
  void anUncleanElectionPrefersAnOriginalReplicaOverOneStillBeingAdded() {
    partition(0, List.of(1, 2), List.of(1), 1);
    h.commit(
        List.of(
            new MetadataRecord.TopicConfigChanged(
                TOPIC_ID, "unclean.leader.election.enable", "true")));
    reassign(0, 4, 2); // replicas [4, 2, 1]: 4 first in replica order, but it holds nothing yet

    fence(1);

    assertThat(p(0).leader()).as("the original replica 2, not the adding 4").isEqualTo(2);
    assertThat(p(0).isReassigning()).isTrue();
  }

  @Test
  void aChangeThatPutsTheWholeTargetInSyncOutsideAnIsrChangeCompletesTheMove() {
    partition(0, List.of(1, 2), List.of(1), 1);
    h.commit(
        List.of(
            new MetadataRecord.TopicConfigChanged(
                TOPIC_ID, "unclean.leader.election.enable", "true")));
    reassign(0, 2); // a shrink to [2]; 2 is not in sync, so it waits

    assertThat(p(0).isReassigning()).isTrue();
    fence(1); // unclean election: 2 leads with ISR [2], the whole target

    assertThat(p(0).isReassigning()).as("completed by the fencing's own change").isFalse();
    assertThat(p(0).replicas()).containsExactly(2);
    assertThat(p(0).leader()).isEqualTo(2);
  }

  @Test
  void aNewTargetThatDropsEveryInSyncReplicaIsRefusedAndChangesNothing() {
    partition(0, List.of(1), List.of(1), 1);
    reassign(0, 4, 5); // replicas [4, 5, 1], adding [4, 5]
    alterIsr(0, List.of(4, 1)); // 4 caught up; 5 has not, so the move goes on
    fence(1); // 4 leads, ISR [4]
    fence(4); // offline: its last in-sync replica is 4, which is still being added
    assertThat(p(0).leader()).isEqualTo(-1);
    assertThat(p(0).isr()).containsExactly(4);
    PartitionImage before = p(0);

    ReassignmentControl.Result result = reassign(0, 1, 5); // would drop 4, the only copy in sync

    assertThat(result.records()).isEmpty();
    assertThat(result.outcomes().get(tp(0)).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(result.outcomes().get(tp(0)).message()).contains("its only in-sync replicas [4]");
    assertThat(p(0)).isEqualTo(before);
  }

  @Test
  void aReassignmentInProgressSurvivesASnapshotThroughItsEncoding() {
    partition(0, List.of(1, 2, 3), List.of(1, 2, 3), 1);
    reassign(0, 3, 4, 5);

    MetadataImage restored = MetadataImage.EMPTY;
    for (MetadataRecord record : h.image.toRecords()) {
      restored =
          restored.replay(
              restored.lastOffset() + 1,
              MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)));
    }

    PartitionImage p = restored.topic("t").orElseThrow().requirePartition(0);
    assertThat(p).isEqualTo(p(0));
    assertThat(p.addingReplicas()).containsExactly(4, 5);
    assertThat(p.removingReplicas()).containsExactly(1, 2);
  }

  /** A request for {@code targets} in the order given (which the outcomes keep). */
  @SafeVarargs
  private static Map<TopicPartition, Optional<List<Integer>>> request(
      Map.Entry<TopicPartition, Optional<List<Integer>>>... targets) {
    Map<TopicPartition, Optional<List<Integer>>> request = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, Optional<List<Integer>>> target : targets) {
      request.put(target.getKey(), target.getValue());
    }
    return request;
  }

  private static Map.Entry<TopicPartition, Optional<List<Integer>>> move(
      TopicPartition tp, Integer... target) {
    return Map.entry(tp, Optional.of(List.of(target)));
  }

  private static Map.Entry<TopicPartition, Optional<List<Integer>>> cancelOf(TopicPartition tp) {
    return Map.entry(tp, Optional.empty());
  }
}
