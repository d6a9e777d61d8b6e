package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader epoch cache on its own (Kafka's LeaderEpochFileCache semantics) and kept in step by
 * {@link PartitionLog}: appends, truncation from either end, reopen, rebuild and crash recovery.
 */
class LeaderEpochCacheTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;
  private final ManualTime time = new ManualTime(T0);
  private PartitionLog log;

  @AfterEach
  void closeLog() {
    if (log != null) {
      log.close();
    }
  }

  private LeaderEpochCache cacheWith(int... epochAndStart) throws IOException {
    LeaderEpochCache cache = LeaderEpochCache.load(dir);
    for (int i = 0; i < epochAndStart.length; i += 2) {
      assertThat(cache.assign(epochAndStart[i], epochAndStart[i + 1])).isTrue();
    }
    return cache;
  }

  private Path logDir() {
    return dir.resolve(TP.dirName());
  }

  private PartitionLog openLog(long logStartOffset, boolean cleanShutdown) {
    log =
        PartitionLog.open(
            logDir(), TP, LogConfig.fromMap(Map.of()), 0, logStartOffset, cleanShutdown, time);
    return log;
  }

  /**
   * Appends one batch of {@code records} records as leader in {@code epoch}; returns its size in
   * bytes.
   */
  private int append(int records, int epoch) {
    ByteBuffer batch = TestBatches.batch(records, time.milliseconds(), 20);
    int size = batch.remaining();
    log.appendAsLeader(batch, epoch);
    return size;
  }

  // -------------------------------------------------------------------------------------------
  // endOffsetFor

  @Test
  void theLatestEpochEndsAtTheLogEndOffset() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10);
    assertThat(cache.endOffsetFor(3, 42)).isEqualTo(new EpochEndOffset(3, 42));
    assertThat(cache.latestEpoch()).isEqualTo(3);
  }

  @Test
  void anOlderEpochEndsWhereTheNextKnownEpochStarts() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10, 5, 20);
    assertThat(cache.endOffsetFor(1, 30)).isEqualTo(new EpochEndOffset(1, 10));
    assertThat(cache.endOffsetFor(3, 30)).isEqualTo(new EpochEndOffset(3, 20));
  }

  @Test
  void anEpochTheCacheLacksIsAnsweredWithTheLargestKnownEpochBelowIt() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10, 5, 20);
    // Epoch 2 and 4 wrote nothing here: they end where the next known epoch starts, named by the
    // epoch before.
    assertThat(cache.endOffsetFor(2, 30)).isEqualTo(new EpochEndOffset(1, 10));
    assertThat(cache.endOffsetFor(4, 30)).isEqualTo(new EpochEndOffset(3, 20));
  }

  @Test
  void anEpochBelowTheFirstEndsAtTheFirstStartUnderTheRequestedEpoch() throws IOException {
    LeaderEpochCache cache = cacheWith(3, 10, 5, 20);
    assertThat(cache.endOffsetFor(1, 30)).isEqualTo(new EpochEndOffset(1, 10));
  }

  @Test
  void anEpochAboveTheLatestAnUndefinedEpochAndAnEmptyCacheAreUndefined() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10);
    assertThat(cache.endOffsetFor(4, 30)).isEqualTo(EpochEndOffset.UNDEFINED);
    assertThat(cache.endOffsetFor(-1, 30)).isEqualTo(EpochEndOffset.UNDEFINED);
    LeaderEpochCache empty = LeaderEpochCache.load(Files.createDirectories(dir.resolve("empty")));
    assertThat(empty.endOffsetFor(0, 30).isUndefined()).isTrue();
    assertThat(empty.latestEpoch()).isEqualTo(-1);
  }

  // -------------------------------------------------------------------------------------------
  // assign

  @Test
  void assigningANewEpochReplacesTheEntriesStartingAtOrAfterItsStart() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 2, 10, 3, 20);
    assertThat(cache.assign(4, 10)).isTrue();
    assertThat(cache.entries()).containsExactly(Map.entry(1, 0L), Map.entry(4, 10L));
  }

  @Test
  void aKnownOrStaleEpochIsIgnored() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10);
    assertThat(cache.assign(3, 15)).isFalse();
    assertThat(cache.assign(2, 30)).isFalse();
    assertThat(cache.assign(-1, 30)).isFalse();
    assertThat(cache.entries()).containsExactly(Map.entry(1, 0L), Map.entry(3, 10L));
  }

  @Test
  void everyChangeIsWrittenInKafkasCheckpointFormatAndReadBack() throws IOException {
    cacheWith(0, 0, 3, 120);
    assertThat(Files.readAllLines(dir.resolve(LeaderEpochCache.FILE_NAME), StandardCharsets.UTF_8))
        .containsExactly("0", "2", "0 0", "3 120");
    assertThat(LeaderEpochCache.load(dir).entries())
        .containsExactly(Map.entry(0, 0L), Map.entry(3, 120L));
    assertThat(Files.exists(dir.resolve(LeaderEpochCache.FILE_NAME + ".tmp"))).isFalse();
  }

  // -------------------------------------------------------------------------------------------
  // truncation

  @Test
  void truncatingFromTheEndRemovesEpochsStartingAtOrAfterTheNewEnd() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10, 5, 20);
    cache.truncateFromEnd(21);
    assertThat(cache.entries()).containsOnlyKeys(1, 3, 5);
    cache.truncateFromEnd(20);
    assertThat(cache.entries()).containsExactly(Map.entry(1, 0L), Map.entry(3, 10L));
    assertThat(LeaderEpochCache.load(dir).entries()).isEqualTo(cache.entries());
  }

  @Test
  void truncatingFromTheStartMovesTheCoveringEpochToTheNewStart() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10, 5, 20);
    cache.truncateFromStart(15);
    assertThat(cache.entries()).containsExactly(Map.entry(3, 15L), Map.entry(5, 20L));
    assertThat(LeaderEpochCache.load(dir).entries()).isEqualTo(cache.entries());
  }

  @Test
  void truncatingFromTheStartExactlyAtAnEpochStartDropsTheEpochsBeforeIt() throws IOException {
    LeaderEpochCache cache = cacheWith(1, 0, 3, 10, 5, 20);
    cache.truncateFromStart(20);
    assertThat(cache.entries()).containsExactly(Map.entry(5, 20L));
  }

  @Test
  void truncatingFromTheStartAtOrBelowTheFirstEntryChangesNothing() throws IOException {
    LeaderEpochCache cache = cacheWith(3, 10, 5, 20);
    cache.truncateFromStart(10);
    cache.truncateFromStart(4);
    assertThat(cache.entries()).containsExactly(Map.entry(3, 10L), Map.entry(5, 20L));
  }

  // ------------------------------------------------------------------------------------------- in
  // a PartitionLog

  @Test
  void leaderAppendsRecordEachEpochsFirstOffset() {
    openLog(0, true);
    append(3, 1);
    append(3, 1);
    append(2, 3);
    log.assignEpochStartOffset(5); // a new leader records its epoch before its first append
    assertThat(log.epochEntries())
        .containsExactly(Map.entry(1, 0L), Map.entry(3, 6L), Map.entry(5, 8L));
    assertThat(log.latestEpoch()).isEqualTo(5);
    assertThat(log.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 6));
    assertThat(log.endOffsetForEpoch(5)).isEqualTo(new EpochEndOffset(5, 8));
    append(1, 5);
    assertThat(log.epochEntries()).containsEntry(5, 8L).hasSize(3);
  }

  @Test
  void followerAppendsRecordTheLeadersEpochsFromTheBatches() {
    Path leaderDir = dir.resolve("leader");
    PartitionLog leader =
        PartitionLog.open(leaderDir, TP, LogConfig.fromMap(Map.of()), 0, true, time);
    try {
      leader.appendAsLeader(TestBatches.batch(3, T0, 10), 2);
      leader.appendAsLeader(TestBatches.batch(2, T0, 10), 4);
      leader.appendAsLeader(TestBatches.batch(2, T0, 10), 7);
      openLog(0, true);
      log.appendAsFollower(leader.read(0, 1 << 20, Long.MAX_VALUE, true).records());
      assertThat(log.logEndOffset()).isEqualTo(7);
      assertThat(log.epochEntries())
          .isEqualTo(leader.epochEntries())
          .containsExactly(Map.entry(2, 0L), Map.entry(4, 3L), Map.entry(7, 5L));
    } finally {
      leader.close();
    }
  }

  @Test
  void theCacheSurvivesAReopenOfTheLog() {
    openLog(0, true);
    append(3, 1);
    append(3, 4);
    append(3, 6);
    Map<Integer, Long> before = log.epochEntries();
    log.close();
    openLog(0, true);
    assertThat(log.epochEntries())
        .isEqualTo(before)
        .containsExactly(Map.entry(1, 0L), Map.entry(4, 3L), Map.entry(6, 6L));
  }

  @Test
  void aLogWithoutACheckpointFileRebuildsTheCacheFromItsBatches() throws IOException {
    openLog(0, true);
    append(3, 1);
    append(3, 1);
    append(2, 3);
    append(4, 8);
    log.close();
    Files.delete(logDir().resolve(LeaderEpochCache.FILE_NAME));
    openLog(0, true);
    assertThat(log.epochEntries())
        .containsExactly(Map.entry(1, 0L), Map.entry(3, 6L), Map.entry(8, 8L));
    assertThat(Files.readAllLines(logDir().resolve(LeaderEpochCache.FILE_NAME)))
        .containsExactly("0", "3", "1 0", "3 6", "8 8");
  }

  @Test
  void anUnreadableCheckpointFileIsRebuiltFromTheBatchesInsteadOfFailingTheOpen()
      throws IOException {
    openLog(0, true);
    append(3, 1);
    append(2, 4);
    log.close();
    Files.writeString(logDir().resolve(LeaderEpochCache.FILE_NAME), "0\n2\n1 zero\n");
    openLog(0, true);
    assertThat(log.epochEntries()).containsExactly(Map.entry(1, 0L), Map.entry(4, 3L));
    assertThat(Files.readAllLines(logDir().resolve(LeaderEpochCache.FILE_NAME)))
        .containsExactly("0", "2", "1 0", "4 3");
  }

  @Test
  void anEntryPastTheRecoveredLogEndIsRemovedOnOpen() throws IOException {
    openLog(0, true);
    int kept = append(3, 1) + append(3, 1);
    append(3, 2); // the OS loses this batch in the crash, but the checkpoint already names epoch 2
    assertThat(log.epochEntries()).containsOnlyKeys(1, 2);
    log.closeHandlers();
    log = null;
    Path segment = logDir().resolve(String.format("%020d.log", 0));
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.truncate(kept);
    }
    openLog(0, false);
    assertThat(log.logEndOffset()).isEqualTo(6);
    assertThat(log.epochEntries()).containsExactly(Map.entry(1, 0L));
    assertThat(LeaderEpochCache.load(logDir()).entries()).containsExactly(Map.entry(1, 0L));
  }

  @Test
  void anEntryBelowTheCheckpointedLogStartIsMovedUpOnOpen() {
    openLog(0, true);
    append(3, 1);
    append(3, 2);
    log.close();
    openLog(3, true);
    assertThat(log.logStartOffset()).isEqualTo(3);
    assertThat(log.epochEntries()).containsExactly(Map.entry(2, 3L));
  }

  @Test
  void truncatingTheLogTruncatesTheCacheAtBatchBoundaries() {
    openLog(0, true);
    append(3, 1); // 0..2
    append(3, 2); // 3..5
    append(3, 4); // 6..8
    log.truncateTo(7); // inside the epoch-4 batch: the whole batch goes, and epoch 4 with it
    assertThat(log.logEndOffset()).isEqualTo(6);
    assertThat(log.epochEntries()).containsExactly(Map.entry(1, 0L), Map.entry(2, 3L));
    log.truncateTo(3);
    assertThat(log.epochEntries()).containsExactly(Map.entry(1, 0L));
    assertThat(log.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 3));
  }

  @Test
  void truncatingToTheLogEndForgetsAnEpochThatWroteNothing() {
    openLog(0, true);
    append(3, 1);
    log.assignEpochStartOffset(2);
    log.truncateTo(3);
    assertThat(log.epochEntries()).containsExactly(Map.entry(1, 0L));
  }

  @Test
  void aFullTruncationEmptiesTheCache() {
    openLog(0, true);
    append(3, 1);
    append(3, 2);
    log.truncateFullyAndStartAt(40);
    assertThat(log.epochEntries()).isEmpty();
    assertThat(log.latestEpoch()).isEqualTo(-1);
    assertThat(log.endOffsetForEpoch(1)).isEqualTo(EpochEndOffset.UNDEFINED);
  }

  @Test
  void raisingTheLogStartOffsetMovesTheFirstEpochWithIt() {
    openLog(0, true);
    append(3, 1);
    append(3, 2);
    append(3, 3);
    assertThat(log.maybeIncrementLogStartOffset(4)).isTrue();
    assertThat(log.epochEntries()).containsExactly(Map.entry(2, 4L), Map.entry(3, 6L));
  }

  @Test
  void retentionDeletesOnlySegmentsBelowTheRetentionBound() {
    log =
        PartitionLog.open(
            logDir(),
            TP,
            LogConfig.fromMap(
                Map.of(LogConfig.SEGMENT_BYTES, "1024", LogConfig.RETENTION_MS, "1000")),
            0,
            true,
            time);
    for (int i = 0; i < 30; i++) {
      append(3, 1 + i / 6);
    }
    assertThat(log.numberOfSegments()).isGreaterThan(3);
    List<Long> bases = log.segmentBaseOffsets();
    time.sleep(10_000); // every segment has expired
    long bound = bases.get(2);
    log.setRetentionBoundOffset(bound);
    assertThat(log.deleteOldSegments()).isEqualTo(2);
    assertThat(log.logStartOffset()).isEqualTo(bound);
    assertThat(log.segmentBaseOffsets().get(0)).isEqualTo(bound);
    assertThat(log.epochEntries().values().iterator().next())
        .as("first epoch start")
        .isEqualTo(bound);
    log.setRetentionBoundOffset(bound);
    assertThat(log.deleteOldSegments()).isZero();
  }
}
