package dev.tributary.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorHarness;
import dev.tributary.group.GroupError;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** ConsumerInstance over a real coordinator and in-memory partitions, on a manual clock. */
class ConsumerInstanceTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  private final CoordinatorHarness h = CoordinatorHarness.queuedCompletions(3_000).lead();
  private final InMemoryPartitionReader reader = new InMemoryPartitionReader();

  private ConsumerInstance instance(String autoOffsetReset) {
    ConsumerSettings settings =
        new ConsumerSettings(
            "binary",
            autoOffsetReset,
            false,
            5_000,
            1,
            1_000,
            10_000,
            3_000,
            List.of("range"),
            300_000);
    return new ConsumerInstance(
        CoordinatorHarness.GROUP,
        "rest-consumer-1",
        settings,
        h.coordinator,
        reader,
        includeInternal -> Map.of("orders", 2),
        h.clock,
        h.clock,
        "/10.0.0.9");
  }

  @Test
  void positionsStartFromTheCommittedOffset() {
    reader.append(P0, 10, 10);
    assertEquals(GroupError.NONE, h.commit("", -1, P0, 3));
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0));
    PartitionRecords r = single(records(c, 1_000_000));
    assertEquals(3, r.fromOffset());
    assertEquals(10, r.untilOffset());
  }

  @Test
  void withoutACommittedOffsetEarliestStartsAtTheLogStart() {
    reader.append(P0, 5, 10);
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0));
    assertEquals(0, single(records(c, 1_000_000)).fromOffset());
  }

  @Test
  void withoutACommittedOffsetLatestStartsAtTheHighWatermark() {
    reader.append(P0, 5, 10);
    ConsumerInstance c = instance("latest");
    c.assign(List.of(P0));
    assertTrue(records(c, 1_000_000).isEmpty());
    reader.append(P0, 2, 10);
    PartitionRecords r = single(records(c, 1_000_000));
    assertEquals(5, r.fromOffset());
    assertEquals(7, r.untilOffset());
  }

  @Test
  void recordsTrimsToMaxBytesButReturnsAtLeastOneRecord() {
    reader.append(P0, 10, 100);
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0));
    PartitionRecords first = single(records(c, 250));
    assertEquals(0, first.fromOffset());
    assertEquals(2, first.untilOffset(), "two 100-byte values fit in 250 bytes, three do not");
    PartitionRecords second = single(records(c, 10));
    assertEquals(2, second.fromOffset());
    assertEquals(3, second.untilOffset(), "one record even if it alone is over max_bytes");
  }

  @Test
  void commitWithNullCommitsThePositions() {
    reader.append(P0, 4, 10);
    reader.append(P1, 6, 10);
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0, P1));
    for (int i = 0; i < 3; i++) {
      records(c, 1_000_000);
    }
    CompletableFuture<Void> committed = c.commit(null);
    h.now(committed);
    assertEquals(4, h.committed().get(P0).offset());
    assertEquals(6, h.committed().get(P1).offset());
  }

  /**
   * The first fetch round does not wait ("so that one answer carries what every partition has now,
   * as a Kafka fetch does"): a records call returns the records of every assigned partition that
   * has some, not just of the first to answer.
   */
  @Test
  void aRecordsCallReturnsWhatEveryAssignedPartitionHasNow() {
    reader.append(P0, 4, 10);
    reader.append(P1, 6, 10);
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0, P1));
    List<PartitionRecords> read = records(c, 1_000_000);
    assertEquals(
        List.of(P0, P1), read.stream().map(PartitionRecords::topicPartition).toList(), "" + read);
  }

  @Test
  void subscriptionAndAssignmentTogetherAreRefused() {
    ConsumerInstance assigned = instance("earliest");
    assigned.assign(List.of(P0));
    assertThrows(
        IllegalConsumerStateException.class, () -> assigned.subscribe(List.of("orders"), null));
    ConsumerInstance subscribed = instance("earliest");
    subscribed.subscribe(List.of("orders"), null);
    assertThrows(IllegalConsumerStateException.class, () -> subscribed.assign(List.of(P0)));
  }

  @Test
  void aRecordsCallStraddlingARebalanceReturnsNothing() {
    reader.append(P0, 5, 10);
    reader.append(P1, 5, 10);
    ConsumerInstance c = instance("earliest");
    c.subscribe(List.of("orders"), null);
    for (int i = 0; i < 200 && !c.membership().isStable(); i++) {
      c.tick();
      h.advance(100);
    }
    assertEquals(List.of(P0, P1), c.assignedPartitions());

    reader.holdFetches = true;
    CompletableFuture<ConsumerInstance.Delivery> straddling = c.records(5_000, 1_000_000);
    h.drain();
    assertTrue(reader.heldFetches() > 0, "the read is in flight");
    h.join("", "newcomer"); // a second member: the group rebalances
    for (int i = 0; i < 40; i++) {
      c.tick();
      h.advance(100);
    }
    assertEquals(2, c.membership().generationId(), "rebalanced meanwhile: " + c.statusLine());
    reader.releaseFetches();
    assertEquals(List.of(), h.now(straddling).partitions());
  }

  @Test
  void deliveryStopsBeforeARecordTheCallerCannotRenderAndThePositionStaysOnIt() {
    reader.append(P0, 5, 10);
    ConsumerInstance c = instance("earliest");
    c.assign(List.of(P0));
    ConsumerInstance.Deliverable belowThree = record -> record.offset() < 3;
    PartitionRecords first = single(h.now(c.records(1_000, 1_000_000, belowThree)).partitions());
    assertEquals(0, first.fromOffset());
    assertEquals(3, first.untilOffset(), "offsets 0-2 delivered, 3 refused: nothing past it");

    CompletableFuture<ConsumerInstance.Delivery> stuck = c.records(1_000, 1_000_000, belowThree);
    h.advance(1_000);
    h.drain();
    Throwable failure = assertThrows(java.util.concurrent.ExecutionException.class, stuck::get);
    assertTrue(failure.getCause() instanceof UndeliverableRecordException, failure.toString());

    c.seek(Map.of(P0, 4L));
    assertEquals(4, single(records(c, 1_000_000)).fromOffset(), "seeking past it moves on");
  }

  private List<PartitionRecords> records(ConsumerInstance c, long maxBytes) {
    return h.now(c.records(1_000, maxBytes)).partitions();
  }

  private static PartitionRecords single(List<PartitionRecords> records) {
    assertEquals(1, records.size(), "records: " + records);
    return records.get(0);
  }
}
