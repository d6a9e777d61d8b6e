package dev.tributary.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Retention rules (Kafka's UnifiedLog.deleteOldSegments predicates): which segments {@link
 * PartitionLog#deleteOldSegments} removes. It only decides; the log rolls, moves its start offset
 * and deletes, under its lock.
 */
final class LogRetention {
  private LogRetention() {}

  /**
   * The segments to delete, oldest first, stopping at the first segment to keep: a segment goes if
   * the log start offset is at or past the next segment's base offset, if its largest timestamp is
   * older than now - retention.ms, or if the log would still hold at least retention.bytes without
   * it (Kafka's rule: size - segment >= retention.bytes, so the log keeps between retention.bytes
   * and retention.bytes plus one segment). Time and size apply only when {@code cleanup.policy}
   * includes {@code delete}; a purely compacted log loses segments only below its start offset. An
   * empty active segment is never chosen; a non-empty one may be (the whole log expired), and the
   * caller then rolls first.
   */
  static List<LogSegment> segmentsToDelete(
      LogSegments segments, long logStartOffset, long boundOffset, LogConfig config, long nowMs)
      throws IOException {
    long remainingBytes = segments.sizeInBytes();
    List<LogSegment> deletable = new ArrayList<>();
    for (LogSegment segment : segments.values()) {
      Map.Entry<Long, LogSegment> next = segments.higherEntry(segment.baseOffset());
      if (next == null && segment.isEmpty()) {
        break;
      }
      long segmentEndOffset = next != null ? next.getKey() : segment.nextOffset();
      if (segmentEndOffset > boundOffset) {
        break; // holds records at or above the high watermark, which are not committed yet
      }
      boolean belowStart = next != null && next.getKey() <= logStartOffset;
      boolean expired =
          config.delete()
              && config.retentionMs() >= 0
              && segment.largestTimestamp() < nowMs - config.retentionMs();
      boolean overSize =
          config.delete()
              && config.retentionBytes() >= 0
              && remainingBytes - segment.size() >= config.retentionBytes();
      if (!belowStart && !expired && !overSize) {
        break;
      }
      deletable.add(segment);
      remainingBytes -= segment.size();
    }
    return deletable;
  }
}
