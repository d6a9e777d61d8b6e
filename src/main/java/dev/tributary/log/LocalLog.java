package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The segments of one partition's log on disk (Kafka's LocalLog): a directory {@code
 * <topic>-<partition>} of segments, each {@code <baseOffset, 20 digits>.log} (v2 record batches
 * stored byte for byte as appended), {@code .index} (sparse relative offset int32 to file position
 * int32, one entry per {@code index.interval.bytes}) and {@code .timeindex} (timestamp int64 to
 * relative offset int32); see {@link LogSegment}, {@link OffsetIndex}, {@link TimeIndex}. It
 * appends bytes, rolls, flushes, truncates, swaps and deletes segments, and owns the file state:
 * the log end offset, the recovery point and the cleaner's checkpoint. Its reads are in {@link
 * LogReader}. {@link PartitionLog} owns the rest (offsets, validation, epochs, the log start
 * offset, retention decisions) and the lock.
 *
 * <p>Invariants (each enforced in the one method that writes its field):
 *
 * <ul>
 *   <li>logEndOffset never decreases except under truncation. Writer: {@link #updateLogEndOffset}.
 *   <li>logStartOffset <= recoveryPoint <= logEndOffset; everything below recoveryPoint has been
 *       fsynced. Writer: {@link #updateRecoveryPoint}.
 *   <li>batch offsets strictly increase across the log; segments' ranges do not overlap; only the
 *       last segment (the active one) is appended to.
 * </ul>
 *
 * <p>Concurrency: every method that changes something runs under the owning {@link PartitionLog}'s
 * lock (the writers of the offsets check it). Reads take no lock: see {@link LogReader} and {@link
 * TruncationSequence}, which every truncation and segment swap here runs inside.
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
 * because readers retry instead of relying on a grace period. A {@link LogFileSlice} handed out
 * before a deletion fails instead (its channel is closed).
 */
final class LocalLog {
  private final Path dir;
  private final TopicPartition topicPartition;
  private volatile LogConfig config;

  /**
   * The owning {@link PartitionLog}'s lock, with the closed and offline state; this class never
   * takes it.
   */
  private final LogLock lock;

  /**
   * The owning log's start offset: the recovery point's lower bound and the reads' first offset.
   */
  private final LongSupplier logStartOffset;

  /**
   * The last is the active segment. Invariant: never empty while open. Changed only under {@code
   * lock}.
   */
  private final LogSegments segments;

  /** Readers' sequence lock: odd while a truncation or segment swap runs. */
  private final TruncationSequence truncations;

  private final LogReader reader;

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

  /**
   * The cleaner's checkpoint (Kafka's cleaner-offset-checkpoint entry): records below it have been
   * through a cleaning pass. Invariant: <= logEndOffset once a truncation has finished; {@link
   * LogToClean} clamps it into [logStartOffset, logEndOffset]. Changed only by {@link
   * #updateFirstDirtyOffset}, under {@code lock}; volatile for checkpoint writers.
   */
  private volatile long firstDirtyOffset;

  /** Truncations so far; a clean that saw another count gives up. Guarded by {@code lock}. */
  private long truncationCount;

  /** When the last flush (or roll) fsynced up to the log end; {@code flush.ms} counts from it. */
  private long lastFlushTimeMs;

  /** Told of each roll under the lock: the owner snapshots its producer state there. */
  private final RollListener rollListener;

  /**
   * The broker's disk, slowed on purpose in tests and the demo; see {@link SlowDisk} for the hot
   * path's cost (one volatile read per append when healthy).
   */
  private final SlowDisk disk;

  /** Called when a new active segment starts at {@code baseOffset} (= the log end offset). */
  interface RollListener {
    void onRoll(long baseOffset) throws IOException;
  }

  LocalLog(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      LogLoader.Loaded loaded,
      long nowMs,
      LogLock lock,
      LongSupplier logStartOffset,
      RollListener rollListener,
      SlowDisk disk) {
    this.dir = dir;
    this.disk = disk;
    this.rollListener = rollListener;
    this.topicPartition = tp;
    this.config = config;
    this.lock = lock;
    this.logStartOffset = logStartOffset;
    this.segments = new LogSegments(loaded.segments());
    this.truncations = new TruncationSequence(lock.reentrantLock());
    this.reader = new LogReader(this, segments, truncations, logStartOffset);
    this.logEndOffset = loaded.logEndOffset();
    this.recoveryPoint = loaded.recoveryPoint();
    this.lastFlushTimeMs = nowMs;
  }

  /** See {@link LogLock#storageError}: every I/O failure of the log goes there. */
  KafkaStorageException storageError(String what, Throwable cause) {
    return lock.storageError(what, cause);
  }

  /** See {@link PartitionLog#read}. Lock-free. */
  LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return reader.read(startOffset, maxBytes, maxOffset, minOneBatch);
  }

  /** See {@link PartitionLog#readFileSlice}. Lock-free. */
  LogFileSlice readFileSlice(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    return reader.readFileSlice(startOffset, maxBytes, maxOffset, minOneBatch);
  }

  /** See {@link PartitionLog#estimatedBytesBetween}. Lock-free. */
  long estimatedBytesBetween(long fromOffset, long toOffset) {
    return reader.estimatedBytesBetween(fromOffset, toOffset);
  }

  /** See {@link PartitionLog#offsetForTimestamp}; the caller holds the lock. */
  Optional<TimestampAndOffset> offsetForTimestamp(long targetTimestampMs) throws IOException {
    lock.checkOpen();
    return reader.offsetForTimestampLocked(targetTimestampMs);
  }

  /** See {@link PartitionLog#maxTimestampBelow}; the caller holds the lock. */
  Optional<TimestampAndOffset> maxTimestampBelow(long logStartOffset, long boundOffset)
      throws IOException {
    lock.checkOpen();
    return MaxTimestampLookup.find(segments, logStartOffset, boundOffset);
  }

  /**
   * Writes offset-assigned batches ending at {@code lastOffset} to the active segment (rolling
   * first if needed), then publishes the new log end offset. When {@code flush.messages} is
   * reached, it fsyncs before the log end offset moves: an append whose write or fsync failed never
   * becomes visible.
   */
  void append(ByteBuffer records, long lastOffset, long nowMs) {
    long diskDelayMs = disk.delayMs(); // the append's one read of it: 0 unless a fault is injected
    LogSegment segment = maybeRoll(records.remaining(), lastOffset, nowMs, diskDelayMs);
    int sizeBefore = segment.size();
    long newLogEndOffset = lastOffset + 1;
    boolean flush = newLogEndOffset - recoveryPoint >= config.flushMessages();
    // Both waits of a slow disk come before the first byte is written, so that an interrupted
    // wait leaves nothing to roll back; the writer is blocked as long either way.
    disk.stall(diskDelayMs);
    if (flush) {
      disk.stall(diskDelayMs);
    }
    try {
      segment.append(records, nowMs);
      if (flush) {
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
    checkLocked("log end offset update");
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
   * The only writer of recoveryPoint: within [logStartOffset, logEndOffset] except midway through a
   * truncation. {@link PartitionLog} raises it with the log start offset.
   */
  void updateRecoveryPoint(long offset) {
    checkLocked("recovery point update");
    long start = logStartOffset.getAsLong();
    if ((offset < start || offset > logEndOffset) && !truncations.inProgress()) {
      throw new IllegalStateException(
          "recovery point " + offset + " outside [" + start + ", " + logEndOffset + "]");
    }
    recoveryPoint = offset;
  }

  /** The only writer of firstDirtyOffset: clamped to the log end offset. */
  private void updateFirstDirtyOffset(long offset) {
    checkLocked("cleaner checkpoint update");
    firstDirtyOffset = Math.min(offset, logEndOffset);
  }

  private void checkLocked(String what) {
    if (!lock.isHeldByCurrentThread()) {
      throw new IllegalStateException(what + " of " + topicPartition + " without the log's lock");
    }
  }

  private LogSegment maybeRoll(int messagesSize, long maxOffset, long nowMs, long diskDelayMs) {
    LogSegment active = segments.active();
    return active.shouldRoll(messagesSize, maxOffset, nowMs, config)
        ? roll(nowMs, diskDelayMs)
        : active;
  }

  /**
   * Starts a new active segment at the log end offset. The previous one gets its final time index
   * entry and is fsynced synchronously (Kafka schedules that flush), so the recovery point moves to
   * the new base offset. The roll listener runs before the directory is fsynced (the owner's
   * producer snapshot at the new base offset is made durable with the new segment).
   */
  LogSegment roll(long nowMs) {
    return roll(nowMs, disk.delayMs());
  }

  /** {@link #roll(long)} with the slow disk's delay already read by the append that rolls. */
  private LogSegment roll(long nowMs, long diskDelayMs) {
    disk.stall(diskDelayMs); // the previous segment's fsync, before anything changes
    LogSegment previous = segments.active();
    long newBaseOffset = logEndOffset;
    try {
      previous.onBecomeInactiveSegment();
      previous.flush();
      LogSegment segment = LogSegment.create(dir, newBaseOffset, config);
      segments.add(segment);
      rollListener.onRoll(newBaseOffset);
      FileIo.fsyncDirectory(dir);
      updateRecoveryPoint(newBaseOffset);
      lastFlushTimeMs = nowMs;
      return segment;
    } catch (IOException | LogStorageException e) {
      throw storageError("roll of " + topicPartition + " at " + newBaseOffset, e);
    }
  }

  /** Fsyncs every segment up to the log end offset and moves the recovery point there. */
  void flush(long nowMs) {
    long upTo = logEndOffset;
    if (upTo > recoveryPoint) {
      disk.stall(disk.delayMs()); // before the fsync: an interrupted wait changes nothing
      try {
        segments.flushFrom(recoveryPoint);
      } catch (IOException | LogStorageException e) {
        throw storageError("flush of " + topicPartition, e);
      }
      updateRecoveryPoint(upTo);
    }
    lastFlushTimeMs = nowMs;
  }

  /** True while a truncation or segment swap runs (the offsets may then move backwards). */
  boolean truncationInProgress() {
    return truncations.inProgress();
  }

  /** Flushes if {@code flush.ms} has passed since the last flush and the log is writable. */
  boolean maybeFlushByTime(long nowMs) {
    if (!lock.isWritable() || nowMs - lastFlushTimeMs < config.flushMs()) {
      return false;
    }
    flush(nowMs);
    return true;
  }

  /**
   * Removes the batch holding {@code offset} and everything after it (at batch boundaries, so the
   * log end offset may end below {@code offset}); {@code offset} is within [logStartOffset,
   * logEndOffset).
   */
  void truncateTo(long offset) {
    truncations.truncate(
        "truncation of " + topicPartition + " to " + offset,
        () -> {
          segments.deleteAfter(offset);
          LogSegment active = segments.active();
          active.truncateTo(offset);
          updateLogEndOffset(active.nextOffset());
        });
    truncationCount++;
    updateFirstDirtyOffset(firstDirtyOffset);
  }

  /**
   * Deletes every segment and starts an empty one at {@code offset}, which becomes the log end
   * offset; {@code moveLogStartOffset} runs in the same step for readers, so none sees the new end
   * with the old start.
   */
  void truncateFullyAndStartAt(long offset, Runnable moveLogStartOffset) {
    truncations.truncate(
        "full truncation of " + topicPartition,
        () -> {
          segments.deleteAll();
          segments.add(LogSegment.create(dir, offset, config));
          updateLogEndOffset(offset);
          moveLogStartOffset.run();
        });
    truncationCount++;
    updateFirstDirtyOffset(offset);
  }

  /** Removes {@code doomed} (the oldest segments, never the active one) and deletes their files. */
  void deleteSegments(List<LogSegment> doomed) throws IOException {
    segments.delete(doomed);
  }

  /** A test's view of the steps of a segment swap, to simulate a crash after any of them. */
  interface SwapObserver {
    SwapObserver NONE = step -> {};

    void afterStep(String step);
  }

  /**
   * See {@link LogCleaning#replaceSegments}; the caller holds the lock. The steps, in crash-safe
   * order (Kafka's replaceSegments; {@link LogLoader} completes or discards each intermediate
   * state):
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
      List<LogSegment> old, LogSegment cleaned, long truncationCount, SwapObserver observer)
      throws IOException {
    if (!lock.isWritable() || truncationCount != this.truncationCount) {
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
  }

  long truncationCount() {
    return truncationCount;
  }

  long firstDirtyOffset() {
    return firstDirtyOffset;
  }

  /**
   * Raises the cleaner checkpoint to {@code offset} after a cleaning pass that started at {@code
   * truncationCount}; false if a truncation happened since (the next pass starts lower).
   */
  boolean maybeAdvanceFirstDirtyOffset(long offset, long truncationCount) {
    if (truncationCount != this.truncationCount || offset <= firstDirtyOffset) {
      return false;
    }
    updateFirstDirtyOffset(offset);
    return true;
  }

  /** Sets the cleaner checkpoint read from cleaner-offset-checkpoint at load. */
  void loadFirstDirtyOffset(long offset) {
    updateFirstDirtyOffset(offset);
  }

  /** Flushes and closes the files; nothing is written afterwards. Idempotent. */
  void close(long nowMs) throws IOException {
    if (lock.isClosed()) {
      return;
    }
    if (lock.isOffline()) {
      lock.markClosed();
      segments.closeHandlers(); // nothing more is written; the next start recovers the log
      return;
    }
    flush(nowMs);
    lock.markClosed();
    segments.closeAll();
  }

  /** Closes the file handles without flushing or writing final index entries. Idempotent. */
  void closeHandlers() throws IOException {
    lock.markClosed();
    segments.closeHandlers();
  }

  /** See {@link PartitionLog#renameForDeletion}. */
  Path renameForDeletion() throws IOException {
    lock.markClosed();
    segments.closeAll();
    segments.clear();
    Path doomed = dir.resolveSibling(dir.getFileName() + "." + System.nanoTime() + "-delete");
    Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
    FileIo.fsyncDirectory(dir.getParent());
    return doomed;
  }

  /** Closes the files without flushing and removes the directory. */
  void delete() throws IOException {
    lock.markClosed();
    segments.closeAll();
    segments.clear();
    FileIo.deleteRecursively(dir);
  }

  long logEndOffset() {
    return logEndOffset;
  }

  long recoveryPoint() {
    return recoveryPoint;
  }

  /** The ordered segment set (for retention and the cleaner, which only read it). */
  LogSegments segments() {
    return segments;
  }

  TopicPartition topicPartition() {
    return topicPartition;
  }

  Path dir() {
    return dir;
  }

  LogConfig config() {
    return config;
  }

  void updateConfig(LogConfig config) {
    this.config = config;
  }
}
