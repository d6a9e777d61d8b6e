package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.log.ManualTime;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline's causes: each event a controller decision brought about points at the event of the
 * same batch that caused it (a fencing, a registration, an unfencing, a topic's creation), so the
 * page can show one entry per cause. Deterministic: a manual clock, a seeded placement.
 */
class ClusterEventCausesTest {
  private static final long SESSION_TIMEOUT_MS = 9_000;
  private static final Uuid ORDERS = ClusterEventsTest.ORDERS;
  @TempDir Path dir;

  @Test
  void aBrokerWhoseSessionExpiresIsOneCauseOfEveryLeadershipAndIsrChangeItsFencingMade() {
    ManualTime time = new ManualTime(0);
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller =
          new Controller(log, new TopicControl(new Random(1)), SESSION_TIMEOUT_MS, time);
      long[] epochs = new long[4];
      for (int id = 1; id <= 3; id++) {
        epochs[id] =
            controller.registerBroker(
                id, new Uuid(id, 1), List.of(AdvertisedListener.http("h", id)), 0);
      }
      for (int id = 1; id <= 3; id++) {
        controller.heartbeat(id, epochs[id], log.image().lastOffset(), 0);
      }
      controller.createTopic("orders", 3, 3, Map.of());
      controller.createTopic("__consumer_offsets", 4, 3, Map.of());
      long before = log.image().lastOffset();

      // Brokers 1 and 3 keep heartbeating; broker 2 went quiet at 0.
      time.sleep(SESSION_TIMEOUT_MS);
      controller.heartbeat(1, epochs[1], log.image().lastOffset(), SESSION_TIMEOUT_MS - 1);
      controller.heartbeat(3, epochs[3], log.image().lastOffset(), SESSION_TIMEOUT_MS - 1);
      controller.maybeFenceStaleBrokers(SESSION_TIMEOUT_MS);

      List<ClusterEvent> batch =
          log.image().events().stream().filter(e -> e.offset() > before).toList();
      assertThat(batch).extracting(ClusterEvent::offset).containsOnly(batch.get(0).offset());
      ClusterEvent fenced = batch.get(0);
      assertThat(fenced.type()).isEqualTo(ClusterEvent.Type.BROKER_FENCED);
      assertThat(fenced.brokerId()).isEqualTo(2);
      assertThat(fenced.reason()).startsWith("session expired");
      assertThat(fenced.causeIndex()).isEqualTo(-1);
      List<ClusterEvent> consequences = batch.subList(1, batch.size());
      // Every partition had broker 2 in its ISR: 7 shrinks, plus the elections of what it led.
      assertThat(consequences)
          .filteredOn(e -> e.type() == ClusterEvent.Type.ISR_SHRINK)
          .hasSize(7)
          .allSatisfy(e -> assertThat(e.brokerId()).isEqualTo(2));
      assertThat(consequences)
          .extracting(ClusterEvent::type)
          .containsOnly(ClusterEvent.Type.ISR_SHRINK, ClusterEvent.Type.LEADER_CHANGED);
      assertThat(consequences)
          .allSatisfy(e -> assertThat(e.causeIndex()).isEqualTo(fenced.index()));
      assertThat(consequences)
          .extracting(ClusterEvent::topic)
          .contains("orders", "__consumer_offsets");
    }
  }

  @Test
  void twoBrokersFencedAtOnceEachCauseTheChangesThatConcernThem() {
    MetadataImage image = cluster(List.of(1, 2, 3), 1);
    MetadataImage second =
        image.replay(
            image.lastOffset() + 1, new MetadataRecord.TopicCreated(new Uuid(8, 8), "payments"));
    second =
        second.replay(
            second.lastOffset() + 1,
            new MetadataRecord.PartitionChange(
                new Uuid(8, 8), 0, List.of(3, 1), List.of(3, 1), 3, 0, 0));

    List<ClusterEvent> events =
        ClusterEvents.describe(
            second,
            List.of(
                new MetadataRecord.PartitionChange(
                    ORDERS, 0, List.of(1, 2, 3), List.of(2), 2, 1, 2),
                new MetadataRecord.PartitionChange(
                    new Uuid(8, 8), 0, List.of(3, 1), List.of(1), 1, 1, 1),
                new MetadataRecord.BrokerFenced(1, epochOf(second, 1)),
                new MetadataRecord.BrokerFenced(3, epochOf(second, 3))),
            "session expired",
            5);

    assertThat(events)
        .extracting(ClusterEvent::type, ClusterEvent::brokerId, ClusterEvent::causeIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.BROKER_FENCED, 1, -1),
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.BROKER_FENCED, 3, -1),
            // orders-0: leader 1 → 2 is about broker 1; its ISR lost both, named by the first
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.LEADER_CHANGED, 2, 0),
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.ISR_SHRINK, -1, 0),
            // payments-0: leader 3 → 1 and 3 leaving its ISR are about broker 3
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.LEADER_CHANGED, 1, 1),
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.ISR_SHRINK, 3, 1));
    assertThat(events).extracting(ClusterEvent::index).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void anUnfencedBrokerCausesTheElectionItWins() {
    MetadataImage image = cluster(List.of(2), -1);
    long epoch = epochOf(image, 2);
    image = image.replay(image.lastOffset() + 1, new MetadataRecord.BrokerFenced(2, epoch));

    List<ClusterEvent> events =
        ClusterEvents.describe(
            image,
            List.of(
                new MetadataRecord.BrokerUnfenced(2, epoch),
                new MetadataRecord.PartitionChange(
                    ORDERS, 0, List.of(1, 2, 3), List.of(2), 2, 1, 1)),
            "broker 2 unfenced",
            5);

    assertThat(events)
        .extracting(ClusterEvent::type, ClusterEvent::causeIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.BROKER_UNFENCED, -1),
            org.assertj.core.groups.Tuple.tuple(ClusterEvent.Type.LEADER_CHANGED, 0));
    assertThat(events.get(1).text()).isEqualTo("orders-0 leader none → 2 (leader epoch 1)");
  }

  @Test
  void aChangeALeaderProposedHasNoCause() {
    MetadataImage image = cluster(List.of(1, 2, 3), 1);

    List<ClusterEvent> events =
        ClusterEvents.describe(
            image,
            List.of(
                new MetadataRecord.PartitionChange(
                    ORDERS, 0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 1)),
            "proposed by leader 1",
            5);

    assertThat(events).singleElement().satisfies(e -> assertThat(e.causeIndex()).isEqualTo(-1));
  }

  @Test
  void aNewTopicsFirstPartitionsAreItsConsequencesAndTheRestAreCounted() {
    Uuid big = new Uuid(9, 9);
    List<MetadataRecord> records = new java.util.ArrayList<>();
    records.add(new MetadataRecord.TopicCreated(big, "big"));
    int partitions = ClusterEvents.MAX_NEW_PARTITION_EVENTS + 3;
    for (int p = 0; p < partitions; p++) {
      records.add(new MetadataRecord.PartitionChange(big, p, List.of(1), List.of(1), 1, 0, 0));
    }

    List<ClusterEvent> events =
        ClusterEvents.describe(cluster(List.of(1), 1), records, "requested", 5);

    assertThat(events).hasSize(1 + ClusterEvents.MAX_NEW_PARTITION_EVENTS + 1);
    assertThat(events.get(0).type()).isEqualTo(ClusterEvent.Type.TOPIC_CREATED);
    assertThat(events.get(1).text()).isEqualTo("partition big-0 on replicas [1], leader 1");
    assertThat(events.get(events.size() - 1).text()).isEqualTo("and 3 more partitions of big");
    assertThat(events.subList(1, events.size()))
        .allSatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(ClusterEvent.Type.PARTITIONS_ADDED);
              assertThat(e.causeIndex()).isZero();
            });
  }

  @Test
  void eventsWithoutCausesAreWrittenAtVersion0WhichOldBrokersReadAndCausesAtVersion1() {
    ClusterEvent alone = ClusterEvents.controllerElected(1, 3, 10);
    MetadataRecord old = new MetadataRecord.EventsRecorded(List.of(alone));
    byte[] oldBytes = MetadataRecordSerde.serialize(old);
    assertThat(oldBytes[1]).as("version").isZero();
    assertThat(MetadataRecordSerde.deserialize(oldBytes)).isEqualTo(old);

    List<ClusterEvent> linked =
        ClusterEvents.describe(
            cluster(List.of(1, 2, 3), 1),
            List.of(
                new MetadataRecord.BrokerFenced(1, epochOf(cluster(List.of(1, 2, 3), 1), 1)),
                new MetadataRecord.PartitionChange(
                    ORDERS, 0, List.of(1, 2, 3), List.of(2, 3), 2, 1, 2)),
            "session expired",
            5);
    MetadataRecord record = new MetadataRecord.EventsRecorded(linked);
    byte[] bytes = MetadataRecordSerde.serialize(record);
    assertThat(bytes[1]).as("version").isEqualTo((byte) 1);
    assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(record);
  }

  @Test
  void aCauseMustComeBeforeWhatItCaused() {
    assertThatThrownBy(
            () -> new ClusterEvent(-1, 1, ClusterEvent.Type.ISR_SHRINK, "t", 0, 1, "x", null, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static MetadataImage cluster(List<Integer> isr, int leader) {
    return ClusterEventsTest.cluster(isr, leader);
  }

  private static long epochOf(MetadataImage image, int brokerId) {
    return image.broker(brokerId).orElseThrow().brokerEpoch();
  }
}
