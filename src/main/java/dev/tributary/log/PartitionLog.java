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
import java.util.concurrent.locks.ReentrantLock;

/**
 * One partition's log (Kafka's UnifiedLog): a directory {@code <topic>-<partition>} of segments,
 * each {@code <baseOffset, 20 digits>.log} (v2 record batches stored byte for byte as appended),
 * {@code .index} (sparse relative offset int32 to file position int32, one entry per {@code
 * index.interval.bytes}) and {@code .timeindex} (timestamp int64 to relative offset int32). See
 * {@link LogSegment}, {@link OffsetIndex}, {@link TimeIndex}.
 *
 * <p>This class owns the log's state, its lock and its invariants, and does every write. Two
 * package-private helpers hold the rest: {@link LogReader} (the lock-free read path and its
 * retries, and timestamp lookups) and {@link LogRetention} (which segments retention deletes).
 * {@link LogSegments} is the ordered segment set.
 *
 * <p>Invariants (each enforced in the one method that writes its field; checked by the randomized
 * test after every step):
 *
 * <ul>
 *   <li>first segment's base offset <= logStartOffset <= logEndOffset; logStartOffset never
 *       decreases except through {@link #truncateFullyAndStartAt} (and {@link #truncateTo} below
 *       it, which calls it). Writer: {@link #updateLogStartOffset}.
 *   <li>logEndOffset never decreases except under truncation. Writer: {@link #updateLogEndOffset}.
 *   <li>logStartOffset <= recoveryPoint <= logEndOffset; everything below recoveryPoint has been
 *       fsynced. Writer: {@link #updateRecoveryPoint}.
 *   <li>batch offsets strictly increase across the log; segments' ranges do not overlap; only the
 *       last segment (the active one) is appended to.
 * </ul>
 *
 * <p>Concurrency notes:
 *
 * <ol>
 *   <li>Appends, rolls, truncation, retention, flush, close hold {@code lock} (taken only in {@link
 *       #inLock}); appends to one partition are serialized, different partitions proceed in
 *       parallel. Lock order: partition lock, then a segment's index monitor. Nothing calls out
 *       while holding the lock.
 *   <li>Reads ({@link LogReader}) take no lock. They snapshot logStartOffset/logEndOffset
 *       (volatile) and read at most a segment's committed size (volatile, raised after the bytes
 *       are written, and the segment size before logEndOffset), so they never see a half-written
 *       batch.
 *   <li>Truncation changes bytes readers may be reading: it runs inside a sequence lock ({@link
 *       TruncationSequence}, odd while it runs); a read that overlapped one is retried. A read that
 *       hits a segment deleted by retention (ClosedChannelException) is retried too, and then
 *       reports OffsetOutOfRange if its offset is gone.
 *   <li>{@link #offsetForTimestamp} takes the lock (ListOffsets is rare and this keeps it simple).
 *   <li>The {@link LogCleaner} reads and rewrites inactive segments without the lock, from a {@link
 *       #cleanerSnapshot}; it takes the lock only for {@link #replaceSegments}, which swaps the
 *       segment map inside the readers' sequence lock (so overlapping reads retry, as for a
 *       truncation) and gives up if a truncation or retention changed the segments meanwhile.
 * </ol>
 *
 * <p>Durability: an append is written to the file (the OS page cache) before it is acknowledged; it
 * is fsynced when {@code flush.messages} unflushed messages accumulate, when {@code flush.ms} has
 * passed (driven by {@link LogManager#runPeriodicTasks}), at every segment roll (synchronously
 * here; Kafka schedules that flush) and at close. A crash loses what the OS had not written since
 * the last fsync; recovery truncates each recovered segment at its first invalid batch, so what
 * survives is always a prefix of what was appended.
 *
 * <p>Deletion (retention, truncation, segments replaced by the cleaner) renames segment files to
 * {@code .deleted} and deletes them at once; {@code file.delete.delay.ms} is accepted but not used,
 * because readers retry instead of relying on a grace period.
 *
 * <p>Compaction ({@code cleanup.policy=compact}, docs/adr/0012-log-compaction.md) removes records
 * from inactive segments but never changes an offset: readers find gaps between batches, and a read
 * from an offset in a gap returns the next batch.
 */
public final class PartitionLog implements AutoCloseable {
  private final Path dir;
  private final TopicPartition topicPartition;
  private final Time time;
  private volatile LogConfig config;
  private final ReentrantLock lock = new ReentrantLock();

  /**
   * The last is the active segment. Invariant: never empty while open. Changed only under {@code
   * lock}.
   */
  private final LogSegments segments;

  private final LogReader reader;

  /**
   * Invariant: first segment base <= logStartOffset <= logEndOffset; moves forward only, except
   * under truncation (see class doc). Changed only by {@link #updateLogStartOffset}.
   */
  private volatile long logStartOffset;

  /**
   * The offset the next batch gets; = active segment's nextOffset. Published after the segment's
   * size. Invariant: moves forward only, except under truncation. Changed only by {@link
   * #updateLogEndOffset}.
   */
  private volatile long logEndOffset;

  /**
   * Invariant: logStartOffset <= recoveryPoint <= logEndOffset (outside truncation); everything
   * below it is on disk. Changed only by {@link #updateRecoveryPoint}.
   */
  private volatile long recoveryPoint;

  /** Readers' sequence lock: odd while a truncation runs (see {@link TruncationSequence}). */
  private final TruncationSequence truncations = new TruncationSequence(lock);

  /** Leader epoch → start offset; truncated with the log. Guarded by {@code lock}. */
  private final LeaderEpochCache epochs;

  /**
   * Retention deletes only segments wholly below this offset: the partition's high watermark, so
   * that nothing a follower may still need, or a consumer has not been allowed to see, goes (Kafka
   * bounds deletion by the HW too). {@code Long.MAX_VALUE} for a log no partition owns (tools,
   * tests).
   */
  private volatile long retentionBoundOffset = Long.MAX_VALUE;

  /**
   * The cleaner's checkpoint (Kafka's cleaner-offset-checkpoint entry): records below it have been
   * through a cleaning pass. Invariant: <= logEndOffset outside a clean; lowered by truncation,
   * raised only by {@link #maybeAdvanceFirstDirtyOffset}; {@link LogToClean} clamps it into
   * [logStartOffset, logEndOffset]. Guarded by {@code lock}; volatile for checkpoint writers.
   */
  private volatile long firstDirtyOffset;

  /** Truncations so far; a clean that saw another count gives up. Guarded by {@code lock}. */
  private long truncationCount;

  private long lastFlushTimeMs;
  private boolean closed;

  /**
   * Where this log reports I/O failures; once its directory ({@code dir}'s parent) is offline the
   * log refuses every write without touching the disk, and keeps serving reads (see {@link
   * LogDirFailureChannel}).
   */
  private final LogDirFailureChannel failures;

  private PartitionLog(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      Time time,
      LogLoader.Loaded loaded,
      LeaderEpochCache epochs,
      LogDirFailureChannel failures) {
    this.dir = dir;
    this.failures = failures;
    this.topicPartition = tp;
    this.config = config;
    this.time = time;
    this.segments = new LogSegments(loaded.segments());
    this.reader = new LogReader(this, segments, truncations);
    this.logStartOffset = loaded.logStartOffset();
    this.logEndOffset = loaded.logEndOffset();
    this.recoveryPoint = loaded.recoveryPoint();
    this.lastFlushTimeMs = time.milliseconds();
    this.epochs = epochs;
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
    return open(
        dir,
        tp,
        config,
        recoveryPoint,
        logStartOffset,
        hadCleanShutdown,
        time,
        new LogDirFailureChannel());
  }

  /**
   * As {@link #open(Path, TopicPartition, LogConfig, long, long, boolean, Time)}, reporting I/O
   * failures to {@code failures} (the {@link LogManager}'s channel). A log in an offline directory
   * is not opened.
   *
   * @throws KafkaStorageException if the directory is offline, or loading hit an I/O error (which
   *     takes it offline)
   */
  public static PartitionLog open(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      long recoveryPoint,
      long logStartOffset,
      boolean hadCleanShutdown,
      Time time,
      LogDirFailureChannel failures) {
    Path logDir = dir.toAbsolutePath().getParent();
    if (failures.isOffline(logDir)) {
      throw offline(failures, logDir, "opening " + tp);
    }
    try {
      LogLoader.Loaded loaded =
          LogLoader.load(dir, config, recoveryPoint, logStartOffset, hadCleanShutdown);
      PartitionLog log =
          new PartitionLog(dir, tp, config, time, loaded, LeaderEpochCache.load(dir), failures);
      log.reconcileEpochCache();
      return log;
    } catch (IOException | LogStorageException e) {
      if (e instanceof KafkaStorageException k) {
        throw k;
      }
      String what = "loading log " + tp + " from " + dir;
      failures.maybeAddOfflineLogDir(logDir, what, e);
      throw new KafkaStorageException(what + " failed; log directory " + logDir + " is offline", e);
    }
  }

  /** The error for an operation refused because {@code logDir} is offline. */
  static KafkaStorageException offline(LogDirFailureChannel failures, Path logDir, String refused) {
    String reason =
        failures.offlineLogDir(logDir).map(LogDirFailureChannel.OfflineLogDir::reason).orElse("");
    return new KafkaStorageException(
        "Log directory " + logDir + " is offline (" + reason + "); refused " + refused, null);
  }

  /** The directory holding this log's directory: what goes offline on an I/O failure. */
  Path logDir() {
    return dir.toAbsolutePath().getParent();
  }

  /** True once this log's directory is offline: writes are refused, reads still served. */
  public boolean isOffline() {
    return failures.isOffline(logDir());
  }

  /**
   * Reports an I/O failure of {@code what} (taking the directory offline if it is the first) and
   * returns the error to throw. Every I/O error of this log passes through here.
   */
  KafkaStorageException storageError(String what, Throwable cause) {
    if (cause instanceof KafkaStorageException k) {
      return k;
    }
    Path logDir = logDir();
    failures.maybeAddOfflineLogDir(logDir, what, cause);
    return new KafkaStorageException(
        what + " failed (" + cause.getMessage() + "); log directory " + logDir + " is offline",
        cause);
  }

  /**
   * Brings the epoch cache in line with the recovered log: entries past the log end (written just
   * before a crash lost the batches) or below its start go. A log without a readable checkpoint
   * file (written before epochs were tracked, or corrupted) rebuilds it from the epochs stamped in
   * its batches.
   */
  private void reconcileEpochCache() throws IOException {
    inLock(
        "epoch cache recovery of",
        () -> {
          if (epochs.needsRebuild() && logEndOffset > logStartOffset) {
            long offset = logStartOffset;
            while (offset < logEndOffset) {
              LogReadInfo read = reader.read(offset, 1 << 20, Long.MAX_VALUE, true);
              if (read.isEmpty()) {
                break;
              }
              for (dev.tributary.log.record.RecordBatch batch : read.batches()) {
                epochs.assignInMemory(batch.partitionLeaderEpoch(), batch.baseOffset());
                offset = batch.nextOffset();
              }
            }
            epochs.write();
          }
          epochs.truncateFromEnd(logEndOffset);
          epochs.truncateFromStart(logStartOffset);
        });
  }

  /**
   * Appends a produce request: validates every batch first (a rejected request changes nothing),
   * then assigns offsets from the log end offset and stamps {@code leaderEpoch} in place (both
   * outside the CRC); for LogAppendTime topics it sets the max timestamp and timestamp type and
   * recomputes the CRC.
   *
   * @throws CorruptRecordException bad framing, magic, CRC or record count
   * @throws RecordTooLargeException a batch larger than max.message.bytes
   * @throws InvalidRecordException a record without a key for a compacted topic
   */
  public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch) {
    LogConfig config = this.config;
    ByteBuffer records = batches.duplicate();
    AppendValidator.Summary summary =
        AppendValidator.validateForLeader(
            records, config.maxMessageBytes(), config.compact(), topicPartition);
    return inOpenLog(
        "append to",
        () -> {
          long nowMs = time.milliseconds();
          boolean logAppendTime = config.messageTimestampType() == TimestampType.LOG_APPEND_TIME;
          long firstOffset = logEndOffset;
          epochs.assign(
              leaderEpoch, firstOffset); // a no-op unless this is the epoch's first append
          long offset =
              OffsetAssigner.assign(records, firstOffset, leaderEpoch, logAppendTime, nowMs);
          long maxTimestampMs = logAppendTime ? nowMs : summary.maxTimestampMs();
          appendLocked(records, offset - 1, nowMs);
          return new LogAppendInfo(
              firstOffset,
              offset - 1,
              summary.recordCount(),
              summary.sizeInBytes(),
              maxTimestampMs,
              logAppendTime ? nowMs : -1,
              logStartOffset);
        });
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
    return inOpenLog(
        "append to",
        () -> {
          if (summary.firstOffset() < logEndOffset) {
            throw new InvalidOffsetException(
                "follower append to "
                    + topicPartition
                    + " starts at "
                    + summary.firstOffset()
                    + " but the log end offset is "
                    + logEndOffset);
          }
          // The leader's epochs, recorded before the batches that carry them: a crash in between
          // leaves an entry past
          // the log end, which reconcileEpochCache removes at the next start.
          boolean newEpoch = false;
          for (dev.tributary.log.record.RecordBatch batch :
              dev.tributary.log.record.BatchIterator.strict(records.duplicate())) {
            newEpoch |= epochs.assignInMemory(batch.partitionLeaderEpoch(), batch.baseOffset());
          }
          if (newEpoch) {
            epochs.write();
          }
          appendLocked(records, summary.lastOffset(), time.milliseconds());
          return new LogAppendInfo(
              summary.firstOffset(),
              summary.lastOffset(),
              summary.recordCount(),
              summary.sizeInBytes(),
              summary.maxTimestampMs(),
              -1,
              logStartOffset);
        });
  }

  /**
   * Writes offset-assigned batches to the active segment (rolling first if needed); caller holds
   * the lock.
   */
  private void appendLocked(ByteBuffer records, long lastOffset, long nowMs) {
    LogSegment segment = maybeRoll(records.remaining(), lastOffset, nowMs);
    int sizeBefore = segment.size();
    long newLogEndOffset = lastOffset + 1;
    boolean flush = newLogEndOffset - recoveryPoint >= config.flushMessages();
    try {
      segment.append(records, nowMs);
      if (flush) {
        // Before the log end offset moves: an append whose fsync failed never becomes visible.
        segments.flushFrom(recoveryPoint);
      }
    } catch (IOException | LogStorageException e) {
      rollBackFailedAppend(segment, sizeBefore, e);
      throw storageError("append to " + topicPartition, e);
    }
    updateLogEndOffset(newLogEndOffset);
    if (flush) {
      updateRecoveryPoint(newLogEndOffset);
      lastFlushTimeMs = nowMs;
    }
  }

  /**
   * Best effort after a failed write or fsync: cut the segment back to the log end offset (its
   * file, indexes and next offset), so that the failed batches are gone from memory and, if the
   * disk still allows it, from the file. Readers never saw them either way: they are bounded by the
   * log end offset, which did not move. What a failed truncation leaves on disk, log recovery and
   * truncation by leader epoch deal with at the next start (docs/adr/0015).
   */
  private void rollBackFailedAppend(LogSegment segment, int sizeBefore, Exception failure) {
    try {
      segment.truncateTo(logEndOffset);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
    try {
      segment.truncateToSize(sizeBefore);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * The only writer of logEndOffset; it must move forward except under truncation. Lowers the
   * recovery point.
   */
  private void updateLogEndOffset(long offset) {
    if (offset < logEndOffset && !truncations.inProgress()) {
      throw new IllegalStateException(
          "log end offset would go back from " + logEndOffset + " to " + offset);
    }
    logEndOffset = offset;
    if (recoveryPoint > offset) {
      updateRecoveryPoint(offset);
    }
  }

  /**
   * The only writer of logStartOffset: it never passes the log end offset and moves forward except
   * under truncation (a full truncation resets it). Raises the recovery point with it: data below
   * the start needs no recovery.
   */
  private void updateLogStartOffset(long offset) {
    if (offset > logEndOffset || (offset < logStartOffset && !truncations.inProgress())) {
      throw new IllegalStateException(
          "log start offset cannot move from "
              + logStartOffset
              + " to "
              + offset
              + " (end "
              + logEndOffset
              + ")");
    }
    logStartOffset = offset;
    if (recoveryPoint < offset) {
      updateRecoveryPoint(offset);
    }
  }

  /**
   * The only writer of recoveryPoint: within [logStartOffset, logEndOffset] except midway through a
   * truncation.
   */
  private void updateRecoveryPoint(long offset) {
    if ((offset < logStartOffset || offset > logEndOffset) && !truncations.inProgress()) {
      throw new IllegalStateException(
          "recovery point " + offset + " outside [" + logStartOffset + ", " + logEndOffset + "]");
    }
    recoveryPoint = offset;
  }

  private LogSegment maybeRoll(int messagesSize, long maxOffset, long nowMs) {
    LogSegment active = segments.active();
    return active.shouldRoll(messagesSize, maxOffset, nowMs, config) ? roll(nowMs) : active;
  }

  /**
   * Starts a new active segment at the log end offset. The previous one gets its final time index
   * entry and is fsynced synchronously (Kafka schedules that flush), so the recovery point moves to
   * the new base offset.
   */
  private LogSegment roll(long nowMs) {
    LogSegment previous = segments.active();
    long newBaseOffset = logEndOffset;
    try {
      previous.onBecomeInactiveSegment();
      previous.flush();
      LogSegment segment = LogSegment.create(dir, newBaseOffset, config);
      segments.add(segment);
      FileIo.fsyncDirectory(dir);
      updateRecoveryPoint(newBaseOffset);
      lastFlushTimeMs = nowMs;
      return segment;
    } catch (IOException | LogStorageException e) {
      throw storageError("roll of " + topicPartition + " at " + newBaseOffset, e);
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
    return reader.read(startOffset, maxBytes, maxOffset, minOneBatch);
  }

  /**
   * The first offset whose record timestamp is >= {@code targetTimestampMs} (ListOffsets), with
   * that record's timestamp; empty if no record is that recent. The special targets are handled
   * here too: {@code -2} (earliest) answers the log start offset, {@code -1} (latest) the log end
   * offset, both with timestamp -1. The caller bounds the answer by the high watermark if it must.
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(long targetTimestampMs) {
    return inLock(
        "offset lookup in",
        () -> {
          ensureOpen();
          return reader.offsetForTimestampLocked(targetTimestampMs);
        });
  }

  /**
   * ListOffsets' MAX_TIMESTAMP: the record with the largest timestamp below {@code boundOffset}
   * (the high watermark), with its batch's leader epoch; empty when there is none. Scans the
   * segments that could hold it (see {@link MaxTimestampLookup}); rare, so it takes the lock.
   */
  public Optional<TimestampAndOffset> maxTimestampBelow(long boundOffset) {
    return inLock(
        "offset lookup in",
        () -> {
          ensureOpen();
          return MaxTimestampLookup.find(segments, logStartOffset, boundOffset);
        });
  }

  /** The leader epoch that wrote {@code offset}, by the epoch cache; -1 if unknown. */
  public int epochForOffset(long offset) {
    return inLock("epoch lookup in", () -> epochs.epochForOffset(offset));
  }

  /**
   * Removes everything at and after {@code offset} (replication truncation). Truncation is at batch
   * boundaries: if {@code offset} falls inside a batch, that whole batch goes and the log end
   * offset ends below {@code offset}. Below the log start offset this is {@link
   * #truncateFullyAndStartAt}.
   */
  public void truncateTo(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("cannot truncate to negative offset " + offset);
    }
    inOpenLog(
        "truncation of",
        () -> {
          if (offset >= logEndOffset) {
            epochs.truncateFromEnd(offset); // epochs that wrote nothing before the end go too
            return;
          }
          if (offset < logStartOffset) {
            truncateFullyLocked(offset);
            return;
          }
          truncations.truncate(
              "truncation of " + topicPartition + " to " + offset,
              () -> {
                segments.deleteAfter(offset);
                LogSegment active = segments.active();
                active.truncateTo(offset);
                updateLogEndOffset(active.nextOffset());
              });
          truncationCount++;
          firstDirtyOffset = Math.min(firstDirtyOffset, logEndOffset);
          if (logEndOffset < logStartOffset) {
            truncateFullyLocked(offset); // the batch holding logStartOffset straddled offset
          } else {
            epochs.truncateFromEnd(logEndOffset);
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
    inOpenLog("full truncation of", () -> truncateFullyLocked(offset));
  }

  private void truncateFullyLocked(long offset) throws IOException {
    truncations.truncate(
        "full truncation of " + topicPartition,
        () -> {
          segments.deleteAll();
          segments.add(LogSegment.create(dir, offset, config));
          updateLogEndOffset(offset);
          updateLogStartOffset(offset); // raises the recovery point to offset too
        });
    truncationCount++;
    firstDirtyOffset = offset;
    epochs.clear();
  }

  /**
   * Raises the log start offset (DeleteRecords, or a leader's start offset seen by a follower).
   * Segments wholly below it are deleted by the next {@link #deleteOldSegments}.
   *
   * @return true if it moved
   * @throws OffsetOutOfRangeException if {@code newLogStartOffset} is beyond the log end offset
   */
  public boolean maybeIncrementLogStartOffset(long newLogStartOffset) {
    return inOpenLog(
        "log start offset update of", () -> maybeIncrementLogStartOffsetLocked(newLogStartOffset));
  }

  /** Untrusted input is checked here; retention's own start offsets pass through the same check. */
  private boolean maybeIncrementLogStartOffsetLocked(long newLogStartOffset) {
    if (newLogStartOffset > logEndOffset) {
      throw new OffsetOutOfRangeException(
          "cannot move the log start offset of "
              + topicPartition
              + " to "
              + newLogStartOffset
              + ": beyond the log end offset "
              + logEndOffset);
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
    return inOpenLog(
        "retention of",
        () -> {
          long nowMs = time.milliseconds();
          List<LogSegment> deletable =
              LogRetention.segmentsToDelete(
                  segments, logStartOffset, retentionBoundOffset, config, nowMs);
          if (deletable.isEmpty()) {
            return 0;
          }
          LogSegment last = deletable.get(deletable.size() - 1);
          if (last == segments.active()) {
            roll(nowMs);
          }
          maybeIncrementLogStartOffsetLocked(segments.higherEntry(last.baseOffset()).getKey());
          segments.delete(deletable);
          return deletable.size();
        });
  }

  /** What the cleaner needs from the log, read together under the lock. */
  record CleanerSnapshot(
      List<LogSegment> segments,
      long logStartOffset,
      long logEndOffset,
      long boundOffset,
      long firstDirtyOffset,
      long truncationCount,
      LogConfig config) {}

  /** A test's view of the steps of a segment swap, to simulate a crash after any of them. */
  interface SwapObserver {
    SwapObserver NONE = step -> {};

    void afterStep(String step);
  }

  /**
   * The segments (the last is the active one), offsets and config, consistent with each other; the
   * cleaner reads the segments' files afterwards without the lock. Null when closed.
   */
  CleanerSnapshot cleanerSnapshot() {
    return inLock(
        "cleaning of",
        () ->
            closed || isOffline()
                ? null
                : new CleanerSnapshot(
                    List.copyOf(segments.values()),
                    logStartOffset,
                    logEndOffset,
                    retentionBoundOffset,
                    firstDirtyOffset,
                    truncationCount,
                    config));
  }

  /**
   * Replaces {@code old} (consecutive segments, the active one never among them) with {@code
   * cleaned}, written by the cleaner to {@code .cleaned} files and fsynced; false, changing
   * nothing, if the log was closed or truncated since {@code truncationCount}, or retention deleted
   * one of {@code old}. Under the lock, in crash-safe order (Kafka's replaceSegments; {@link
   * LogLoader} completes or discards each intermediate state):
   *
   * <ol>
   *   <li>rename {@code cleaned}'s files to {@code .swap} and fsync the directory: from here a
   *       restart completes the swap;
   *   <li>swap the segments in the map inside the readers' sequence lock, so a read that overlapped
   *       it retries instead of mixing old and new segments;
   *   <li>delete {@code old}'s files (renamed {@code .deleted} first; readers still holding one
   *       retry), fsync the directory;
   *   <li>rename {@code cleaned}'s files to their final names, fsync the directory.
   * </ol>
   */
  boolean replaceSegments(
      List<LogSegment> old, LogSegment cleaned, long truncationCount, SwapObserver observer) {
    return inLock(
        "segment swap of",
        () -> {
          if (closed || isOffline() || truncationCount != this.truncationCount) {
            return false;
          }
          for (LogSegment segment : old) {
            Map.Entry<Long, LogSegment> current = segments.floorEntry(segment.baseOffset());
            if (current == null || current.getValue() != segment || segment == segments.active()) {
              return false;
            }
          }
          cleaned.changeFileSuffixes(LogSegment.CLEANED_SUFFIX, LogSegment.SWAP_SUFFIX);
          FileIo.fsyncDirectory(dir);
          observer.afterStep("renamed to .swap");
          truncations.truncate(
              "segment swap of " + topicPartition,
              () -> {
                segments.add(cleaned); // replaces old.get(0): same base offset
                for (LogSegment segment : old.subList(1, old.size())) {
                  segments.remove(segment);
                }
              });
          for (LogSegment segment : old) {
            segment.deleteFiles();
            observer.afterStep("deleted " + segment.baseOffset());
          }
          FileIo.fsyncDirectory(dir);
          cleaned.changeFileSuffixes(LogSegment.SWAP_SUFFIX, "");
          FileIo.fsyncDirectory(dir);
          observer.afterStep("swapped");
          return true;
        });
  }

  /**
   * Raises the cleaner checkpoint to {@code offset} after a cleaning pass that started at {@code
   * truncationCount}; false if a truncation happened since (the next pass starts lower).
   */
  boolean maybeAdvanceFirstDirtyOffset(long offset, long truncationCount) {
    return inLock(
        "cleaner checkpoint of",
        () -> {
          if (truncationCount != this.truncationCount || offset <= firstDirtyOffset) {
            return false;
          }
          firstDirtyOffset = Math.min(offset, logEndOffset);
          return true;
        });
  }

  /** The cleaner checkpoint (see the field). */
  long firstDirtyOffset() {
    return firstDirtyOffset;
  }

  /** Sets the cleaner checkpoint read from cleaner-offset-checkpoint at load. */
  void loadFirstDirtyOffset(long offset) {
    inLock(
        "cleaner checkpoint of",
        () -> {
          firstDirtyOffset = Math.min(offset, logEndOffset);
        });
  }

  /** Fsyncs every segment up to the log end offset and moves the recovery point there. */
  public void flush() {
    inOpenLog("flush of", () -> flushLocked(time.milliseconds()));
  }

  /** Flushes if {@code flush.ms} has passed since the last flush; returns whether it did. */
  public boolean maybeFlushByTime() {
    return inLock(
        "flush of",
        () -> {
          if (closed || isOffline() || time.milliseconds() - lastFlushTimeMs < config.flushMs()) {
            return false;
          }
          flushLocked(time.milliseconds());
          return true;
        });
  }

  private void flushLocked(long nowMs) {
    long upTo = logEndOffset;
    if (upTo > recoveryPoint) {
      try {
        segments.flushFrom(recoveryPoint);
      } catch (IOException | LogStorageException e) {
        throw storageError("flush of " + topicPartition, e);
      }
      updateRecoveryPoint(upTo);
    }
    lastFlushTimeMs = nowMs;
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
    inOpenLog(
        "epoch checkpoint of",
        () -> {
          epochs.assign(leaderEpoch, logEndOffset);
        });
  }

  /** The latest leader epoch in this log's epoch cache, or -1 if none. */
  public int latestEpoch() {
    return inLock("epoch lookup in", () -> epochs.latestEpoch());
  }

  /**
   * Where {@code leaderEpoch} ends in this log (Kafka's OffsetsForLeaderEpoch semantics; see {@link
   * LeaderEpochCache#endOffsetFor}).
   */
  public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
    return inLock("epoch lookup in", () -> epochs.endOffsetFor(leaderEpoch, logEndOffset));
  }

  /** The epoch cache as epoch → start offset, oldest first. */
  public Map<Integer, Long> epochEntries() {
    return inLock("epoch lookup in", () -> epochs.entries());
  }

  public long logEndOffset() {
    return logEndOffset;
  }

  public long recoveryPoint() {
    return recoveryPoint;
  }

  /** Bytes in all segments. */
  public long size() {
    return segments.sizeInBytes();
  }

  public int numberOfSegments() {
    return segments.count();
  }

  /** Base offsets of the segments, oldest first (for tests, tools and the dashboard). */
  public List<Long> segmentBaseOffsets() {
    return segments.baseOffsets();
  }

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public Path dir() {
    return dir;
  }

  public LogConfig config() {
    return config;
  }

  /**
   * Takes effect for the next append, roll and retention; existing segments keep their index sizes.
   */
  public void updateConfig(LogConfig config) {
    this.config = config;
  }

  /** Flushes and closes the files; the log cannot be used afterwards. Idempotent. */
  @Override
  public void close() {
    inLock(
        "close of",
        () -> {
          if (closed) {
            return;
          }
          if (isOffline()) {
            closed = true;
            segments.closeHandlers(); // nothing more is written; the next start recovers the log
            return;
          }
          flushLocked(time.milliseconds());
          closed = true;
          segments.closeAll();
        });
  }

  /**
   * Closes the file handles without flushing or writing final index entries (Kafka's closeHandlers:
   * the directory went offline). Tests use it to simulate a crash. Idempotent.
   */
  void closeHandlers() {
    inLock(
        "closing handles of",
        () -> {
          closed = true;
          segments.closeHandlers();
        });
  }

  /**
   * Closes the files without flushing and renames the directory to {@code <name>.<n>-delete}, so
   * that it is no longer this partition's (a crash now leaves a directory the next start deletes,
   * never a half-deleted log under the live name). Cheap, whatever the log's size; the caller
   * deletes the returned directory.
   */
  Path renameForDeletion() {
    return inLock(
        "deletion of",
        () -> {
          closed = true;
          segments.closeAll();
          segments.clear();
          Path doomed = dir.resolveSibling(dir.getFileName() + "." + System.nanoTime() + "-delete");
          java.nio.file.Files.move(dir, doomed, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
          FileIo.fsyncDirectory(dir.getParent());
          return doomed;
        });
  }

  /** Closes the files without flushing and removes the directory. */
  public void delete() {
    inLock(
        "delete of",
        () -> {
          closed = true;
          segments.closeAll();
          segments.clear();
          FileIo.deleteRecursively(dir);
        });
  }

  /** Work done under the lock that returns a value and may fail with an IOException. */
  private interface LockedStep<T> {
    T run() throws IOException;
  }

  /** Work done under the lock that may fail with an IOException. */
  private interface LockedAction {
    void run() throws IOException;
  }

  /**
   * Runs {@code step} holding the lock (Kafka's inLock); the only place the lock is taken, apart
   * from readers waiting out a truncation. An IOException becomes a LogStorageException "{@code
   * what} topic-partition failed".
   */
  private <T> T inLock(String what, LockedStep<T> step) {
    lock.lock();
    try {
      return step.run();
    } catch (IOException | LogStorageException e) {
      throw storageError(what + " " + topicPartition, e);
    } finally {
      lock.unlock();
    }
  }

  private void inLock(String what, LockedAction action) {
    inLock(
        what,
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * {@link #inLock} for a write: a closed log throws IllegalStateException, one in an offline
   * directory KafkaStorageException.
   */
  private <T> T inOpenLog(String what, LockedStep<T> step) {
    return inLock(
        what,
        () -> {
          ensureWritable();
          return step.run();
        });
  }

  private void inOpenLog(String what, LockedAction action) {
    inLock(
        what,
        () -> {
          ensureWritable();
          action.run();
        });
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("log " + topicPartition + " is closed");
    }
  }

  /**
   * Before every write: the log must be open and its directory online (an offline directory refuses
   * writes without touching the disk).
   */
  private void ensureWritable() {
    ensureOpen();
    if (isOffline()) {
      throw offline(failures, logDir(), "a write to " + topicPartition);
    }
  }

  /** One status line: {@code orders-3 start=0 end=120 recovery=100 segments=3 bytes=40960}. */
  @Override
  public String toString() {
    return topicPartition
        + " start="
        + logStartOffset
        + " end="
        + logEndOffset
        + " recovery="
        + recoveryPoint
        + " segments="
        + segments.count();
  }
}
