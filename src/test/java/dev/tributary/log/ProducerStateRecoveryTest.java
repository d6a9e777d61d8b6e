package dev.tributary.log;

import static dev.tributary.log.IdempotentBatches.batch;
import static dev.tributary.log.IdempotentBatches.copy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The producer state across the log's life: snapshots at roll and at clean shutdown, recovery from
 * them after a crash or when one is corrupt, rebuilding after truncation, retention and expiry.
 */
class ProducerStateRecoveryTest {
  static final TopicPartition TP = new TopicPartition("orders", 0);
  static final long T0 = 1_700_000_000_000L;
  static final Map<String, String> SMALL_SEGMENTS = Map.of(LogConfig.SEGMENT_BYTES, "1024");

  @TempDir Path root;
  final ManualTime time = new ManualTime(T0);
  PartitionLog log;

  /** The state after each append, by the log end offset it was taken at. */
  final TreeMap<Long, Map<Long, ActiveProducer>> stateAt = new TreeMap<>();

  /** What each producer sent, in order: a retry resends one of these. */
  final List<ByteBuffer> sent = new ArrayList<>();

  @AfterEach
  void close() {
    if (log != null) {
      log.close();
    }
  }

  Path dir() {
    return root.resolve(TP.dirName());
  }

  PartitionLog open(Map<String, String> configs, boolean clean) {
    log = PartitionLog.open(dir(), TP, LogConfig.fromMap(configs), 0, clean, time);
    return log;
  }

  /**
   * {@code n} batches of 3 records from producers 1 and 2 in turn (each in sequence), with a batch
   * without a producer after each.
   */
  void appendFromTwoProducers(int n) {
    int[] next = new int[3];
    for (int i = 0; i < n; i++) {
      int producer = 1 + i % 2;
      ByteBuffer request = batch(producer, 0, next[producer], 3, time.milliseconds());
      next[producer] += 3;
      sent.add(copy(request));
      log.appendAsLeader(request, 0);
      log.appendAsLeader(TestBatches.batch(1, time.milliseconds(), 30), 0);
      stateAt.put(log.logEndOffset(), log.activeProducers());
    }
  }

  List<Long> snapshotFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir())) {
      return files
          .mapToLong(ProducerSnapshotFile::offsetOf)
          .filter(o -> o >= 0)
          .sorted()
          .boxed()
          .toList();
    }
  }

  static Map<Long, ActiveProducer> read(Path snapshot) throws IOException {
    Map<Long, ActiveProducer> producers = new TreeMap<>();
    ProducerSnapshotFile.read(snapshot)
        .forEach(e -> producers.put(e.producerId(), e.toActiveProducer()));
    return producers;
  }

  @Test
  void eachRollSnapshotsTheStateAsOfTheNewSegmentsBaseOffset() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(20);
    List<Long> bases = log.segmentBaseOffsets();
    assertThat(bases).hasSizeGreaterThan(3);

    for (long base : bases.subList(1, bases.size())) {
      assertThat(snapshotFiles()).contains(base);
      assertThat(read(ProducerSnapshotFile.path(dir(), base)))
          .as("snapshot at %d", base)
          .isEqualTo(stateAt.get(base));
    }
  }

  @Test
  void aCleanShutdownSnapshotsAtTheLogEndAndTheNextStartReadsOnlyThat() throws IOException {
    open(Map.of(), true);
    appendFromTwoProducers(4);
    long end = log.logEndOffset();
    log.close();
    assertThat(snapshotFiles()).contains(end);
    // A snapshot at the log end leaves no batch to replay: a producer only it names must appear.
    List<ProducerStateEntry> planted =
        new ArrayList<>(ProducerSnapshotFile.read(ProducerSnapshotFile.path(dir(), end)));
    ProducerStateEntry extra = new ProducerStateEntry(99, (short) 0);
    extra.addBatch((short) 0, new BatchMetadata(0, 0, 0, 0, T0));
    planted.add(extra);
    ProducerSnapshotFile.write(ProducerSnapshotFile.path(dir(), end), planted, true);

    open(Map.of(), true);

    assertThat(log.activeProducers()).containsKeys(1L, 2L, 99L);
  }

  @Test
  void afterACrashTheStateIsRebuiltFromTheLatestSnapshotAndTheBatchesAfterIt() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(15);
    Map<Long, ActiveProducer> before = log.activeProducers();
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
    log.closeHandlers(); // a crash: no snapshot at the log end
    assertThat(snapshotFiles()).last().isEqualTo(activeBase);

    open(SMALL_SEGMENTS, false);

    assertThat(log.activeProducers()).isEqualTo(before);
    LogAppendInfo retry = log.appendAsLeader(copy(sent.get(sent.size() - 1)), 0);
    assertThat(retry.recordCount()).as("the last batch is still known as a retry").isZero();
  }

  @Test
  void aCorruptSnapshotIsIgnoredAndTheStateRebuiltFromTheLog() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(12);
    Map<Long, ActiveProducer> before = log.activeProducers();
    long end = log.logEndOffset();
    log.close();
    for (long offset : snapshotFiles()) { // every one of them: the log itself must do
      Path file = ProducerSnapshotFile.path(dir(), offset);
      byte[] bytes = Files.readAllBytes(file);
      bytes[bytes.length / 2] ^= 0x5a;
      Files.write(file, bytes);
    }

    open(SMALL_SEGMENTS, true);

    assertThat(log.activeProducers()).isEqualTo(before);
    assertThat(snapshotFiles()).containsExactly(end);
    assertThat(read(ProducerSnapshotFile.path(dir(), end))).isEqualTo(before);
  }

  @Test
  void aSnapshotRoundTripsAndAnyDamageIsReportedAsCorrupt() throws IOException {
    Files.createDirectories(dir());
    ProducerStateEntry first = new ProducerStateEntry(7, (short) 3);
    for (int i = 0; i < 6; i++) {
      first.addBatch((short) 3, new BatchMetadata(2 * i, 2 * i + 1, 10L * i, 10L * i + 1, T0 + i));
    }
    ProducerStateEntry second = new ProducerStateEntry(Long.MAX_VALUE, Short.MAX_VALUE);
    second.addBatch(Short.MAX_VALUE, new BatchMetadata(Integer.MAX_VALUE, 0, 100, 101, -1));
    Path file = ProducerSnapshotFile.path(dir(), 123);
    ProducerSnapshotFile.write(file, List.of(first, second), true);

    assertThat(read(file))
        .isEqualTo(Map.of(7L, first.toActiveProducer(), Long.MAX_VALUE, second.toActiveProducer()));
    assertThat(read(file).get(7L).batches()).hasSize(5);
    assertThat(ProducerSnapshotFile.offsetOf(file)).isEqualTo(123);

    byte[] good = Files.readAllBytes(file);
    for (byte[] bad :
        List.of(
            java.util.Arrays.copyOf(good, good.length - 3),
            java.util.Arrays.copyOf(good, 4),
            withByte(good, 1, (byte) 9), // version
            withByte(good, 12, (byte) (good[12] ^ 1)), // an entry, so the CRC fails
            java.util.Arrays.copyOf(good, good.length + 1))) {
      Files.write(file, bad);
      assertThatThrownBy(() -> ProducerSnapshotFile.read(file))
          .isInstanceOf(ProducerSnapshotFile.CorruptSnapshotException.class);
    }
  }

  private static byte[] withByte(byte[] bytes, int index, byte value) {
    byte[] copy = bytes.clone();
    copy[index] = value;
    return copy;
  }

  @Test
  void truncationRebuildsTheStateAsOfTheNewLogEnd() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(20);
    long target = stateAt.floorKey(log.segmentBaseOffsets().get(2) - 1); // below two snapshots

    log.truncateTo(target);

    assertThat(log.logEndOffset()).isEqualTo(target);
    assertThat(log.activeProducers()).isEqualTo(stateAt.get(target));
    assertThat(snapshotFiles()).allMatch(offset -> offset <= target).contains(target);
    // The first batch truncated away is new again; the last one kept is still a retry.
    int kept = stateAt.headMap(target, true).size();
    LogAppendInfo retried = log.appendAsLeader(copy(sent.get(kept - 1)), 0);
    assertThat(retried.recordCount()).isZero();
    LogAppendInfo resent = log.appendAsLeader(copy(sent.get(kept)), 0);
    assertThat(resent.firstOffset()).isEqualTo(target);
    assertThat(resent.recordCount()).isEqualTo(3);
  }

  @Test
  void aFullTruncationForgetsEveryProducerAndSnapshot() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(8);

    log.truncateFullyAndStartAt(500);

    assertThat(log.activeProducers()).isEmpty();
    assertThat(snapshotFiles()).isEmpty();
    assertThat(log.appendAsLeader(copy(sent.get(7)), 0).firstOffset()).isEqualTo(500);
  }

  @Test
  void retentionDeletesTheSnapshotsBelowTheNewLogStartButKeepsTheProducers() throws IOException {
    open(SMALL_SEGMENTS, true);
    appendFromTwoProducers(20);
    Map<Long, ActiveProducer> before = log.activeProducers();
    long newStart = log.segmentBaseOffsets().get(3);

    log.maybeIncrementLogStartOffset(newStart);
    log.deleteOldSegments();

    assertThat(log.logStartOffset()).isEqualTo(newStart);
    assertThat(snapshotFiles()).isNotEmpty().allMatch(offset -> offset >= newStart);
    assertThat(log.activeProducers()).isEqualTo(before);
  }

  @Test
  void aProducerExpiresProducerIdExpirationMsAfterItsLastBatch() {
    open(Map.of(LogConfig.PRODUCER_ID_EXPIRATION_MS, "60000"), true);
    ByteBuffer request = batch(5, 0, 0, 2, T0);
    ByteBuffer retry = copy(request);
    log.appendAsLeader(request, 0);
    log.appendAsLeader(batch(6, 0, 0, 2, T0 + 30_000), 0);

    time.sleep(59_999);
    assertThat(log.removeExpiredProducers()).isZero();
    time.sleep(1);
    assertThat(log.removeExpiredProducers()).isEqualTo(1);

    assertThat(log.activeProducers()).containsOnlyKeys(6L);
    // Its state is gone, so a late retry is taken as a new producer's batch (Kafka does the same).
    assertThat(log.appendAsLeader(retry, 0).firstOffset()).isEqualTo(4);
  }

  @Test
  void expiredProducersInASnapshotAreDroppedAtLoad() {
    Map<String, String> configs = Map.of(LogConfig.PRODUCER_ID_EXPIRATION_MS, "60000");
    open(configs, true);
    log.appendAsLeader(batch(5, 0, 0, 2, T0), 0);
    log.appendAsLeader(batch(6, 0, 0, 2, T0 + 30_000), 0);
    log.close();
    time.sleep(60_000);

    open(configs, true);

    assertThat(log.activeProducers()).containsOnlyKeys(6L);
  }
}
