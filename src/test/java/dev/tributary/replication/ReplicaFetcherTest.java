package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogConfig;
import dev.tributary.log.PartitionLog;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's {@link ReplicaFetcher} against a real leader {@link Partition} through {@link
 * InMemoryLeader}: each {@link ReplicaFetcher#doWork} is one round (a truncation round or one
 * fetch). Logs are built by hand so that each test states exactly which epochs wrote which offsets
 * on which replica.
 */
class ReplicaFetcherTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final int LEADER = 1;
  private static final int FOLLOWER = 2;
  private static final long FOLLOWER_BROKER_EPOCH = 102;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private final List<PartitionLog> logs = new ArrayList<>();
  private final AtomicInteger unreachable = new AtomicInteger();
  private final List<Truncation> truncations = new java.util.concurrent.CopyOnWriteArrayList<>();
  private int nextValue;

  @AfterEach
  void closeLogs() {
    logs.forEach(PartitionLog::close);
  }

  // -------------------------------------------------------------------------------------------
  // fixtures

  private PartitionLog openLog(String name, Map<String, String> config) {
    PartitionLog log =
        PartitionLog.open(
            dir.resolve(name).resolve(TP.dirName()), TP, LogConfig.fromMap(config), 0, true, clock);
    logs.add(log);
    return log;
  }

  private PartitionLog openLog(String name) {
    return openLog(name, Map.of());
  }

  private static Partition partition(PartitionLog log, int brokerId) {
    return new Partition(TP, "topic-id", log, brokerId, request -> new CompletableFuture<>(), 0);
  }

  /**
   * One batch of {@code records} records with distinct values (so that diverging logs differ in
   * content).
   */
  private ByteBuffer batch(int records) {
    List<SimpleRecord> list = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      list.add(
          new SimpleRecord(
              clock.milliseconds(),
              null,
              ("v" + nextValue++).getBytes(StandardCharsets.UTF_8),
              List.of()));
    }
    return RecordBatchBuilder.build(list, CompressionType.NONE, 0L, -1);
  }

  /**
   * Appends {@code batches} batches of {@code records} records straight to the log, as leader in
   * {@code epoch}.
   */
  private void write(PartitionLog log, int epoch, int batches, int records) {
    for (int i = 0; i < batches; i++) {
      log.appendAsLeader(batch(records), epoch);
    }
  }

  /**
   * Copies {@code from}'s batches below {@code endOffset} into {@code to}, as a follower would
   * have.
   */
  private static void copy(PartitionLog from, PartitionLog to, long endOffset) {
    while (to.logEndOffset() < endOffset) {
      to.appendAsFollower(from.read(to.logEndOffset(), 1 << 20, endOffset, true).records());
    }
  }

  private ReplicaFetcher fetcher(InMemoryLeader endpoint) {
    return new ReplicaFetcher(
        FOLLOWER,
        LEADER,
        () -> FOLLOWER_BROKER_EPOCH,
        endpoint,
        new ReplicationConfig(10_000, 0, 1 << 20, 1 << 20, 100),
        clock,
        new FollowerEvents() {
          @Override
          public void leaderUnreachable(int leaderId) {
            unreachable.incrementAndGet();
          }

          @Override
          public void truncated(Truncation truncation) {
            truncations.add(truncation);
          }
        });
  }

  /**
   * Runs rounds until the follower has everything the leader has and is fetching (at most {@code
   * maxRounds}).
   */
  private static int catchUp(
      ReplicaFetcher fetcher, Partition follower, Partition leader, int maxRounds) {
    for (int round = 1; round <= maxRounds; round++) {
      fetcher.doWork();
      if (!fetcher.isTruncating(TP) && follower.logEndOffset() == leader.logEndOffset()) {
        fetcher.doWork(); // one more fetch so that the follower learns the high watermark it made
        // possible
        return round;
      }
    }
    return -1;
  }

  /** Every batch of {@code log}, as its exact bytes. */
  private static List<ByteBuffer> batchBytes(PartitionLog log) {
    List<ByteBuffer> all = new ArrayList<>();
    for (RecordBatch batch : batchesOf(log)) {
      ByteBuffer slice = batch.slice();
      all.add(ByteBuffer.allocate(slice.remaining()).put(slice).flip());
    }
    return all;
  }

  /** Every batch of {@code log} as base offset / epoch / CRC. */
  private static List<String> identities(PartitionLog log) {
    return batchesOf(log).stream()
        .map(b -> b.baseOffset() + "/e" + b.partitionLeaderEpoch() + "/" + b.checksum())
        .toList();
  }

  private static List<RecordBatch> batchesOf(PartitionLog log) {
    List<RecordBatch> all = new ArrayList<>();
    long offset = log.logStartOffset();
    while (offset < log.logEndOffset()) {
      for (RecordBatch batch :
          BatchIterator.strict(log.read(offset, 1 << 20, Long.MAX_VALUE, true).records())) {
        all.add(batch);
        offset = batch.nextOffset();
      }
    }
    return all;
  }

  // -------------------------------------------------------------------------------------------
  // copying

  @Test
  void theFollowerCopiesTheLeadersBatchesByteForByte() {
    PartitionLog leaderLog = openLog("leader");
    write(leaderLog, 1, 2, 3); // an earlier leader's epoch
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(3, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    for (int records : new int[] {1, 7, 2}) {
      leader.appendRecordsAsLeader(batch(records), Acks.LEADER);
    }
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 3, 0, List.of(1, 2), List.of(1, 2));
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 3);

    assertThat(catchUp(fetcher, follower, leader, 10)).isPositive();

    assertThat(identities(follower.log()))
        .isEqualTo(identities(leaderLog))
        .containsExactly(
            "0/e1/" + batchesOf(leaderLog).get(0).checksum(),
            "3/e1/" + batchesOf(leaderLog).get(1).checksum(),
            "6/e3/" + batchesOf(leaderLog).get(2).checksum(),
            "7/e3/" + batchesOf(leaderLog).get(3).checksum(),
            "14/e3/" + batchesOf(leaderLog).get(4).checksum());
    assertThat(batchBytes(follower.log())).isEqualTo(batchBytes(leaderLog));
    assertThat(follower.log().epochEntries())
        .isEqualTo(leaderLog.epochEntries())
        .containsExactly(Map.entry(1, 0L), Map.entry(3, 6L));
    assertThat(leader.highWatermark()).isEqualTo(16);
    assertThat(follower.highWatermark()).isEqualTo(16);
  }

  @Test
  void aFollowerWithNothingNewLearnsTheHighWatermarkWithoutAppending() {
    PartitionLog leaderLog = openLog("leader");
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2, 3), List.of(1, 2, 3), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(4), Acks.LEADER);
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2, 3), List.of(1, 2, 3));
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 2);
    catchUp(fetcher, follower, leader, 5);
    assertThat(follower.logEndOffset()).isEqualTo(4);
    assertThat(follower.highWatermark())
        .as("replica 3 has not fetched: nothing is committed")
        .isZero();
    FollowerFetches.fetch(leader, 3, 103, true, 2, 4, 1 << 20, clock.milliseconds());
    fetcher.doWork();
    assertThat(follower.highWatermark()).isEqualTo(4);
    assertThat(follower.logEndOffset()).isEqualTo(4);
  }

  // -------------------------------------------------------------------------------------------
  // truncation

  @Test
  void anUnreplicatedTailFromAFormerLeadersEpochIsTruncatedAtTheDivergencePointAndRefetched() {
    // KIP-101: the follower led epoch 1 and wrote 10..14, which nobody copied; the leader wrote
    // 10..19 in epoch 2.
    PartitionLog followerLog = openLog("follower");
    write(followerLog, 1, 2, 5);
    PartitionLog leaderLog = openLog("leader");
    copy(followerLog, leaderLog, 10);
    write(followerLog, 1, 1, 5); // the unreplicated tail
    List<ByteBuffer> agreedPrefix = batchBytes(followerLog).subList(0, 2);
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(6), Acks.LEADER);
    leader.appendRecordsAsLeader(batch(4), Acks.LEADER);
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeFollower(LEADER, 2, 1, List.of(1, 2), List.of(1));
    InMemoryLeader endpoint = new InMemoryLeader(leader, clock);
    ReplicaFetcher fetcher = fetcher(endpoint);
    fetcher.addPartition(follower, 2);

    fetcher.doWork();
    assertThat(endpoint.askedEpochs).containsExactly(1);
    assertThat(followerLog.logEndOffset()).isEqualTo(10);
    assertThat(fetcher.isTruncating(TP)).isFalse();
    assertThat(batchBytes(followerLog)).isEqualTo(agreedPrefix);
    assertThat(truncations)
        .as("reported for the timeline: 10..14 dropped to follow leader 1 in epoch 2")
        .containsExactly(new Truncation(TP, FOLLOWER, LEADER, 2, 10, 15, 0));

    assertThat(catchUp(fetcher, follower, leader, 10)).isPositive();
    assertThat(batchBytes(followerLog)).isEqualTo(batchBytes(leaderLog));
    assertThat(followerLog.epochEntries())
        .isEqualTo(leaderLog.epochEntries())
        .containsExactly(Map.entry(1, 0L), Map.entry(2, 10L));
  }

  @Test
  void whenTheLeaderAnswersWithAnEpochTheFollowerLacksItTruncatesInSeveralRounds() {
    // KIP-279: the follower has epochs 1 (0..49) and 3 (50..79); the leader has 1 (0..39), 2
    // (40..59), 4 (60..).
    PartitionLog followerLog = openLog("follower");
    write(followerLog, 1, 5, 10);
    PartitionLog leaderLog = openLog("leader");
    copy(followerLog, leaderLog, 40);
    write(leaderLog, 2, 2, 10);
    write(followerLog, 3, 3, 10);
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(4, 0, List.of(1, 2), List.of(1), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(10), Acks.LEADER);
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeFollower(LEADER, 4, 0, List.of(1, 2), List.of(1));
    InMemoryLeader endpoint = new InMemoryLeader(leader, clock);
    ReplicaFetcher fetcher = fetcher(endpoint);
    fetcher.addPartition(follower, 4);

    fetcher
        .doWork(); // leader: epoch 3 is unknown here, the largest below it is 2, which ends at 60
    assertThat(endpoint.askedEpochs).containsExactly(3);
    assertThat(followerLog.logEndOffset())
        .as("cut to where its own epoch before 2 ends")
        .isEqualTo(50);
    assertThat(fetcher.isTruncating(TP)).isTrue();

    fetcher.doWork(); // leader: epoch 1 ends at 40
    assertThat(endpoint.askedEpochs).containsExactly(3, 1);
    assertThat(followerLog.logEndOffset()).isEqualTo(40);
    assertThat(fetcher.isTruncating(TP)).isFalse();
    assertThat(truncations)
        .as("each round's cut is reported")
        .containsExactly(
            new Truncation(TP, FOLLOWER, LEADER, 4, 50, 80, 0),
            new Truncation(TP, FOLLOWER, LEADER, 4, 40, 50, 0));

    assertThat(catchUp(fetcher, follower, leader, 10)).isPositive();
    assertThat(batchBytes(followerLog)).isEqualTo(batchBytes(leaderLog));
    assertThat(followerLog.epochEntries())
        .isEqualTo(leaderLog.epochEntries())
        .containsExactly(Map.entry(1, 0L), Map.entry(2, 40L), Map.entry(4, 60L));
  }

  /**
   * Regression (failed on 7646179, fixed in ef2110a): the follower led epoch 3 but wrote nothing in
   * it (entry 3 → 50 = its log end). The leader lacks epoch 3 and answers (2, 60); the follower
   * lacks epoch 2, so it cuts to where its epoch 1 ends, 50 = its log end, and asks again. {@link
   * Partition#truncateAsFollower} used to skip {@code log.truncateTo} when the offset was not below
   * the log end, so the empty epoch-3 entry was never removed and every round asked the same
   * question: the partition stayed truncating forever and never fetched.
   */
  @Test
  void aFollowerWhoseLatestEpochWroteNothingStillFinishesTruncating() {
    PartitionLog followerLog = openLog("follower");
    write(followerLog, 1, 5, 10);
    PartitionLog leaderLog = openLog("leader");
    copy(followerLog, leaderLog, 50);
    write(leaderLog, 2, 1, 10); // 50..59, which the follower never fetched
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeLeader(
        3, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds()); // elected, wrote nothing
    follower.becomeFollower(LEADER, 4, 1, List.of(1, 2), List.of(1, 2));
    assertThat(followerLog.epochEntries()).containsExactly(Map.entry(1, 0L), Map.entry(3, 50L));
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(4, 1, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(5), Acks.LEADER);
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 4);

    assertThat(catchUp(fetcher, follower, leader, 10))
        .as("rounds to catch up (-1: never)")
        .isPositive();
    assertThat(batchBytes(followerLog)).isEqualTo(batchBytes(leaderLog));
    assertThat(followerLog.epochEntries()).isEqualTo(leaderLog.epochEntries());
  }

  /**
   * Regression (failed on 7646179, fixed in ef2110a): the follower led epoch 6 and wrote nothing
   * (entry 6 → 100 = its log end); the new leader has epoch-5 records 100..119 it lacks. Truncation
   * stops at 100, its log end, and {@link Partition#truncateAsFollower} used not to call {@code
   * log.truncateTo} there, so the empty epoch-6 entry stayed (Kafka's truncateTo drops it: "this
   * broker was a leader and inserted the first start offset entry, but then failed to append any
   * entries"). The epoch-5 batches it then copied were not recorded (5 is not newer than 6): its
   * cache said epoch 5 ends at 100, the leader's 120.
   */
  @Test
  void anEpochTheFollowerLedWithoutWritingIsForgottenWhenItTruncatesToItsLogEnd() {
    PartitionLog leaderLog = openLog("leader");
    write(leaderLog, 5, 12, 10);
    PartitionLog followerLog = openLog("follower");
    copy(leaderLog, followerLog, 100);
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeLeader(6, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    follower.becomeFollower(LEADER, 7, 1, List.of(1, 2), List.of(1, 2));
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(7, 1, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(5), Acks.LEADER);
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 7);

    assertThat(catchUp(fetcher, follower, leader, 10)).isPositive();
    assertThat(batchBytes(followerLog)).isEqualTo(batchBytes(leaderLog));
    assertThat(followerLog.endOffsetForEpoch(5))
        .isEqualTo(leaderLog.endOffsetForEpoch(5))
        .isEqualTo(new EpochEndOffset(5, 120));
    assertThat(followerLog.epochEntries())
        .isEqualTo(leaderLog.epochEntries())
        .containsExactly(Map.entry(5, 0L), Map.entry(7, 120L));
  }

  @Test
  void aFollowerBehindTheLeadersLogStartRestartsItsLogThere() {
    Map<String, String> small = Map.of(LogConfig.SEGMENT_BYTES, "1024");
    PartitionLog leaderLog = openLog("leader", small);
    write(leaderLog, 1, 1, 10);
    PartitionLog followerLog = openLog("follower", small);
    copy(leaderLog, followerLog, 10); // then the follower went away for a long time
    write(leaderLog, 1, 9, 10);
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(10), Acks.LEADER);
    assertThat(leader.highWatermark()).isEqualTo(110);
    leaderLog.maybeIncrementLogStartOffset(60); // DeleteRecords, or retention
    leader.onLogStartOffsetChange();
    assertThat(leaderLog.deleteOldSegments()).as("segments below the new log start").isPositive();
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2), List.of(1));
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 2);

    fetcher.doWork(); // truncation: epoch 1 agrees up to the follower's end, 10
    assertThat(followerLog.logEndOffset()).isEqualTo(10);
    fetcher.doWork(); // fetch from 10: out of range, below the leader's log start
    assertThat(followerLog.logStartOffset()).isEqualTo(60);
    assertThat(followerLog.logEndOffset()).isEqualTo(60);
    assertThat(follower.highWatermark()).isEqualTo(60);

    assertThat(catchUp(fetcher, follower, leader, 20)).isPositive();
    assertThat(followerLog.logStartOffset()).isEqualTo(60);
    assertThat(batchBytes(followerLog)).isEqualTo(batchBytes(leaderLog));
    assertThat(followerLog.epochEntries())
        .isEqualTo(leaderLog.epochEntries())
        .containsExactly(Map.entry(1, 60L), Map.entry(2, 100L));
    assertThat(follower.highWatermark()).isEqualTo(110);
  }

  // -------------------------------------------------------------------------------------------
  // stale answers

  /** A follower, the leader endpoint it fetches from, and its fetcher. */
  private record FetchingFollower(
      Partition follower, InMemoryLeader endpoint, ReplicaFetcher fetcher) {}

  /**
   * A leader in epoch 2 with 5 records and an empty follower in the same epoch, whose fetcher has
   * made its first round (an empty log: nothing to reconcile), so that its next round fetches them.
   */
  private FetchingFollower anEmptyFollowerOfALeaderWithFiveRecords() {
    Partition leader = partition(openLog("leader"), LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(5), Acks.LEADER);
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2), List.of(1, 2));
    InMemoryLeader endpoint = new InMemoryLeader(leader, clock);
    ReplicaFetcher fetcher = fetcher(endpoint);
    fetcher.addPartition(follower, 2);
    fetcher.doWork();
    return new FetchingFollower(follower, endpoint, fetcher);
  }

  @Test
  void aFetchResponseForAnOldEpochIsIgnoredAndChangesNothing() {
    FetchingFollower f = anEmptyFollowerOfALeaderWithFiveRecords();
    Partition follower = f.follower();
    ReplicaFetcher fetcher = f.fetcher();
    assertThat(fetcher.isTruncating(TP)).isFalse();

    f.endpoint().beforeReply =
        () -> { // new metadata arrives while the response is on its way
          follower.becomeFollower(LEADER, 3, 1, List.of(1, 2), List.of(1, 2));
          fetcher.addPartition(follower, 3);
        };
    fetcher.doWork();
    assertThat(follower.logEndOffset()).as("epoch-2 records not appended in epoch 3").isZero();
    assertThat(follower.highWatermark()).isZero();
    assertThat(follower.log().epochEntries()).isEmpty();
    assertThat(fetcher.isTruncating(TP))
        .as("re-added in the new epoch, it reconciles first")
        .isTrue();
  }

  /**
   * The dashboard's pause of a broker's fetching: an answer already on its way when the pause began
   * is dropped, so the paused follower appends nothing (its records would otherwise arrive after
   * the pause and make an acks=1 demonstration keep what it means to lose); the next fetch gets
   * them.
   */
  @Test
  void anAnswerThatArrivesAfterAPauseBeganIsDropped() {
    FetchingFollower f = anEmptyFollowerOfALeaderWithFiveRecords();

    f.endpoint().beforeReply = f.fetcher()::abandonInFlight;
    f.fetcher().doWork();
    assertThat(f.follower().logEndOffset())
        .as("nothing appended from the abandoned answer")
        .isZero();

    f.endpoint().beforeReply = () -> {};
    f.fetcher().doWork();
    assertThat(f.follower().logEndOffset()).as("fetched again afterwards").isEqualTo(5);
  }

  /**
   * {@code ./tributary pause-fetching ID 1} ends a longer pause: a fetcher thread already asleep
   * for the old pause is woken to sleep out the new one (before, it slept out the old one, and the
   * follower fell out of the ISR of a leader it should have been fetching from).
   */
  @Test
  void aShortPauseEndsALongerOneForAFetcherThreadAlreadyAsleep() throws Exception {
    Partition leader = partition(openLog("leader"), LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(5), Acks.LEADER);
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2), List.of(1, 2));
    ReplicaFetcherManager manager =
        new ReplicaFetcherManager(
            FOLLOWER,
            () -> FOLLOWER_BROKER_EPOCH,
            new InMemoryLeader(leader, clock),
            new ReplicationConfig(10_000, 0, 1 << 20, 1 << 20, 100),
            clock,
            FollowerEvents.NONE);
    try {
      manager.pauseFor(600_000);
      manager.addPartition(LEADER, follower, 2);
      String name = "tributary-replica-fetcher-" + LEADER;
      org.awaitility.Awaitility.await("the fetcher thread asleep for the long pause")
          .atMost(java.time.Duration.ofSeconds(10))
          .until(
              () ->
                  Thread.getAllStackTraces().keySet().stream()
                      .anyMatch(
                          t ->
                              t.getName().equals(name)
                                  && t.getState() == Thread.State.TIMED_WAITING));
      assertThat(follower.logEndOffset()).isZero();

      manager.pauseFor(1);
      clock.advance(2);
      org.awaitility.Awaitility.await("the follower fetching again")
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> follower.logEndOffset() == 5);
    } finally {
      manager.close();
    }
  }

  @Test
  void anEpochAnswerForAnOldEpochIsIgnoredAndChangesNothing() {
    PartitionLog followerLog = openLog("follower");
    write(followerLog, 1, 2, 5);
    PartitionLog leaderLog = openLog("leader");
    copy(followerLog, leaderLog, 10);
    write(followerLog, 1, 1, 5); // a divergent tail the answer would cut
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1), clock.milliseconds());
    Partition follower = partition(followerLog, FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2), List.of(1));
    InMemoryLeader endpoint = new InMemoryLeader(leader, clock);
    ReplicaFetcher fetcher = fetcher(endpoint);
    fetcher.addPartition(follower, 2);
    // This broker is elected leader while the answer is on its way: its tail is now the log.
    endpoint.beforeReply =
        () -> follower.becomeLeader(3, 1, List.of(1, 2), List.of(2), clock.milliseconds());

    fetcher.doWork();
    assertThat(endpoint.askedEpochs).containsExactly(1);
    assertThat(followerLog.logEndOffset()).isEqualTo(15);
    assertThat(fetcher.isTruncating(TP)).isTrue();
  }

  @Test
  void aFollowerAheadOfTheLeadersMetadataWaitsAndThenFetches() {
    PartitionLog leaderLog = openLog("leader");
    Partition leader = partition(leaderLog, LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(3), Acks.LEADER);
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(
        LEADER, 3, 1, List.of(1, 2), List.of(1, 2)); // the leader has not seen epoch 3 yet
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 3);
    fetcher.doWork();
    fetcher.doWork(); // UNKNOWN_LEADER_EPOCH: the partition backs off
    fetcher.doWork();
    assertThat(follower.logEndOffset()).isZero();
    leader.becomeLeader(3, 1, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    clock.advance(100);
    assertThat(catchUp(fetcher, follower, leader, 5)).isPositive();
    assertThat(follower.logEndOffset()).isEqualTo(3);
  }

  /**
   * A backoff runs on the monotonic clock: after the wall clock steps back ten minutes it still
   * ends on time (on the wall clock the follower would wait out the ten minutes and leave the ISR).
   */
  @Test
  void aBackoffEndsOnTimeAfterTheWallClockStepsBack() {
    Partition leader = partition(openLog("leader"), LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    leader.appendRecordsAsLeader(batch(3), Acks.LEADER);
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 3, 1, List.of(1, 2), List.of(1, 2));
    ReplicaFetcher fetcher = fetcher(new InMemoryLeader(leader, clock));
    fetcher.addPartition(follower, 3);
    fetcher.doWork();
    fetcher.doWork(); // UNKNOWN_LEADER_EPOCH: the partition backs off for 50 ms
    leader.becomeLeader(3, 1, List.of(1, 2), List.of(1, 2), clock.milliseconds());

    clock.jumpWallClock(-600_000);
    fetcher.doWork();
    assertThat(follower.logEndOffset()).as("still backing off").isZero();
    clock.advance(50);
    assertThat(catchUp(fetcher, follower, leader, 5)).isPositive();
    assertThat(follower.logEndOffset()).isEqualTo(3);
  }

  /** The dashboard's pause of fetching lasts its duration, whichever way the wall clock jumps. */
  @Test
  void aPauseOfFetchingLastsItsDurationWhateverTheWallClockDoes() {
    Partition leader = partition(openLog("leader"), LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    ReplicaFetcherManager manager =
        new ReplicaFetcherManager(
            FOLLOWER,
            () -> FOLLOWER_BROKER_EPOCH,
            new InMemoryLeader(leader, clock),
            new ReplicationConfig(10_000, 0, 1 << 20, 1 << 20, 100),
            clock,
            FollowerEvents.NONE);
    try {
      manager.pauseFor(1_000);
      clock.jumpWallClock(600_000);
      assertThat(manager.pausedUntilMs())
          .as("a forward jump does not end the pause")
          .isEqualTo(clock.milliseconds() + 1_000);
      clock.jumpWallClock(-1_200_000);
      assertThat(manager.pausedUntilMs())
          .as("a backward jump does not stretch it")
          .isEqualTo(clock.milliseconds() + 1_000);
      clock.advance(999);
      assertThat(manager.pausedUntilMs()).isEqualTo(clock.milliseconds() + 1);
      clock.advance(1);
      assertThat(manager.pausedUntilMs()).as("over").isZero();
    } finally {
      manager.close();
    }
  }

  @Test
  void anUnreachableLeaderIsReportedAndBackedOffFrom() {
    Partition leader = partition(openLog("leader"), LEADER);
    leader.becomeLeader(2, 0, List.of(1, 2), List.of(1, 2), clock.milliseconds());
    Partition follower = partition(openLog("follower"), FOLLOWER);
    follower.becomeFollower(LEADER, 2, 0, List.of(1, 2), List.of(1, 2));
    InMemoryLeader endpoint = new InMemoryLeader(leader, clock);
    endpoint.down = true;
    ReplicaFetcher fetcher = fetcher(endpoint);
    fetcher.addPartition(follower, 2);
    fetcher.doWork(); // nothing to reconcile in an empty log
    assertThat(fetcher.doWork()).isEqualTo(100);
    assertThat(unreachable.get()).isEqualTo(1);
  }
}
