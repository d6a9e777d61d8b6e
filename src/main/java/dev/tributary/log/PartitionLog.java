package dev.tributary.log;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.CorruptRecordException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One partition's log (Kafka's UnifiedLog): the producer- and replica-facing API over the segments
 * of a directory {@code <topic>-<partition>} ({@link LocalLog} describes the files). This class
 * validates appends and assigns their offsets, keeps the leader epoch cache, the idempotent
 * producers' state ({@link ProducerStateManager}) and the log start offset, decides retention
 * ({@link LogRetention}) and serves the cleaner, and holds the lock. The segments themselves
 * (append bytes, roll, flush, truncate, delete, and the log end offset and recovery point as file
 * state) are {@link LocalLog}'s; the lock-free reads are {@link LogReader}'s.
 *
 * <p>Invariants (each enforced in the one method that writes its field; checked by the randomized
 * test after every step):
 *
 * <ul>
 *   <li>first segment's base offset <= logStartOffset <= logEndOffset; logStartOffset never
 *       decreases except through {@link #truncateFullyAndStartAt} (and {@link #truncateTo} below
 *       it, which calls it). Writer: {@link #updateLogStartOffset}.
 *   <li>logEndOffset never decreases except under truncation; logStartOffset <= recoveryPoint <=
 *       logEndOffset. Writers: {@link LocalLog}'s.
 * </ul>
 *
 * <p>Concurrency notes:
 *
 * <ol>
 *   <li>Appends, rolls, truncation, retention, flush, close hold {@code lock}, this log's only
 *       lock, taken only in {@link LogLock#call}; {@link LocalLog} never takes it but runs every
 *       change under it (its offset writers check that). Appends to one partition are serialized,
 *       different partitions proceed in parallel. Lock order: partition lock, then a segment's
 *       index monitor. Nothing calls out while holding the lock.
 *   <li>Reads ({@link #read}, {@link #readFileSlice}, {@link #estimatedBytesBetween}) take no lock
 *       ({@link LogReader}): they snapshot logStartOffset and logEndOffset (volatile) and read at
 *       most a segment's committed size (volatile, published before logEndOffset).
 *   <li>Truncation and segment swaps run inside a sequence lock ({@link TruncationSequence}); a
 *       read that overlapped one, or hit a segment deleted under it, is retried. A {@link
 *       LogFileSlice} is read by its caller later, so it reports itself stale instead.
 *   <li>{@link #offsetForTimestamp} takes the lock (ListOffsets is rare and this keeps it simple).
 *   <li>The {@link LogCleaner} reads and rewrites inactive segments without the lock, from a {@link
 *       LogCleaning#snapshot}; it takes the lock only for {@link LogCleaning#replaceSegments},
 *       which swaps the segment map inside the readers' sequence lock (so overlapping reads retry,
 *       as for a truncation) and gives up if a truncation or retention changed the segments
 *       meanwhile.
 * </ol>
 *
 * <p>Compaction ({@code cleanup.policy=compact}, docs/adr/0012-log-compaction.md) removes records
 * from inactive segments but never changes an offset: readers find gaps between batches, and a read
 * from an offset in a gap returns the next batch.
 */
public final class PartitionLog implements AutoCloseable {
  private final TopicPartition topicPartition;
  private final Time time;

  /** Guards every change to this log and its {@link LocalLog} (see the concurrency notes). */
  private final LogLock lock;

  /** The segments on disk, the log end offset and the recovery point. */
  private final LocalLog local;

  /**
   * Invariant: first segment base <= logStartOffset <= logEndOffset; moves forward only, except
   * under truncation (see class doc). Changed only by {@link #updateLogStartOffset}.
   */
  private volatile long logStartOffset;

  /** Leader epoch → start offset; truncated with the log. Guarded by {@code lock}. */
  private final LeaderEpochCache epochs;

  /**
   * Idempotent producers: the state of the batches below the log end offset whenever the lock is
   * free (updated after each append, rebuilt after each truncation). Guarded by {@code lock}.
   */
  private final ProducerStateManager producerState;

  private final LogCleaning cleaning;

  /** The steps of an append under the lock: producer checks, offsets, epochs, the write. */
  private final LogAppender appender;

  /**
   * Retention deletes only segments wholly below this offset: the partition's high watermark, so
   * that nothing a follower may still need, or a consumer has not been allowed to see, goes (Kafka
   * bounds deletion by the HW too). {@code Long.MAX_VALUE} for a log no partition owns (tools,
   * tests).
   */
  private volatile long retentionBoundOffset = Long.MAX_VALUE;

  PartitionLog(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      Time time,
      LogLoader.Loaded loaded,
      LeaderEpochCache epochs,
      ProducerStateManager producerState,
      LogDirFailureChannel failures,
      SlowDisk disk) {
    this.topicPartition = tp;
    this.time = time;
    this.lock = new LogLock(tp, dir.toAbsolutePath().getParent(), failures);
    this.logStartOffset = loaded.logStartOffset();
    this.epochs = epochs;
    this.producerState = producerState;
    this.local =
        new LocalLog(
            dir,
            tp,
            config,
            loaded,
            time.milliseconds(),
            lock,
            this::logStartOffset,
            producerState::takeSnapshot,
            disk);
    this.cleaning = new LogCleaning(lock, local, this::logStartOffset, () -> retentionBoundOffset);
    this.appender = new LogAppender(tp, time, local, epochs, producerState);
  }

  /**
   * Opens (creating if needed) the log in {@code dir}, with the log start offset derived from the
   * segments.
   */
  public static PartitionLog open(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      long recoveryPoint,
      boolean hadCleanShutdown,
      Time time) {
    return open(dir, tp, config, recoveryPoint, 0, hadCleanShutdown, time);
  }

  /**
   * Opens the log in {@code dir}, recovering every segment from {@code recoveryPoint} on unless
   * {@code hadCleanShutdown} (see {@link LogLoader}). {@code logStartOffset} comes from the
   * checkpoint; it is raised to the first segment's base offset.
   */
  public static PartitionLog open(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      long recoveryPoint,
      long logStartOffset,
      boolean hadCleanShutdown,
      Time time) {
    LogDirFailureChannel own = new LogDirFailureChannel();
    SlowDisk healthy = new SlowDisk();
    return LogLoader.open(
        dir, tp, config, recoveryPoint, logStartOffset, hadCleanShutdown, time, own, healthy);
  }

  /** Whole batches from {@code offset} (up to 1 MiB): how recovery and rebuilds walk the log. */
  LogReadInfo readBatches(long offset) {
    return local.read(offset, 1 << 20, Long.MAX_VALUE, true);
  }

  /** True once this log's directory is offline: writes are refused, reads still served. */
  public boolean isOffline() {
    return lock.isOffline();
  }

  /** See {@link LogLock#storageError}. */
  KafkaStorageException storageError(String what, Throwable cause) {
    return lock.storageError(what, cause);
  }

  /**
   * Appends a produce request: validates every batch first, and checks idempotent producers'
   * batches against their state (a rejected request changes nothing), then assigns offsets from the
   * log end offset and stamps {@code leaderEpoch} in place (both outside the CRC); for
   * LogAppendTime topics it sets the max timestamp and timestamp type and recomputes the CRC. A
   * retry of one of a producer's last five batches appends nothing and answers that batch's offsets
   * (recordCount 0); see {@link ProducerStateManager} for the rules.
   *
   * @throws CorruptRecordException bad framing, magic, CRC or record count
   * @throws RecordTooLargeException a batch larger than max.message.bytes
   * @throws InvalidRecordException a record without a key for a compacted topic, or a producer's
   *     batch without a sequence number
   * @throws OutOfOrderSequenceException a producer's batch whose sequence does not follow
   * @throws InvalidProducerEpochException a batch of a producer's older epoch
   */
  public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch) {
    LogConfig config = local.config();
    ByteBuffer records = batches.duplicate();
    AppendValidator.Summary summary =
        AppendValidator.validateForLeader(
            records, config.maxMessageBytes(), config.compact(), topicPartition);
    return lock.callWritable(
        "append to", () -> appender.appendAsLeader(records, summary, leaderEpoch, logStartOffset));
  }

  /**
   * Appends batches fetched from the leader, keeping their offsets, epochs and timestamps. The
   * first batch may start past the log end offset, and batches may leave gaps between them: a
   * compacted leader has removed records there (Kafka accepts the same).
   *
   * @throws InvalidOffsetException if the first batch starts below the log end offset or the
   *     batches' offsets do not increase
   * @throws CorruptRecordException bad framing, magic or CRC
   */
  public LogAppendInfo appendAsFollower(ByteBuffer batches) {
    ByteBuffer records = batches.duplicate();
    AppendValidator.Summary summary = AppendValidator.validateForFollower(records);
    return lock.callWritable(
        "append to", () -> appender.appendAsFollower(records, summary, logStartOffset));
  }

  /**
   * The only writer of logStartOffset: it never passes the log end offset and moves forward except
   * under truncation (a full truncation resets it). Raises the recovery point with it: data below
   * the start needs no recovery.
   */
  private void updateLogStartOffset(long offset) {
    long logEndOffset = local.logEndOffset();
    if (offset > logEndOffset || (offset < logStartOffset && !local.truncationInProgress())) {
      throw new IllegalStateException(
          "log start offset cannot move from %d to %d (end %d)"
              .formatted(logStartOffset, offset, logEndOffset));
    }
    logStartOffset = offset;
    if (local.recoveryPoint() < offset) {
      local.updateRecoveryPoint(offset);
    }
  }

  /**
   * Whole batches from the batch holding {@code startOffset}: at most {@code maxBytes} (at least
   * one whole batch if {@code minOneBatch}), only batches with last offset < {@code maxOffset} (the
   * high watermark), from one segment. Empty when {@code startOffset} is the log end offset or >=
   * {@code maxOffset}.
   *
   * @throws OffsetOutOfRangeException if startOffset is outside [logStartOffset, logEndOffset]
   */
  public LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return local.read(startOffset, maxBytes, maxOffset, minOneBatch);
  }

  /**
   * The batches {@link #read} returns for the same arguments, left in the segment file: a slice to
   * send with {@link java.nio.channels.FileChannel#transferTo} (zero-copy), found by reading batch
   * headers only. Lock-free as {@link #read}. See {@link LogFileSlice} for when a slice goes stale.
   *
   * @throws OffsetOutOfRangeException if startOffset is outside [logStartOffset, logEndOffset]
   */
  public LogFileSlice readFileSlice(
      long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return local.readFileSlice(startOffset, maxBytes, maxOffset, minOneBatch);
  }

  /**
   * An estimate of the bytes of the batches from the one holding {@code fromOffset} up to {@code
   * toOffset} (exclusive), for a delayed fetch's {@code min.bytes} check; 0 when {@code fromOffset
   * >= toOffset}. Cheap: no lock and no file read, only segment sizes and offset index lookups
   * (Kafka's LogOffsetMetadata.positionDiff). It is an estimate: the sparse index rounds each end
   * outwards to an indexed batch, so it may over-count by up to about {@code index.interval.bytes}
   * plus part of a batch at each end; it never under-counts a stable log, so {@code min.bytes=1} is
   * met as soon as a batch is there. Details: {@link LogReader#estimatedBytesBetween}.
   */
  public long estimatedBytesBetween(long fromOffset, long toOffset) {
    return local.estimatedBytesBetween(fromOffset, toOffset);
  }

  /**
   * The first offset whose record timestamp is >= {@code targetTimestampMs} (ListOffsets), with
   * that record's timestamp; empty if no record is that recent. The special targets are handled
   * here too: {@code -2} (earliest) answers the log start offset, {@code -1} (latest) the log end
   * offset, both with timestamp -1. The caller bounds the answer by the high watermark if it must.
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(long targetTimestampMs) {
    return lock.call("offset lookup in", () -> local.offsetForTimestamp(targetTimestampMs));
  }

  /**
   * ListOffsets' MAX_TIMESTAMP: the record with the largest timestamp below {@code boundOffset}
   * (the high watermark), with its batch's leader epoch; empty when there is none. Scans the
   * segments that could hold it (see {@link MaxTimestampLookup}); rare, so it takes the lock.
   */
  public Optional<TimestampAndOffset> maxTimestampBelow(long boundOffset) {
    return lock.call(
        "offset lookup in", () -> local.maxTimestampBelow(logStartOffset, boundOffset));
  }

  /** The leader epoch that wrote {@code offset}, by the epoch cache; -1 if unknown. */
  public int epochForOffset(long offset) {
    return lock.call("epoch lookup in", () -> epochs.epochForOffset(offset));
  }

  /**
   * Removes everything at and after {@code offset} (replication truncation). Truncation is at batch
   * boundaries: if {@code offset} falls inside a batch, that whole batch goes and the log end
   * offset ends below {@code offset}. Below the log start offset this is {@link
   * #truncateFullyAndStartAt}. The producer state is rebuilt as of the new log end offset.
   */
  public void truncateTo(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("cannot truncate to negative offset " + offset);
    }
    lock.runWritable(
        "truncation of",
        () -> {
          if (offset >= local.logEndOffset()) {
            epochs.truncateFromEnd(offset); // epochs that wrote nothing before the end go too
            return;
          }
          if (offset < logStartOffset) {
            truncateFullyLocked(offset);
            return;
          }
          local.truncateTo(offset);
          if (local.logEndOffset() < logStartOffset) {
            truncateFullyLocked(offset); // the batch holding logStartOffset straddled offset
          } else {
            epochs.truncateFromEnd(local.logEndOffset());
            producerState.truncateAndReload(
                logStartOffset,
                local.logEndOffset(),
                time.milliseconds(),
                local.config().producerIdExpirationMs(),
                this::readBatches);
          }
        });
  }

  /**
   * Deletes every segment and starts an empty log at {@code offset}: start, end and recovery point
   * all become it.
   */
  public void truncateFullyAndStartAt(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("cannot start at negative offset " + offset);
    }
    lock.runWritable("full truncation of", () -> truncateFullyLocked(offset));
  }

  private void truncateFullyLocked(long offset) throws IOException {
    // The start offset moves in the same step for readers; it raises the recovery point too.
    local.truncateFullyAndStartAt(offset, () -> updateLogStartOffset(offset));
    epochs.clear();
    producerState.truncateFully();
  }

  /**
   * Raises the log start offset (DeleteRecords, or a leader's start offset seen by a follower).
   * Segments wholly below it are deleted by the next {@link #deleteOldSegments}.
   *
   * @return true if it moved
   * @throws OffsetOutOfRangeException if {@code newLogStartOffset} is beyond the log end offset
   */
  public boolean maybeIncrementLogStartOffset(long newLogStartOffset) {
    return lock.callWritable(
        "log start offset update of", () -> maybeIncrementLogStartOffsetLocked(newLogStartOffset));
  }

  /** Untrusted input is checked here; retention's own start offsets pass through the same check. */
  private boolean maybeIncrementLogStartOffsetLocked(long newLogStartOffset) {
    long logEndOffset = local.logEndOffset();
    if (newLogStartOffset > logEndOffset) {
      throw new OffsetOutOfRangeException(
          "cannot move the log start offset of %s to %d: beyond the log end offset %d"
              .formatted(topicPartition, newLogStartOffset, logEndOffset));
    }
    if (newLogStartOffset <= logStartOffset) {
      return false;
    }
    updateLogStartOffset(newLogStartOffset);
    try {
      epochs.truncateFromStart(newLogStartOffset);
    } catch (IOException e) {
      throw storageError("epoch checkpoint of " + topicPartition, e);
    }
    return true;
  }

  /**
   * Applies retention: deletes the oldest segments that {@link LogRetention#segmentsToDelete}
   * chooses (below the log start offset, older than retention.ms, or beyond retention.bytes). When
   * the active segment itself must go (the whole log expired), the log first rolls an empty
   * segment, as Kafka does. The log start offset moves to the first remaining segment's base offset
   * (never backwards).
   *
   * @return segments deleted
   */
  public int deleteOldSegments() {
    return lock.callWritable(
        "retention of",
        () -> {
          long nowMs = time.milliseconds();
          LogSegments segments = local.segments();
          List<LogSegment> deletable =
              LogRetention.segmentsToDelete(
                  segments, logStartOffset, retentionBoundOffset, local.config(), nowMs);
          if (deletable.isEmpty()) {
            return 0;
          }
          LogSegment last = deletable.get(deletable.size() - 1);
          if (last == segments.active()) {
            local.roll(nowMs);
          }
          maybeIncrementLogStartOffsetLocked(segments.higherEntry(last.baseOffset()).getKey());
          local.deleteSegments(deletable);
          producerState.deleteSnapshotsBelow(logStartOffset);
          return deletable.size();
        });
  }

  /** The cleaner's steps on this log (snapshot, segment swap, checkpoint), under its lock. */
  LogCleaning cleaning() {
    return cleaning;
  }

  /** Fsyncs every segment up to the log end offset and moves the recovery point there. */
  public void flush() {
    lock.runWritable("flush of", () -> local.flush(time.milliseconds()));
  }

  /** Flushes if {@code flush.ms} has passed since the last flush; returns whether it did. */
  public boolean maybeFlushByTime() {
    return lock.call("flush of", () -> local.maybeFlushByTime(time.milliseconds()));
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  /**
   * Bounds retention: only segments wholly below {@code offset} may be deleted (see the field's
   * doc).
   */
  public void setRetentionBoundOffset(long offset) {
    retentionBoundOffset = offset;
  }

  /**
   * Records that {@code leaderEpoch} starts at the log end offset: a new leader does this before
   * its first append, so that it can tell followers where their older epochs end even if it writes
   * nothing in its own.
   */
  public void assignEpochStartOffset(int leaderEpoch) {
    lock.runWritable("epoch checkpoint of", () -> epochs.assign(leaderEpoch, local.logEndOffset()));
  }

  /** The latest leader epoch in this log's epoch cache, or -1 if none. */
  public int latestEpoch() {
    return lock.call("epoch lookup in", () -> epochs.latestEpoch());
  }

  /**
   * Where {@code leaderEpoch} ends in this log (Kafka's OffsetsForLeaderEpoch semantics; see {@link
   * LeaderEpochCache#endOffsetFor}).
   */
  public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
    return lock.call(
        "epoch lookup in", () -> epochs.endOffsetFor(leaderEpoch, local.logEndOffset()));
  }

  /** The epoch cache as epoch → start offset, oldest first. */
  public Map<Integer, Long> epochEntries() {
    return lock.call("epoch lookup in", () -> epochs.entries());
  }

  public long logEndOffset() {
    return local.logEndOffset();
  }

  public long recoveryPoint() {
    return local.recoveryPoint();
  }

  /** Bytes in all segments. */
  public long size() {
    return local.segments().sizeInBytes();
  }

  public int numberOfSegments() {
    return local.segments().count();
  }

  /** Base offsets of the segments, oldest first (for tests, tools and the dashboard). */
  public List<Long> segmentBaseOffsets() {
    return local.segments().baseOffsets();
  }

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public Path dir() {
    return local.dir();
  }

  public LogConfig config() {
    return local.config();
  }

  /**
   * Takes effect for the next append, roll and retention; existing segments keep their index sizes.
   */
  public void updateConfig(LogConfig config) {
    local.updateConfig(config);
  }

  /**
   * Removes the producer ids whose last batch is older than {@code producer.id.expiration.ms};
   * returns how many (the periodic check, Kafka's PeriodicProducerExpirationCheck).
   */
  public int removeExpiredProducers() {
    if (producerState.producerIdCount() == 0) {
      return 0; // most logs: no idempotent producer, no lock taken
    }
    return lock.call(
        "producer expiration in",
        () ->
            producerState.removeExpiredProducers(
                time.milliseconds(), local.config().producerIdExpirationMs()));
  }

  /** A copy of every producer's state, by producer id (Kafka's DescribeProducers, tests). */
  public Map<Long, ActiveProducer> activeProducers() {
    return lock.call("producer state of", producerState::activeProducers);
  }

  /**
   * Snapshots the producer state at the log end offset (so the next start need not read the log for
   * it), flushes and closes the files; the log cannot be used afterwards. Idempotent.
   */
  @Override
  public void close() {
    lock.run(
        "close of",
        () -> {
          if (lock.isWritable()) {
            producerState.takeDurableSnapshot(local.logEndOffset());
          }
          local.close(time.milliseconds());
        });
  }

  /**
   * Closes the file handles without flushing or writing final index entries (Kafka's closeHandlers:
   * the directory went offline). Tests use it to simulate a crash. Idempotent.
   */
  void closeHandlers() {
    lock.run("closing handles of", local::closeHandlers);
  }

  /**
   * Closes the files without flushing and renames the directory to {@code <name>.<n>-delete}, so
   * that it is no longer this partition's (a crash now leaves a directory the next start deletes,
   * never a half-deleted log under the live name). Cheap, whatever the log's size; the caller
   * deletes the returned directory.
   */
  Path renameForDeletion() {
    return lock.call("deletion of", local::renameForDeletion);
  }

  /** Closes the files without flushing and removes the directory. */
  public void delete() {
    lock.run("delete of", local::delete);
  }

  /** One status line: {@code orders-3 start=0 end=120 recovery=100 segments=3 bytes=40960}. */
  @Override
  public String toString() {
    return "%s start=%d end=%d recovery=%d segments=%d"
        .formatted(
            topicPartition,
            logStartOffset,
            local.logEndOffset(),
            local.recoveryPoint(),
            local.segments().count());
  }
}
