package dev.tributary.metadata;

import static dev.tributary.metadata.ClusterHarness.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.LogConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replication half of {@link ClusterControl}: fencing a broker at once (controlled shutdown, or
 * found dead), preferred leader election, and unclean leader election. Partitions are placed by
 * hand so that replica order is known.
 */
class ClusterControlReplicationTest {
  private static final Uuid TOPIC_ID = new Uuid(5, 5);

  private final ClusterHarness h = new ClusterHarness(2);

  /**
   * Topic t with one partition as given (leader epoch 3, partition epoch 9), optionally with
   * unclean election.
   */
  private void partition(List<Integer> replicas, List<Integer> isr, int leader, boolean unclean) {
    List<MetadataRecord> records = new ArrayList<>();
    records.add(new MetadataRecord.TopicCreated(TOPIC_ID, "t"));
    if (unclean) {
      records.add(
          new MetadataRecord.TopicConfigChanged(
              TOPIC_ID, LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE, "true"));
    }
    records.add(new MetadataRecord.PartitionChange(TOPIC_ID, 0, replicas, isr, leader, 3, 9));
    h.commit(records);
  }

  private PartitionImage p() {
    return h.partition("t", 0);
  }

  private List<MetadataRecord> fence(int brokerId) {
    return h.commit(h.cluster.fenceBroker(h.image, brokerId, h.epoch(brokerId)));
  }

  // -------------------------------------------------------------------------------------------
  // fenceBroker

  @Test
  void fencingTheLeaderMovesLeadershipToTheNextIsrMemberInReplicaOrder() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 3, 2), List.of(2, 1, 3), 1, false);
    List<MetadataRecord> records = fence(1);
    assertThat(types(records)).containsExactly("PartitionChange", "BrokerFenced");
    assertThat(p()).isEqualTo(new PartitionImage(0, List.of(1, 3, 2), List.of(2, 3), 3, 4, 10));
    assertThat(h.state(1)).isEqualTo(ClusterControl.BrokerState.FENCED);
  }

  @Test
  void fencingAFollowerOnlyTakesItOutOfTheIsr() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(1, 2, 3), 1, false);
    fence(2);
    assertThat(p()).isEqualTo(new PartitionImage(0, List.of(1, 2, 3), List.of(1, 3), 1, 3, 10));
  }

  @Test
  void fencingSkipsIsrMembersOnFencedBrokers() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(1, 2, 3), 1, false);
    h.commit(
        List.of(new MetadataRecord.BrokerFenced(2, h.epoch(2)))); // fenced, not yet out of the ISR
    fence(1);
    assertThat(p().leader()).isEqualTo(3);
    assertThat(p().leaderEpoch()).isEqualTo(4);
  }

  @Test
  void fencingAnotherRegistrationIsStaleAndFencingTwiceIsANoOp() {
    h.startBrokers(1, 2);
    partition(List.of(1, 2), List.of(1, 2), 1, false);
    assertThatThrownBy(() -> h.cluster.fenceBroker(h.image, 1, h.epoch(1) - 1))
        .isInstanceOf(StaleBrokerEpochException.class);
    assertThatThrownBy(() -> h.cluster.fenceBroker(h.image, 7, 0))
        .isInstanceOf(StaleBrokerEpochException.class);
    assertThat(p().leader()).isEqualTo(1);
    fence(1);
    assertThat(h.cluster.fenceBroker(h.image, 1, h.epoch(1))).isEmpty();
  }

  // -------------------------------------------------------------------------------------------
  // preferred leader

  @Test
  void thePreferredReplicaGetsLeadershipBackOnceItIsInSyncAndUnfenced() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(2, 3), 2, false);
    assertThat(ClusterControl.preferredLeaderChanges(h.image))
        .as("replica 1 is not in sync")
        .isEmpty();
    h.commit(
        List.of(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(2, 3, 1), 2, 3, 10)));
    List<MetadataRecord> changes = ClusterControl.preferredLeaderChanges(h.image);
    assertThat(changes)
        .containsExactly(
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 0, List.of(1, 2, 3), List.of(2, 3, 1), 1, 4, 11));
    h.commit(changes);
    assertThat(ClusterControl.preferredLeaderChanges(h.image))
        .as("already led by its preferred replica")
        .isEmpty();
  }

  @Test
  void aFencedPreferredReplicaDoesNotGetLeadership() {
    h.startBrokers(1, 2);
    partition(List.of(1, 2), List.of(1, 2), 2, false);
    h.commit(List.of(new MetadataRecord.BrokerFenced(1, h.epoch(1))));
    assertThat(ClusterControl.preferredLeaderChanges(h.image)).isEmpty();
  }

  // -------------------------------------------------------------------------------------------
  // unclean election

  @Test
  void withoutUncleanElectionLosingTheLastInSyncReplicaTakesThePartitionOffline() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(1), 1, false);
    fence(1);
    assertThat(p())
        .as("replicas 2 and 3 are alive but out of sync")
        .isEqualTo(new PartitionImage(0, List.of(1, 2, 3), List.of(1), -1, 4, 10));
  }

  @Test
  void withUncleanElectionTheFirstLiveReplicaLeadsAloneWhenTheIsrIsGone() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 3, 2), List.of(1), 1, true);
    fence(1);
    assertThat(p()).isEqualTo(new PartitionImage(0, List.of(1, 3, 2), List.of(3), 3, 4, 10));
  }

  @Test
  void withUncleanElectionAnOfflinePartitionIsLedByTheFirstReplicaToComeBack() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(1), 1, true);
    fence(2);
    fence(3);
    fence(1); // nobody left to lead
    assertThat(p().leader()).isEqualTo(-1);
    assertThat(p().isr()).containsExactly(1);
    h.nowMs += 10;
    h.heartbeat(3);
    assertThat(p().leader()).isEqualTo(3);
    assertThat(p().isr()).containsExactly(3);
    assertThat(p().leaderEpoch()).isEqualTo(5);
  }

  @Test
  void withoutUncleanElectionAnOfflinePartitionWaitsForItsLastInSyncReplica() {
    h.startBrokers(1, 2, 3);
    partition(List.of(1, 2, 3), List.of(1), 1, false);
    fence(2);
    fence(3);
    fence(1);
    h.nowMs += 10;
    h.heartbeat(3);
    assertThat(p().leader()).isEqualTo(-1);
    h.heartbeat(1);
    assertThat(p().leader()).isEqualTo(1);
    assertThat(p().isr()).containsExactly(1);
  }
}
