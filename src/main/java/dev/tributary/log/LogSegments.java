package dev.tributary.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The segments of one partition's log, by base offset (Kafka's LogSegments); the last is the active
 * segment.
 *
 * <p>Invariant: never empty while the log is open; segments' offset ranges do not overlap.
 *
 * <p>Thread safety: a concurrent map, so lock-free readers ({@link LogReader}) may look segments up
 * at any time and may find one that has just been removed (its channel is then closed and they
 * retry). Every mutating method is called only under the owning {@link PartitionLog}'s lock.
 */
final class LogSegments {
  private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

  LogSegments(Map<Long, LogSegment> loaded) {
    segments.putAll(loaded);
  }

  void add(LogSegment segment) {
    segments.put(segment.baseOffset(), segment);
  }

  /** The segment appended to. */
  LogSegment active() {
    return segments.lastEntry().getValue();
  }

  /** The segment whose base offset is the greatest <= {@code offset}, or null. */
  Map.Entry<Long, LogSegment> floorEntry(long offset) {
    return segments.floorEntry(offset);
  }

  /** The segment after the one based at {@code baseOffset}, or null. */
  Map.Entry<Long, LogSegment> higherEntry(long baseOffset) {
    return segments.higherEntry(baseOffset);
  }

  /** Oldest first; a weakly consistent view. */
  Collection<LogSegment> values() {
    return segments.values();
  }

  int count() {
    return segments.size();
  }

  /** Bytes in all segments. */
  long sizeInBytes() {
    long total = 0;
    for (LogSegment segment : segments.values()) {
      total += segment.size();
    }
    return total;
  }

  List<Long> baseOffsets() {
    return List.copyOf(segments.keySet());
  }

  /** Removes the segments based after {@code offset} and deletes their files. */
  void deleteAfter(long offset) throws IOException {
    delete(new ArrayList<>(segments.tailMap(offset, false).values()));
  }

  /** Removes {@code segment} from the set (if it is still there), leaving its files alone. */
  void remove(LogSegment segment) {
    segments.remove(segment.baseOffset(), segment);
  }

  /** Removes every segment and deletes its files. */
  void deleteAll() throws IOException {
    delete(new ArrayList<>(segments.values()));
  }

  /**
   * Removes {@code doomed} from the set, then deletes each one's files (readers holding one retry).
   */
  void delete(List<LogSegment> doomed) throws IOException {
    for (LogSegment segment : doomed) {
      segments.remove(segment.baseOffset());
      segment.deleteFiles();
    }
  }

  /** Fsyncs the segment holding {@code offset} and every later one. */
  void flushFrom(long offset) throws IOException {
    Long from = segments.floorKey(offset);
    for (LogSegment segment :
        segments.tailMap(from == null ? segments.firstKey() : from, true).values()) {
      segment.flush();
    }
  }

  /** Closes every segment (see {@link LogSegment#close}); the caller flushes first if it must. */
  void closeAll() throws IOException {
    for (LogSegment segment : segments.values()) {
      segment.close();
    }
  }

  /**
   * Closes every segment's file handles without writing anything (see {@link
   * LogSegment#closeHandlers}).
   */
  void closeHandlers() throws IOException {
    for (LogSegment segment : segments.values()) {
      segment.closeHandlers();
    }
  }

  /** Forgets every segment without touching its files (the log directory is being removed). */
  void clear() {
    segments.clear();
  }
}
