package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.IneligibleReplicaException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidUpdateVersionException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's validation of a leader's ISR change. Partition orders-0: replicas [1, 2, 3], ISR
 * [1, 2], leader 1 in leader epoch 5, partition epoch 7; brokers 1-3 unfenced.
 */
class IsrControlTest {
  private static final Uuid TOPIC_ID = new Uuid(42, 42);
  private static final int LEADER_EPOCH = 5;
  private static final int PARTITION_EPOCH = 7;

  private final ClusterHarness h = new ClusterHarness(1);

  @BeforeEach
  void setUp() {
    h.startBrokers(1, 2, 3);
    h.commit(
        List.of(
            new MetadataRecord.TopicCreated(TOPIC_ID, "orders"),
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 2), 1, LEADER_EPOCH, PARTITION_EPOCH)));
  }

  private List<MetadataRecord> alter(
      int leaderId,
      int leaderEpoch,
      int partitionEpoch,
      List<Integer> newIsr,
      Map<Integer, Long> brokerEpochs) {
    return IsrControl.alterPartition(
        h.image, TOPIC_ID, 0, leaderId, leaderEpoch, partitionEpoch, newIsr, brokerEpochs);
  }

  private List<MetadataRecord> alter(List<Integer> newIsr, Map<Integer, Long> brokerEpochs) {
    return alter(1, LEADER_EPOCH, PARTITION_EPOCH, newIsr, brokerEpochs);
  }

  @Test
  void anAcceptedExpansionBumpsThePartitionEpochAndKeepsLeaderAndLeaderEpoch() {
    List<MetadataRecord> records = alter(List.of(1, 2, 3), Map.of(3, h.epoch(3)));
    assertThat(records)
        .containsExactly(
            new MetadataRecord.PartitionChange(
                TOPIC_ID,
                0,
                List.of(1, 2, 3),
                List.of(1, 2, 3),
                1,
                LEADER_EPOCH,
                PARTITION_EPOCH + 1));
    h.commit(records);
    PartitionImage p = h.partition("orders", 0);
    assertThat(p.isr()).containsExactly(1, 2, 3);
    assertThat(p.partitionEpoch()).isEqualTo(PARTITION_EPOCH + 1);
    assertThat(p.leaderEpoch()).isEqualTo(LEADER_EPOCH);
  }

  @Test
  void anAcceptedShrinkNeedsNoBrokerEpochs() {
    List<MetadataRecord> records = alter(List.of(1), Map.of());
    assertThat(records)
        .containsExactly(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(1), 1, LEADER_EPOCH, PARTITION_EPOCH + 1));
  }

  @Test
  void theCurrentIsrAgainChangesNothing() {
    assertThat(alter(List.of(1, 2), Map.of())).isEmpty();
  }

  @Test
  void aChangeFromAnOlderLeaderEpochIsFenced() {
    assertThatThrownBy(() -> alter(1, LEADER_EPOCH - 1, PARTITION_EPOCH, List.of(1), Map.of()))
        .isInstanceOf(FencedLeaderEpochException.class);
    assertThatThrownBy(() -> alter(2, LEADER_EPOCH - 1, PARTITION_EPOCH, List.of(2), Map.of()))
        .as("a deposed leader, whoever it is")
        .isInstanceOf(FencedLeaderEpochException.class);
  }

  @Test
  void aChangeFromABrokerThatDoesNotLeadIsRefused() {
    assertThatThrownBy(() -> alter(2, LEADER_EPOCH, PARTITION_EPOCH, List.of(1, 2), Map.of()))
        .isInstanceOf(NotLeaderOrFollowerException.class);
    assertThatThrownBy(() -> alter(1, LEADER_EPOCH + 1, PARTITION_EPOCH, List.of(1), Map.of()))
        .as("an epoch the controller never made")
        .isInstanceOf(NotLeaderOrFollowerException.class);
  }

  @Test
  void aChangeAgainstAnotherPartitionEpochIsAnInvalidUpdateVersion() {
    assertThatThrownBy(() -> alter(1, LEADER_EPOCH, PARTITION_EPOCH - 1, List.of(1), Map.of()))
        .isInstanceOf(InvalidUpdateVersionException.class);
    assertThatThrownBy(() -> alter(1, LEADER_EPOCH, PARTITION_EPOCH + 1, List.of(1), Map.of()))
        .isInstanceOf(InvalidUpdateVersionException.class);
  }

  @Test
  void aFencedBrokerCannotJoinTheIsr() {
    long epoch3 = h.epoch(3);
    h.commit(h.cluster.fenceBroker(h.image, 3, epoch3));
    assertThat(h.state(3)).isEqualTo(ClusterControl.BrokerState.FENCED);
    assertThatThrownBy(() -> alter(List.of(1, 2, 3), Map.of(3, epoch3)))
        .isInstanceOf(IneligibleReplicaException.class);
  }

  @Test
  void aReplicaThatCaughtUpInAnEarlierIncarnationOfItsBrokerCannotJoinTheIsr() {
    long oldEpoch = h.epoch(3);
    h.register(
        3, ClusterHarness.incarnation(3, 2)); // broker 3 restarted: new registration, starts fenced
    h.heartbeat(3);
    assertThat(h.state(3)).isEqualTo(ClusterControl.BrokerState.UNFENCED);
    assertThat(h.epoch(3)).isNotEqualTo(oldEpoch);
    assertThatThrownBy(() -> alter(List.of(1, 2, 3), Map.of(3, oldEpoch)))
        .isInstanceOf(IneligibleReplicaException.class);
    assertThat(alter(List.of(1, 2, 3), Map.of(3, h.epoch(3)))).hasSize(1);
  }

  @Test
  void anIsrWithoutTheLeaderOrWithNonReplicasOrDuplicatesIsInvalid() {
    assertThatThrownBy(() -> alter(List.of(2, 3), Map.of()))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> alter(List.of(), Map.of()))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> alter(List.of(1, 2, 4), Map.of()))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> alter(List.of(1, 2, 2), Map.of()))
        .isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void anUnknownTopicOrPartitionIsRefused() {
    assertThatThrownBy(
            () ->
                IsrControl.alterPartition(
                    h.image,
                    new Uuid(9, 9),
                    0,
                    1,
                    LEADER_EPOCH,
                    PARTITION_EPOCH,
                    List.of(1),
                    Map.of()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThatThrownBy(
            () ->
                IsrControl.alterPartition(
                    h.image, TOPIC_ID, 3, 1, LEADER_EPOCH, PARTITION_EPOCH, List.of(1), Map.of()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }
}
