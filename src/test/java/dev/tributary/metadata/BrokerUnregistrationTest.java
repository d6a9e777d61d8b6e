package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.InvalidRequestException;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Unregistering a decommissioned broker: only once it is fenced and no partition lists it (as a
 * replica, adding or removing); the record removes exactly that registration, survives the serde,
 * and a broker that starts again registers again.
 */
class BrokerUnregistrationTest {
  private static final Uuid TOPIC_ID = new Uuid(7, 7);
  private final ClusterHarness h = new ClusterHarness(3);

  @BeforeEach
  void setUp() {
    h.startBrokers(1, 2, 3, 4);
    h.commit(List.of(new MetadataRecord.TopicCreated(TOPIC_ID, "t")));
  }

  private void partition(int partition, List<Integer> replicas, List<Integer> adding) {
    List<Integer> removing = replicas.stream().filter(id -> !adding.contains(id)).toList();
    h.commit(
        List.of(
            new MetadataRecord.PartitionChange(
                TOPIC_ID,
                partition,
                replicas,
                replicas.subList(0, 1),
                replicas.get(0),
                1,
                1,
                adding,
                adding.isEmpty()
                    ? List.of()
                    : removing.subList(removing.size() - 1, removing.size()))));
  }

  private void fence(int brokerId) {
    h.commit(h.cluster.fenceBroker(h.image, brokerId, h.epoch(brokerId)));
  }

  @Test
  void aFencedBrokerThatHoldsNoReplicaIsRemovedFromTheMetadata() {
    partition(0, List.of(1, 2), List.of());
    fence(4);
    long epoch = h.epoch(4);

    List<MetadataRecord> records = BrokerUnregistration.records(h.image, 4);

    assertThat(records).containsExactly(new MetadataRecord.UnregisterBroker(4, epoch));
    assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(records.get(0))))
        .isEqualTo(records.get(0));
    h.commit(records);
    assertThat(h.image.broker(4)).isEmpty();
    assertThat(h.image.brokers()).containsOnlyKeys(1, 2, 3);
  }

  @Test
  void aRunningBrokerIsRefusedAndNothingChanges() {
    MetadataImage before = h.image;
    assertThatThrownBy(() -> BrokerUnregistration.records(h.image, 4))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("Broker 4 is running (unfenced); stop it");
    assertThat(h.image).isEqualTo(before);
  }

  @Test
  void anUnknownBrokerIsNotRegistered() {
    assertThatThrownBy(() -> BrokerUnregistration.records(h.image, 9))
        .isInstanceOf(BrokerNotRegisteredException.class)
        .hasMessage("Broker 9 is not registered");
  }

  @Test
  void aBrokerStillListedByAPartitionIsRefusedNamingThePartitions() {
    partition(0, List.of(4, 1), List.of());
    partition(1, List.of(1, 2), List.of());
    fence(4);
    assertThatThrownBy(() -> BrokerUnregistration.records(h.image, 4))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(
            "Broker 4 still holds replicas of 1 partition(s) (t-0); move them to other brokers"
                + " first");
  }

  @Test
  void aBrokerAReassignmentIsAddingIsStillListed() {
    // t-0 moving from [1, 2] to [1, 4]: replicas [1, 4, 2], adding [4], removing [2].
    partition(0, List.of(1, 4, 2), List.of(4));
    fence(4);
    assertThatThrownBy(() -> BrokerUnregistration.records(h.image, 4))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("(t-0)");
  }

  @Test
  void aLateRecordForAnOlderRegistrationRemovesNothingAndARestartedBrokerRegistersAgain() {
    fence(4);
    MetadataRecord old = new MetadataRecord.UnregisterBroker(4, h.epoch(4));
    h.register(4, ClusterHarness.incarnation(4, 2)); // the broker started again meanwhile
    long newEpoch = h.epoch(4);

    h.commit(List.of(old));

    assertThat(h.image.broker(4)).isPresent();
    assertThat(h.image.broker(4).orElseThrow().brokerEpoch()).isEqualTo(newEpoch);
  }
}
