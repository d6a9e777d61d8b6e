package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.offline;
import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.RecordTooLargeException;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.quota.QuotaConfig;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.server.RecordProducer.RecordOffset;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RecordProducer}: the producer's side of a REST produce, on broker 1. {@code orders} has
 * three partitions, all led here; {@code mixed} has partition 0 here, 1 offline and 2 on broker 2
 * (forwarded to a {@link RecordingForwarder}).
 */
class RecordProducerTest {
  private static final RequestContext CLIENT = new RequestContext(null, "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private final RecordingForwarder forwarder = new RecordingForwarder();
  private RecordProducer producer;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    harness.placeTopic("orders", Map.of(), on(1), on(1), on(1));
    harness.placeTopic("mixed", Map.of(), on(1), offline(2), on(2));
    ProduceService produce =
        new ProduceService(
            broker,
            AccessControl.ALLOW_ALL,
            new ClientQuotaManager(QuotaConfig.unlimited(), harness.clock),
            forwarder,
            BrokerStats.NONE);
    AdminService admin =
        new AdminService(broker, broker.config(), AccessControl.ALLOW_ALL, broker.waiters);
    AutoTopicCreator autoTopics =
        new AutoTopicCreator(broker, broker.config(), admin, broker.waiters);
    producer = new RecordProducer(broker, produce, autoTopics, harness.clock, 30_000);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static ProduceRecord keyed(byte[] key, String value) {
    return new ProduceRecord(null, key, value.getBytes(UTF_8), null, null);
  }

  private static ProduceRecord keyless(String value) {
    return new ProduceRecord(null, null, value.getBytes(UTF_8), null, null);
  }

  private static ProduceRecord to(int partition, String value) {
    return new ProduceRecord(partition, null, value.getBytes(UTF_8), null, null);
  }

  private CompletableFuture<RecordProducer.Result> send(
      String topic, Integer pathPartition, List<ProduceRecord> records, Acks acks) {
    return producer.produce(CLIENT, topic, pathPartition, records, acks, 100);
  }

  private List<RecordOffset> offsets(String topic, List<ProduceRecord> records) {
    CompletableFuture<RecordProducer.Result> result = send(topic, null, records, Acks.LEADER);
    assertThat(result).isCompleted();
    return result.join().offsets();
  }

  private List<Record> logOf(TopicPartition tp) {
    ByteBuffer read =
        harness
            .partition(tp)
            .log()
            .read(0, ReplicaHarness.MAX_BYTES, Long.MAX_VALUE, true)
            .records();
    List<Record> records = new ArrayList<>();
    BatchIterator.strict(read).forEach(batch -> records.addAll(batch.records()));
    return records;
  }

  private List<RecordBatch> batchesOf(TopicPartition tp) {
    ByteBuffer read =
        harness
            .partition(tp)
            .log()
            .read(0, ReplicaHarness.MAX_BYTES, Long.MAX_VALUE, true)
            .records();
    List<RecordBatch> batches = new ArrayList<>();
    BatchIterator.strict(read).forEach(batches::add);
    return batches;
  }

  private static Throwable failureOf(CompletableFuture<?> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
      throw new AssertionError("not failed");
    } catch (CompletionException e) {
      return Errors.unwrap(e);
    }
  }

  @Test
  void aKeyedRecordGoesWhereKafkasPartitionerSendsItsKey() {
    Random random = new Random(42);
    List<ProduceRecord> records = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      byte[] key = new byte[random.nextInt(20)];
      random.nextBytes(key);
      records.add(keyed(key, "v" + i));
    }

    List<RecordOffset> offsets = offsets("orders", records);

    for (int i = 0; i < records.size(); i++) {
      int expected = BuiltInPartitioner.partitionForKey(records.get(i).key(), 3);
      assertThat(offsets.get(i).partition()).as("record %d", i).isEqualTo(expected);
    }
    for (int p = 0; p < 3; p++) {
      int partition = p;
      List<String> expectedValues = new ArrayList<>();
      for (int i = 0; i < records.size(); i++) {
        if (offsets.get(i).partition() == partition) {
          expectedValues.add("v" + i);
        }
      }
      assertThat(logOf(new TopicPartition("orders", p)))
          .extracting(r -> UTF_8.decode(r.value()).toString())
          .containsExactlyElementsOf(expectedValues);
    }
  }

  @Test
  void theKeylessRecordsOfARequestStickToOnePartitionAndTheNextRequestMovesOn() {
    List<Integer> chosen = new ArrayList<>();
    for (int request = 0; request < 4; request++) {
      List<RecordOffset> offsets =
          offsets("orders", List.of(keyless("a"), keyed(new byte[] {1}, "k"), keyless("b")));
      assertThat(offsets.get(2).partition()).isEqualTo(offsets.get(0).partition());
      chosen.add(offsets.get(0).partition());
    }

    for (int i = 1; i < chosen.size(); i++) {
      assertThat(chosen.get(i)).isEqualTo((chosen.get(i - 1) + 1) % 3);
    }
  }

  @Test
  void eachRecordGetsItsOwnOffsetInRequestOrderAcrossPartitions() {
    offsets("orders", List.of(to(1, "x"), to(1, "y"), to(1, "z")));

    List<RecordOffset> offsets =
        offsets(
            "orders",
            List.of(to(0, "a"), to(1, "b"), to(0, "c"), to(2, "d"), to(1, "e"), to(0, "f")));

    assertThat(offsets)
        .containsExactly(
            new RecordOffset(0, 0, -1, null),
            new RecordOffset(1, 3, -1, null),
            new RecordOffset(0, 1, -1, null),
            new RecordOffset(2, 0, -1, null),
            new RecordOffset(1, 4, -1, null),
            new RecordOffset(0, 2, -1, null));
    assertThat(logOf(new TopicPartition("orders", 0)))
        .extracting(r -> UTF_8.decode(r.value()).toString())
        .containsExactly("a", "c", "f");
  }

  @Test
  void thePathsPartitionOverridesEveryRecordsOwn() {
    CompletableFuture<RecordProducer.Result> result =
        send(
            "orders",
            2,
            List.of(to(0, "a"), keyed(new byte[] {9}, "b"), keyless("c")),
            Acks.LEADER);

    assertThat(result.join().offsets()).extracting(RecordOffset::partition).containsOnly(2);
    assertThat(logOf(new TopicPartition("orders", 2))).hasSize(3);
  }

  @Test
  void aPartitionTheTopicDoesNotHaveFailsTheRequestAndAppendsNothing() {
    CompletableFuture<RecordProducer.Result> result =
        send("orders", null, List.of(to(0, "a"), to(3, "b")), Acks.LEADER);

    assertThat(failureOf(result))
        .isInstanceOf(UnknownTopicOrPartitionException.class)
        .hasMessageContaining("the topic has 3 partition(s)");
    assertThat(harness.partition(new TopicPartition("orders", 0)).logEndOffset()).isZero();
  }

  @Test
  void recordsBeyondMaxMessageBytesAreSplitIntoConsecutiveBatchesWithContiguousOffsets() {
    harness.placeTopic("small", Map.of(LogConfig.MAX_MESSAGE_BYTES, "400"), on(1));
    TopicPartition small = new TopicPartition("small", 0);
    List<ProduceRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(to(0, String.format("%02d", i) + "x".repeat(98)));
    }

    List<RecordOffset> offsets = offsets("small", records);

    assertThat(offsets)
        .extracting(RecordOffset::offset)
        .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    List<RecordBatch> batches = batchesOf(small);
    assertThat(batches).hasSizeGreaterThan(1);
    long next = 0;
    for (RecordBatch batch : batches) {
      assertThat(batch.sizeInBytes()).isLessThanOrEqualTo(400);
      assertThat(batch.baseOffset()).isEqualTo(next);
      next = batch.lastOffset() + 1;
    }
    assertThat(next).isEqualTo(10);
    assertThat(logOf(small))
        .extracting(r -> UTF_8.decode(r.value()).toString().substring(0, 2))
        .containsExactly("00", "01", "02", "03", "04", "05", "06", "07", "08", "09");
  }

  @Test
  void aRecordTooLargeOnItsOwnIsRefusedWithNothingAppendedAnywhere() {
    harness.placeTopic("small", Map.of(LogConfig.MAX_MESSAGE_BYTES, "400"), on(1), on(1));

    CompletableFuture<RecordProducer.Result> result =
        send("small", null, List.of(to(0, "fine"), to(1, "x".repeat(500))), Acks.LEADER);

    assertThat(failureOf(result))
        .isInstanceOfSatisfying(
            RecordTooLargeException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE))
        .hasMessageContaining("max.message.bytes=400");
    assertThat(harness.partition(new TopicPartition("small", 0)).logEndOffset()).isZero();
    assertThat(harness.partition(new TopicPartition("small", 1)).logEndOffset()).isZero();
    assertThat(forwarder.calls()).isEmpty();
  }

  @Test
  void aFailedPartitionGivesItsRecordsItsErrorWhileTheOthersAreAppended() {
    List<RecordOffset> offsets = offsets("mixed", List.of(to(1, "a"), to(0, "b"), to(1, "c")));

    assertThat(offsets.get(1)).isEqualTo(new RecordOffset(0, 0, -1, null));
    for (RecordOffset failed : List.of(offsets.get(0), offsets.get(2))) {
      assertThat(failed.partition()).isEqualTo(1);
      assertThat(failed.offset()).isEqualTo(-1);
      assertThat(failed.error()).isInstanceOf(LeaderNotAvailableException.class);
    }
  }

  @Test
  void whenEveryPartitionFailsTheRequestFailsWithTheFirstError() {
    CompletableFuture<RecordProducer.Result> offlineFirst =
        send("mixed", null, List.of(to(1, "a"), to(2, "b")), Acks.LEADER);
    forwarder.calls().get(0).fail(new java.io.IOException("unreachable"));
    assertThat(failureOf(offlineFirst)).isInstanceOf(LeaderNotAvailableException.class);

    CompletableFuture<RecordProducer.Result> forwardedFirst =
        send("mixed", null, List.of(to(2, "a"), to(1, "b")), Acks.LEADER);
    forwarder.calls().get(1).fail(new java.io.IOException("unreachable"));
    assertThat(failureOf(forwardedFirst))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.NETWORK_EXCEPTION));
  }

  @Test
  void aPartitionLedElsewhereIsForwardedAndItsOffsetsComeFromTheLeader() {
    CompletableFuture<RecordProducer.Result> result =
        send("mixed", null, List.of(to(2, "a"), to(0, "b"), to(2, "c")), Acks.ALL);
    assertThat(result).isNotDone();

    forwarder.calls().get(0).appendedAt(40);

    assertThat(result.join().offsets())
        .containsExactly(
            new RecordOffset(2, 40, -1, null),
            new RecordOffset(0, 0, -1, null),
            new RecordOffset(2, 41, -1, null));
    assertThat(forwarder.calls().get(0).acks()).isEqualTo(Acks.ALL);
    assertThat(forwarder.calls().get(0).timeoutMs()).as("request.timeout.ms").isEqualTo(30_000);
  }

  @Test
  void withAcksZeroNoOffsetIsKnown() {
    CompletableFuture<RecordProducer.Result> result =
        send("orders", null, List.of(to(0, "a"), to(0, "b")), Acks.NONE);

    assertThat(result.join().offsets()).extracting(RecordOffset::offset).containsExactly(-1L, -1L);
    assertThat(harness.partition(new TopicPartition("orders", 0)).logEndOffset()).isEqualTo(2);
  }

  @Test
  void aRecordWithoutATimestampGetsTheBrokersClock() {
    ProduceRecord stamped = new ProduceRecord(0, null, "a".getBytes(UTF_8), null, 1234L);

    offsets("orders", List.of(stamped, to(0, "b")));

    assertThat(logOf(new TopicPartition("orders", 0)))
        .extracting(Record::timestamp)
        .containsExactly(1234L, harness.clock.milliseconds());
  }

  @Test
  void aLogAppendTimeTopicTellsEachRecordTheBrokersTime() {
    harness.placeTopic("stamped", Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"), on(1));

    List<RecordOffset> stamped = offsets("stamped", List.of(to(0, "a"), to(0, "b")));
    List<RecordOffset> created = offsets("orders", List.of(to(0, "c")));

    assertThat(stamped)
        .extracting(RecordOffset::logAppendTimeMs)
        .containsExactly(harness.clock.milliseconds(), harness.clock.milliseconds());
    assertThat(created.get(0).logAppendTimeMs()).as("CreateTime: none").isEqualTo(-1);
  }

  @Test
  void aRequestWithoutRecordsIsInvalid() {
    assertThatThrownBy(() -> send("orders", null, List.of(), Acks.LEADER))
        .isInstanceOf(InvalidRequestException.class);
  }
}
