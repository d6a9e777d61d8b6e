package dev.tributary.log;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * What the {@link LogCleaner} may do to one {@link PartitionLog} ({@link PartitionLog#cleaning}),
 * each step under the log's lock: take a {@link CleanerSnapshot}, swap cleaned segments in, and
 * move the cleaner's checkpoint (the first dirty offset, kept by {@link LocalLog}). The cleaner
 * reads and writes segment files between these steps without the lock (concurrency note 5 in {@link
 * PartitionLog}); a truncation meanwhile makes the swap and the checkpoint move give up.
 */
final class LogCleaning {
  private final LogLock lock;
  private final LocalLog local;
  private final LongSupplier logStartOffset;
  private final LongSupplier retentionBoundOffset;

  LogCleaning(
      LogLock lock,
      LocalLog local,
      LongSupplier logStartOffset,
      LongSupplier retentionBoundOffset) {
    this.lock = lock;
    this.local = local;
    this.logStartOffset = logStartOffset;
    this.retentionBoundOffset = retentionBoundOffset;
  }

  /** What the cleaner needs, read together under the lock; null when closed or offline. */
  CleanerSnapshot snapshot() {
    return lock.call(
        "cleaning of",
        () ->
            !lock.isWritable()
                ? null
                : new CleanerSnapshot(
                    List.copyOf(local.segments().values()),
                    logStartOffset.getAsLong(),
                    local.logEndOffset(),
                    retentionBoundOffset.getAsLong(),
                    local.firstDirtyOffset(),
                    local.truncationCount(),
                    local.config()));
  }

  /**
   * Replaces {@code old} (consecutive segments, the active one never among them) with {@code
   * cleaned}, written by the cleaner to {@code .cleaned} files and fsynced; false, changing
   * nothing, if the log was closed or truncated since {@code truncationCount}, or retention deleted
   * one of {@code old}. The steps, in crash-safe order: {@link LocalLog#replaceSegments}.
   */
  boolean replaceSegments(
      List<LogSegment> old,
      LogSegment cleaned,
      long truncationCount,
      LocalLog.SwapObserver observer) {
    return lock.call(
        "segment swap of", () -> local.replaceSegments(old, cleaned, truncationCount, observer));
  }

  /**
   * Raises the cleaner checkpoint to {@code offset} after a cleaning pass that started at {@code
   * truncationCount}; false if a truncation happened since (the next pass starts lower).
   */
  boolean maybeAdvanceFirstDirtyOffset(long offset, long truncationCount) {
    return lock.call(
        "cleaner checkpoint of", () -> local.maybeAdvanceFirstDirtyOffset(offset, truncationCount));
  }

  /** The cleaner checkpoint (see {@link LocalLog}'s field). */
  long firstDirtyOffset() {
    return local.firstDirtyOffset();
  }

  /** Sets the cleaner checkpoint read from cleaner-offset-checkpoint at load. */
  void loadFirstDirtyOffset(long offset) {
    lock.run("cleaner checkpoint of", () -> local.loadFirstDirtyOffset(offset));
  }
}
