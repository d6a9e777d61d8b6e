package dev.tributary.log;

import static dev.tributary.log.IdempotentBatches.batch;
import static dev.tributary.log.IdempotentBatches.copy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The idempotent producer rules of a leader append, one by one, with Kafka's error codes (see
 * {@link ProducerStateManager}'s class doc).
 */
class ProducerStateRulesTest {
  static final TopicPartition TP = new TopicPartition("orders", 0);
  static final long T0 = 1_700_000_000_000L;
  static final long PID = 4_000;

  @TempDir Path dir;
  final ManualTime time = new ManualTime(T0);
  final List<PartitionLog> logs = new ArrayList<>();

  @AfterEach
  void close() {
    logs.forEach(PartitionLog::close);
  }

  PartitionLog open(String name, Map<String, String> configs) {
    PartitionLog log =
        PartitionLog.open(dir.resolve(name), TP, LogConfig.fromMap(configs), 0, true, time);
    logs.add(log);
    return log;
  }

  PartitionLog open() {
    return open(TP.dirName(), Map.of());
  }

  static ApiException refusal(PartitionLog log, ByteBuffer request) {
    long end = log.logEndOffset();
    Map<Long, ActiveProducer> before = log.activeProducers();
    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(() -> log.appendAsLeader(request, 0));
    assertThat(thrown).isInstanceOf(ApiException.class);
    assertThat(log.logEndOffset()).as("a refused append writes nothing").isEqualTo(end);
    assertThat(log.activeProducers()).as("nor changes any producer").isEqualTo(before);
    return (ApiException) thrown;
  }

  @Test
  void aNewProducersFirstBatchIsAppendedAndRemembered() {
    PartitionLog log = open();
    log.appendAsLeader(TestBatches.batch(2, T0, 10), 0); // no producer: offsets 0 and 1

    LogAppendInfo info = log.appendAsLeader(batch(PID, 0, 0, 3, T0 + 5), 0);

    assertThat(info.firstOffset()).isEqualTo(2);
    assertThat(info.lastOffset()).isEqualTo(4);
    ActiveProducer producer = log.activeProducers().get(PID);
    assertThat(producer.producerEpoch()).isEqualTo((short) 0);
    assertThat(producer.batches()).containsExactly(new BatchMetadata(0, 2, 2, 4, T0 + 5));
    assertThat(producer.lastSequence()).isEqualTo(2);
    assertThat(producer.lastTimestampMs()).isEqualTo(T0 + 5);
  }

  @Test
  void batchesWithoutAProducerIdLeaveNoState() {
    PartitionLog log = open();
    log.appendAsLeader(TestBatches.batch(3, T0, 10), 0);
    assertThat(log.activeProducers()).isEmpty();
  }

  @Test
  void aRetryOfOneOfTheLastFiveBatchesAppendsNothingAndAnswersItsOriginalOffsets() {
    PartitionLog log = open();
    List<ByteBuffer> sent = new ArrayList<>();
    List<LogAppendInfo> answers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ByteBuffer request = batch(PID, 0, 2 * i, 2, T0 + i);
      sent.add(copy(request));
      answers.add(log.appendAsLeader(request, 0));
      log.appendAsLeader(TestBatches.batch(1, T0, 10), 0); // another client between them
    }
    long end = log.logEndOffset();

    for (int i = 1; i < 6; i++) {
      LogAppendInfo retry = log.appendAsLeader(copy(sent.get(i)), 0);
      assertThat(retry.firstOffset()).isEqualTo(answers.get(i).firstOffset());
      assertThat(retry.lastOffset()).isEqualTo(answers.get(i).lastOffset());
      assertThat(retry.recordCount()).as("nothing appended").isZero();
    }
    assertThat(log.logEndOffset()).isEqualTo(end);

    // The first batch is no longer cached (five are): its retry is out of order, as in Kafka.
    ApiException old = refusal(log, copy(sent.get(0)));
    assertThat(old).isInstanceOf(OutOfOrderSequenceException.class);
    assertThat(old.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }

  @Test
  void aRetryInLogAppendTimeTopicsAnswersTheOriginalAppendTime() {
    PartitionLog log =
        open(TP.dirName(), Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"));
    ByteBuffer request = batch(PID, 0, 0, 2, T0 - 1_000);
    ByteBuffer retry = copy(request);
    LogAppendInfo first = log.appendAsLeader(request, 0);
    time.sleep(500);

    LogAppendInfo again = log.appendAsLeader(retry, 0);

    assertThat(first.logAppendTimeMs()).isEqualTo(T0);
    assertThat(again.logAppendTimeMs()).isEqualTo(T0);
    assertThat(again.lastOffset()).isEqualTo(first.lastOffset());
  }

  @Test
  void aSequenceGapIsOutOfOrderAndAppendsNothing() {
    PartitionLog log = open();
    log.appendAsLeader(batch(PID, 0, 0, 3, T0), 0);

    ApiException gap = refusal(log, batch(PID, 0, 4, 1, T0));

    assertThat(gap.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(gap.getMessage())
        .contains("4 (incoming seq. number), 2 (current end sequence number)");
    assertThat(log.appendAsLeader(batch(PID, 0, 3, 1, T0), 0).firstOffset()).isEqualTo(3);
  }

  @Test
  void anOverlappingBatchThatIsNoExactRetryIsOutOfOrder() {
    PartitionLog log = open();
    log.appendAsLeader(batch(PID, 0, 0, 3, T0), 0);
    assertThat(refusal(log, batch(PID, 0, 1, 3, T0)).error())
        .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
  }

  @Test
  void anOlderEpochIsFencedWithInvalidProducerEpoch() {
    PartitionLog log = open();
    log.appendAsLeader(batch(PID, 3, 0, 1, T0), 0);

    ApiException fenced = refusal(log, batch(PID, 2, 1, 1, T0));

    assertThat(fenced).isInstanceOf(InvalidProducerEpochException.class);
    assertThat(fenced.error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
  }

  @Test
  void aNewEpochMustStartAtSequenceZeroAndReplacesTheOldEpochsBatches() {
    PartitionLog log = open();
    ByteBuffer epoch0 = batch(PID, 0, 0, 3, T0);
    ByteBuffer retryOfEpoch0 = copy(epoch0);
    log.appendAsLeader(epoch0, 0);

    assertThat(refusal(log, batch(PID, 1, 3, 1, T0)).error())
        .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    LogAppendInfo bumped = log.appendAsLeader(batch(PID, 1, 0, 2, T0 + 1), 0);

    assertThat(bumped.firstOffset()).isEqualTo(3);
    assertThat(log.activeProducers().get(PID).batches())
        .containsExactly(new BatchMetadata(0, 1, 3, 4, T0 + 1));
    // The old epoch's batch is no duplicate any more: its producer was fenced.
    assertThat(refusal(log, retryOfEpoch0).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
  }

  @Test
  void anUnknownProducerIsAcceptedAtAnySequenceAsKip360Says() {
    PartitionLog log = open();

    LogAppendInfo info = log.appendAsLeader(batch(PID, 5, 42, 2, T0), 0);

    assertThat(info.firstOffset()).isZero();
    assertThat(log.activeProducers().get(PID).lastSequence()).isEqualTo(43);
    assertThat(refusal(log, batch(PID, 5, 45, 1, T0)).error())
        .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.appendAsLeader(batch(PID, 5, 44, 1, T0), 0).firstOffset()).isEqualTo(2);
  }

  @Test
  void sequenceNumbersWrapFromIntegerMaxValueToZero() {
    PartitionLog log = open();
    int base = Integer.MAX_VALUE - 1;
    log.appendAsLeader(batch(PID, 0, base, 3, T0), 0); // MAX-1, MAX, 0

    assertThat(log.activeProducers().get(PID).lastSequence()).isZero();
    assertThat(log.appendAsLeader(batch(PID, 0, 1, 1, T0), 0).firstOffset()).isEqualTo(3);
    assertThat(ProducerAppendInfo.inSequence(Integer.MAX_VALUE, 0)).isTrue();
    assertThat(ProducerAppendInfo.inSequence(Integer.MAX_VALUE, Integer.MIN_VALUE)).isFalse();
  }

  @Test
  void aProducersBatchesInOneRequestAreCheckedAgainstEachOther() {
    PartitionLog log = open();
    LogAppendInfo both =
        log.appendAsLeader(TestBatches.concat(batch(PID, 0, 0, 2, T0), batch(PID, 0, 2, 3, T0)), 0);
    assertThat(both.lastOffset()).isEqualTo(4);
    assertThat(log.activeProducers().get(PID).batches()).hasSize(2);

    ApiException gap =
        refusal(log, TestBatches.concat(batch(PID, 0, 5, 1, T0), batch(PID, 0, 7, 1, T0)));
    assertThat(gap.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assertThat(log.activeProducers().get(PID).lastSequence())
        .as("the first one was not kept")
        .isEqualTo(4);
  }

  @Test
  void oneRefusedBatchRefusesTheWholeRequestForThePartition() {
    PartitionLog log = open();
    log.appendAsLeader(batch(PID, 1, 0, 1, T0), 0);

    ApiException refused =
        refusal(
            log,
            TestBatches.concat(
                TestBatches.batch(2, T0, 10),
                batch(PID + 1, 0, 0, 1, T0),
                batch(PID, 0, 1, 1, T0)));

    assertThat(refused.error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    assertThat(log.activeProducers()).doesNotContainKey(PID + 1);
  }

  @Test
  void aBatchWithAProducerIdButNoSequenceIsAnInvalidRecord() {
    PartitionLog log = open();
    ApiException invalid = refusal(log, batch(PID, 0, -1, 1, T0));
    assertThat(invalid.error()).isEqualTo(Errors.INVALID_RECORD);
  }

  @Test
  void aFollowerTakesItsLeadersProducerStateAndAnswersRetriesOnceItLeads() {
    PartitionLog leader = open("leader", Map.of());
    PartitionLog follower = open("follower", Map.of());
    ByteBuffer request = batch(PID, 0, 0, 3, T0);
    ByteBuffer retry = copy(request);
    leader.appendAsLeader(TestBatches.batch(2, T0, 10), 4);
    LogAppendInfo original = leader.appendAsLeader(request, 4);

    follower.appendAsFollower(leader.read(0, 1 << 20, Long.MAX_VALUE, true).records());

    assertThat(follower.activeProducers()).isEqualTo(leader.activeProducers());
    LogAppendInfo answered = follower.appendAsLeader(retry, 5);
    assertThat(answered.firstOffset()).isEqualTo(original.firstOffset());
    assertThat(answered.lastOffset()).isEqualTo(original.lastOffset());
    assertThat(follower.logEndOffset()).isEqualTo(leader.logEndOffset());
  }

  @Test
  void kafkaClientsIdempotentBatchesAreRecognised() {
    PartitionLog log = open();
    MemoryRecords first =
        MemoryRecords.withIdempotentRecords(
            Compression.NONE,
            PID,
            (short) 2,
            0,
            new SimpleRecord(T0, "a".getBytes()),
            new SimpleRecord(T0, "b".getBytes()));
    MemoryRecords second =
        MemoryRecords.withIdempotentRecords(
            Compression.NONE, PID, (short) 2, 2, new SimpleRecord(T0, "c".getBytes()));
    LogAppendInfo appended = log.appendAsLeader(copy(first.buffer()), 0);
    log.appendAsLeader(copy(second.buffer()), 0);

    LogAppendInfo retried = log.appendAsLeader(copy(first.buffer()), 0);

    assertThat(retried.firstOffset()).isEqualTo(appended.firstOffset()).isZero();
    assertThat(retried.lastOffset()).isEqualTo(1);
    assertThat(log.activeProducers().get(PID).lastSequence()).isEqualTo(2);
    assertThat(log.logEndOffset()).isEqualTo(3);
  }
}
