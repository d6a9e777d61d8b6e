package dev.tributary.log;

import java.io.IOException;
import java.util.List;

/**
 * One compacted log as the cleaner sees it (Kafka's LogToClean and LogCleanerManager's
 * cleanableOffsets): where its dirty part starts and ends, and how dirty it is.
 *
 * <pre>
 *   logStartOffset        firstDirtyOffset           firstUncleanableOffset     active segment
 *   | clean (cleaned once) | dirty: cleanable          | too recent or above HW   | never touched
 * </pre>
 *
 * Invariant: logStartOffset <= firstDirtyOffset <= firstUncleanableOffset <= active segment base
 * offset; firstUncleanableOffset is a segment base offset unless it equals firstDirtyOffset
 * (nothing is cleanable).
 *
 * @param cleanBytes bytes of the segments below firstDirtyOffset
 * @param cleanableBytes bytes of the segments holding [firstDirtyOffset, firstUncleanableOffset)
 * @param needCompactionNow a dirty record is older than max.compaction.lag.ms
 */
record LogToClean(
    PartitionLog log,
    CleanerSnapshot snapshot,
    long firstDirtyOffset,
    long firstUncleanableOffset,
    long cleanBytes,
    long cleanableBytes,
    boolean needCompactionNow) {

  /** cleanable / (clean + cleanable), 0 for an empty log. */
  double cleanableRatio() {
    long total = cleanBytes + cleanableBytes;
    return total == 0 ? 0 : (double) cleanableBytes / total;
  }

  /**
   * Whether the cleaner should clean this log now: it has cleanable bytes and either its ratio
   * reaches min.cleanable.dirty.ratio or max.compaction.lag.ms forces it.
   */
  boolean shouldClean() {
    return cleanableBytes > 0
        && (needCompactionNow || cleanableRatio() >= snapshot.config().minCleanableDirtyRatio());
  }

  /**
   * The dirty range of {@code log} at {@code nowMs}, or null if it is closed. A checkpoint below
   * the log start offset (retention removed the clean part) or past the log end (a truncation the
   * checkpoint did not see) restarts at the log start offset, as in Kafka. The dirty range ends at
   * the first segment that is active, reaches past the bound offset (the high watermark: nothing
   * uncommitted is compacted, so a leader change cannot lose a key's latest value), or whose
   * largest timestamp is within min.compaction.lag.ms of now.
   */
  static LogToClean of(PartitionLog log, long nowMs) throws IOException {
    CleanerSnapshot snapshot = log.cleaning().snapshot();
    if (snapshot == null) {
      return null;
    }
    List<LogSegment> segments = snapshot.segments();
    long firstDirty = snapshot.firstDirtyOffset();
    if (firstDirty < snapshot.logStartOffset() || firstDirty > snapshot.logEndOffset()) {
      firstDirty = snapshot.logStartOffset();
    }
    LogConfig config = snapshot.config();
    long minLagMs = config.minCompactionLagMs();
    int active = segments.size() - 1;
    long firstUncleanable = segments.get(active).baseOffset();
    for (int i = 0; i < active; i++) {
      LogSegment segment = segments.get(i);
      long end = segments.get(i + 1).baseOffset();
      boolean dirty = end > firstDirty;
      if (end > snapshot.boundOffset()
          || (dirty && minLagMs > 0 && segment.largestTimestamp() > nowMs - minLagMs)) {
        firstUncleanable = segment.baseOffset();
        break;
      }
    }
    firstUncleanable = Math.max(firstUncleanable, firstDirty);
    long cleanBytes = 0;
    long cleanableBytes = 0;
    long earliestDirtyTimestamp = Long.MAX_VALUE;
    for (int i = 0; i < active; i++) {
      LogSegment segment = segments.get(i);
      long end = segments.get(i + 1).baseOffset();
      if (segment.baseOffset() < firstDirty) {
        cleanBytes += segment.size();
      }
      if (firstUncleanable > firstDirty
          && end > firstDirty
          && segment.baseOffset() < firstUncleanable) {
        cleanableBytes += segment.size();
      }
      if (end > firstDirty && config.maxCompactionLagMs() < Long.MAX_VALUE) {
        long first = segment.firstBatchMaxTimestamp();
        if (first > 0) {
          earliestDirtyTimestamp = Math.min(earliestDirtyTimestamp, first);
        }
      }
    }
    boolean needCompactionNow =
        earliestDirtyTimestamp != Long.MAX_VALUE
            && earliestDirtyTimestamp < nowMs - config.maxCompactionLagMs();
    return new LogToClean(
        log, snapshot, firstDirty, firstUncleanable, cleanBytes, cleanableBytes, needCompactionNow);
  }
}
