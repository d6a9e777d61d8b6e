package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.Uuid;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cluster timeline: what the controller says a batch did, and how every image keeps it. */
class ClusterEventsTest {
  static final Uuid ORDERS = new Uuid(7, 7);

  /** Brokers 1-3 registered and unfenced; orders-0 on [1,2,3] led by 1 with ISR [1,2,3]. */
  private static MetadataImage cluster() {
    return cluster(List.of(1, 2, 3), 1);
  }

  /** As {@link #cluster()}, orders-0 with {@code isr}, led by {@code leader} (-1: offline). */
  static MetadataImage cluster(List<Integer> isr, int leader) {
    MetadataImage image = MetadataImage.EMPTY;
    for (int id = 1; id <= 3; id++) {
      image =
          image.replay(
              image.lastOffset() + 1,
              new MetadataRecord.RegisterBroker(id, new Uuid(0, id), "127.0.0.1", 8080 + id));
      long epoch = image.lastOffset();
      image = image.replay(image.lastOffset() + 1, new MetadataRecord.BrokerUnfenced(id, epoch));
    }
    image = image.replay(image.lastOffset() + 1, new MetadataRecord.TopicCreated(ORDERS, "orders"));
    return image.replay(
        image.lastOffset() + 1,
        new MetadataRecord.PartitionChange(ORDERS, 0, List.of(1, 2, 3), isr, leader, 0, 0));
  }

  private static MetadataRecord.PartitionChange change(
      List<Integer> isr, int leader, int leaderEpoch) {
    return new MetadataRecord.PartitionChange(
        ORDERS, 0, List.of(1, 2, 3), isr, leader, leaderEpoch, leaderEpoch + 1);
  }

  @Test
  void aFailoverIsAFencingThenALeaderChangeWithTheOldAndNewLeaderEpochAndTheReason() {
    MetadataImage image = cluster();
    long epochOf1 = image.broker(1).orElseThrow().brokerEpoch();

    List<ClusterEvent> events =
        ClusterEvents.describe(
            image,
            List.of(new MetadataRecord.BrokerFenced(1, epochOf1), change(List.of(2, 3), 2, 1)),
            "session expired (no heartbeat for 3000 ms)",
            5_000);

    assertThat(events)
        .extracting(ClusterEvent::type)
        .containsExactly(
            ClusterEvent.Type.BROKER_FENCED,
            ClusterEvent.Type.LEADER_CHANGED,
            ClusterEvent.Type.ISR_SHRINK);
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.timestampMs()).isEqualTo(5_000);
              assertThat(e.reason()).isEqualTo("session expired (no heartbeat for 3000 ms)");
              assertThat(e.offset()).as("stamped on replay").isEqualTo(-1);
            });
    assertThat(events.get(1).text()).isEqualTo("orders-0 leader 1 → 2 (leader epoch 1)");
    assertThat(events.get(1).topic()).isEqualTo("orders");
    assertThat(events.get(1).partition()).isZero();
    assertThat(events.get(2).text()).isEqualTo("orders-0 ISR [1, 2, 3] → [2, 3]: replica 1 left");
    assertThat(events.get(2).brokerId()).isEqualTo(1);
  }

  @Test
  void aRegistrationSaysWhereTheBrokerServesHttpThenItsOtherListeners() {
    AdvertisedListener kafka =
        new AdvertisedListener(
            "KAFKA", "10.0.0.4", 9094, AdvertisedListener.SecurityProtocol.PLAINTEXT);
    List<ClusterEvent> events =
        ClusterEvents.describe(
            cluster(),
            List.of(
                new MetadataRecord.RegisterBroker(4, new Uuid(0, 4), "10.0.0.4", 8084),
                new MetadataRecord.RegisterBroker(
                    5, new Uuid(0, 5), List.of(kafka, AdvertisedListener.http("10.0.0.5", 8085)))),
            null,
            5_000);

    assertThat(events)
        .extracting(ClusterEvent::text)
        .containsExactly(
            "broker 4 registered at 10.0.0.4:8084",
            "broker 5 registered at 10.0.0.5:8085, KAFKA 10.0.0.4:9094");
  }

  @Test
  void anIsrExpansionNamesTheReplicaThatJoined() {
    MetadataImage image = cluster().replay(100, change(List.of(1, 2), 1, 0));

    List<ClusterEvent> events =
        ClusterEvents.describe(
            image,
            List.of(change(List.of(1, 2, 3), 1, 0)),
            "proposed by leader 1: replica 3 caught up",
            9);

    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ClusterEvent.Type.ISR_EXPAND);
              assertThat(e.brokerId()).isEqualTo(3);
              assertThat(e.text()).endsWith("replica 3 joined");
              assertThat(e.reason()).isEqualTo("proposed by leader 1: replica 3 caught up");
            });
  }

  @Test
  void aReassignmentSaysWhereItGoesWhenItStartsAndWhereItEndedWhenItCompletes() {
    MetadataImage image = cluster();
    image =
        image.replay(
            image.lastOffset() + 1,
            new MetadataRecord.RegisterBroker(4, new Uuid(0, 4), "127.0.0.1", 8084));
    image =
        image.replay(
            image.lastOffset() + 1, new MetadataRecord.BrokerUnfenced(4, image.lastOffset()));
    MetadataRecord.PartitionChange started =
        new MetadataRecord.PartitionChange(
            ORDERS, 0, List.of(2, 3, 4, 1), List.of(1, 2, 3), 1, 0, 1, List.of(4), List.of(1));

    List<ClusterEvent> start =
        ClusterEvents.describe(image, List.of(started), "reassignment requested", 10);

    assertThat(start)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(ClusterEvent.Type.REASSIGNMENT);
              assertThat(e.text())
                  .isEqualTo(
                      "orders-0 reassignment started: [1, 2, 3] → [2, 3, 4]"
                          + " (adding [4], removing [1])");
              assertThat(e.topic()).isEqualTo("orders");
              assertThat(e.partition()).isZero();
              assertThat(e.brokerId()).as("the leader").isEqualTo(1);
              assertThat(e.reason()).isEqualTo("reassignment requested");
            });

    image = image.replay(image.lastOffset() + 1, started);
    List<ClusterEvent> done =
        ClusterEvents.describe(
            image,
            List.of(
                new MetadataRecord.PartitionChange(
                    ORDERS, 0, List.of(2, 3, 4), List.of(2, 3, 4), 2, 1, 2)),
            "proposed by leader 1: replica 4 caught up",
            11);

    assertThat(done.get(0).type()).isEqualTo(ClusterEvent.Type.REASSIGNMENT);
    assertThat(done.get(0).text()).isEqualTo("orders-0 reassignment completed: replicas [2, 3, 4]");
    assertThat(done)
        .extracting(ClusterEvent::type)
        .as("the leader and ISR changes of the same record follow")
        .containsExactly(
            ClusterEvent.Type.REASSIGNMENT,
            ClusterEvent.Type.LEADER_CHANGED,
            ClusterEvent.Type.ISR_SHRINK,
            ClusterEvent.Type.ISR_EXPAND);
  }

  @Test
  void aLateFencingOfAPreviousRegistrationIsNoEventBecauseItChangesNothing() {
    MetadataImage image = cluster();

    assertThat(
            ClusterEvents.describe(
                image, List.of(new MetadataRecord.BrokerFenced(1, 999)), "late", 1))
        .isEmpty();
  }

  @Test
  void aNewTopicIsOneCauseWithItsPartitionsAsItsConsequences() {
    Uuid clicks = new Uuid(9, 9);
    List<ClusterEvent> events =
        ClusterEvents.describe(
            cluster(),
            List.of(
                new MetadataRecord.TopicCreated(clicks, "clicks"),
                new MetadataRecord.PartitionChange(clicks, 0, List.of(1), List.of(1), 1, 0, 0),
                new MetadataRecord.PartitionChange(clicks, 1, List.of(2), List.of(2), 2, 0, 0)),
            "requested",
            1);

    assertThat(events)
        .extracting(ClusterEvent::type, ClusterEvent::text, ClusterEvent::causeIndex)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                ClusterEvent.Type.TOPIC_CREATED, "topic clicks created", -1),
            org.assertj.core.groups.Tuple.tuple(
                ClusterEvent.Type.PARTITIONS_ADDED,
                "partition clicks-0 on replicas [1], leader 1",
                0),
            org.assertj.core.groups.Tuple.tuple(
                ClusterEvent.Type.PARTITIONS_ADDED,
                "partition clicks-1 on replicas [2], leader 2",
                0));
  }

  @Test
  void replayStampsEventsWithTheirOffsetAndKeepsOnlyTheNewestOnes() {
    MetadataImage image = cluster();
    long first = image.lastOffset() + 1;
    for (int i = 0; i < ClusterEvents.MAX_RETAINED + 5; i++) {
      image =
          image.replay(
              image.lastOffset() + 1,
              new MetadataRecord.EventsRecorded(List.of(ClusterEvents.controllerElected(1, i, i))));
    }

    assertThat(image.events()).hasSize(ClusterEvents.MAX_RETAINED);
    assertThat(image.events().get(0).offset()).isEqualTo(first + 5);
    assertThat(image.events().get(ClusterEvents.MAX_RETAINED - 1).offset())
        .isEqualTo(image.lastOffset());
    assertThat(image.topic("orders")).as("no other state changes").isPresent();
  }

  @Test
  void aSnapshotKeepsTheTimelineAndTheRecordsSurviveTheirEncoding() {
    MetadataImage before = cluster();
    MetadataImage image =
        before.replay(
            before.lastOffset() + 1,
            new MetadataRecord.EventsRecorded(
                ClusterEvents.describe(
                    before, List.of(change(List.of(1, 2), 1, 0)), "replica 3 fell behind", 42)));

    MetadataImage restored = MetadataImage.EMPTY;
    long offset = 0;
    for (MetadataRecord record : image.toRecords()) {
      MetadataRecord decoded =
          MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record));
      assertThat(decoded).isEqualTo(record);
      restored = restored.replay(offset++, decoded);
    }

    assertThat(restored.withLastOffset(image.lastOffset())).isEqualTo(image);
    assertThat(restored.events())
        .singleElement()
        .satisfies(e -> assertThat(e.offset()).isEqualTo(image.lastOffset()));
  }

  @Test
  void overlongReasonsAreCutSoTheRecordStaysEncodable() {
    String reason = "x".repeat(100_000);
    ClusterEvent event =
        new ClusterEvent(-1, 1, ClusterEvent.Type.ISR_SHRINK, "t", 0, 1, "text", reason);
    List<ClusterEvent> events = new ArrayList<>(List.of(event));

    MetadataRecord record = new MetadataRecord.EventsRecorded(events);

    assertThat(event.reason()).hasSize(ClusterEvent.MAX_TEXT_CHARS);
    assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
        .isEqualTo(record);
  }
}
