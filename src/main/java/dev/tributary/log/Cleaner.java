package dev.tributary.log;

import dev.tributary.common.Time;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One cleaning pass over one compacted log (Kafka's Cleaner.doClean). It does no locking of its own
 * and never holds the log's lock while it reads or writes; the log takes it only to swap.
 *
 * <ol>
 *   <li><b>Offset map.</b> Reads the dirty range [firstDirtyOffset, firstUncleanableOffset) and
 *       maps each key to the offset of its latest record. If the map reaches {@code
 *       offsetMapMaxKeys} it stops after the current batch: the pass then ends there ({@code
 *       endOffset}) and the next pass continues.
 *   <li><b>Groups.</b> Every inactive segment from the start of the log up to {@code endOffset} is
 *       rewritten, several small consecutive ones into one when together they fit segment.bytes,
 *       segment.index.bytes and int32 relative offsets (Kafka's groupSegmentsBySize). A group never
 *       mixes segments below firstDirtyOffset ("clean") with dirty ones, so that a tombstone's
 *       clock is not restarted by merging it with new data.
 *   <li><b>Filter.</b> A record survives unless a later record has its key (per the map), it has no
 *       key, or it is a tombstone (null value) in a clean segment whose modification time is more
 *       than delete.retention.ms ago. A segment that passes its first cleaning (a dirty group) gets
 *       the cleaning time as its modification time; clean groups keep the latest of theirs. So a
 *       tombstone survives at least one pass plus delete.retention.ms. A batch whose records all
 *       survive is copied byte for byte; one that lost some is rebuilt with the same base offset
 *       and last offset delta ({@link RecordBatchBuilder#rebuild}); an empty one is dropped.
 *       Control batches are copied as they are.
 *   <li><b>Swap.</b> The group's output, written to {@code .cleaned} files with fresh indexes and
 *       fsynced, replaces the group through {@link LogCleaning#replaceSegments}. A single segment
 *       that loses nothing is left alone.
 * </ol>
 *
 * <p>Reads and writes go through the {@link Throttler}; waiting is the caller's {@link
 * LogCleaner.Sleeper}.
 */
final class Cleaner {
  private static final System.Logger LOG = System.getLogger(Cleaner.class.getName());

  /** The cleaner is shutting down; the pass was abandoned and its output deleted. */
  static final class StoppedException extends RuntimeException {
    StoppedException() {
      super("the log cleaner is shutting down", null, false, false);
    }
  }

  /**
   * What a pass did.
   *
   * @param completed every group was handled; false if the log changed under the cleaner (a
   *     truncation, retention, or it was closed) and a group was abandoned
   * @param endOffset where the pass's offset map ended: the new first dirty offset if completed
   */
  record Result(
      boolean completed,
      long endOffset,
      int segmentsReplaced,
      long recordsRemoved,
      long bytesRead,
      long bytesWritten) {}

  private final LogCleaner.Config config;
  private final Time time;
  private final Throttler throttler;
  private final LogCleaner.Sleeper sleeper;
  private final BooleanSupplier stopRequested;

  private long bytesRead;
  private long bytesWritten;
  private long recordsRemoved;

  Cleaner(
      LogCleaner.Config config,
      Time time,
      LogCleaner.Sleeper sleeper,
      BooleanSupplier stopRequested) {
    this.config = config;
    this.time = time;
    this.throttler = new Throttler(config.ioMaxBytesPerSecond(), time);
    this.sleeper = sleeper;
    this.stopRequested = stopRequested;
  }

  Result clean(LogToClean toClean, LocalLog.SwapObserver observer)
      throws IOException, InterruptedException {
    bytesRead = 0;
    bytesWritten = 0;
    recordsRemoved = 0;
    CleanerSnapshot snapshot = toClean.snapshot();
    List<LogSegment> segments = snapshot.segments();
    Map<ByteBuffer, Long> offsetMap = new HashMap<>();
    long endOffset = buildOffsetMap(toClean, offsetMap);
    long nowMs = time.milliseconds();
    int replaced = 0;
    for (List<LogSegment> group :
        groups(segments, toClean.firstDirtyOffset(), endOffset, snapshot)) {
      boolean dirty =
          nextBaseOffset(segments, group.get(group.size() - 1)) > toClean.firstDirtyOffset();
      Outcome outcome =
          cleanGroup(toClean.log(), snapshot, group, dirty, offsetMap, nowMs, observer);
      if (outcome == Outcome.ABANDONED) {
        return new Result(false, endOffset, replaced, recordsRemoved, bytesRead, bytesWritten);
      }
      if (outcome == Outcome.REPLACED) {
        replaced += group.size();
      }
    }
    return new Result(true, endOffset, replaced, recordsRemoved, bytesRead, bytesWritten);
  }

  /** Fills {@code offsetMap} from the dirty range; returns the offset it got to. */
  private long buildOffsetMap(LogToClean toClean, Map<ByteBuffer, Long> offsetMap)
      throws IOException, InterruptedException {
    List<LogSegment> segments = toClean.snapshot().segments();
    long firstDirty = toClean.firstDirtyOffset();
    long firstUncleanable = toClean.firstUncleanableOffset();
    for (int i = 0; i < segments.size() - 1; i++) {
      LogSegment segment = segments.get(i);
      if (segment.baseOffset() >= firstUncleanable) {
        break;
      }
      if (segments.get(i + 1).baseOffset() <= firstDirty) {
        continue;
      }
      int position =
          segment.baseOffset() < firstDirty
              ? segment.offsetIndex().lookup(firstDirty).position()
              : 0;
      ByteBuffer chunk;
      while ((chunk = segment.readChunk(position, config.ioBufferBytes())).hasRemaining()) {
        position += chunk.remaining();
        for (RecordBatch batch : BatchIterator.strict(chunk)) {
          throttle(batch.sizeInBytes());
          bytesRead += batch.sizeInBytes();
          if (batch.lastOffset() < firstDirty) {
            continue;
          }
          batch.validate();
          if (!batch.isControlBatch()) {
            for (Record record : batch.records()) {
              if (record.offset() >= firstDirty && record.key() != null) {
                offsetMap.put(ByteBuffer.wrap(record.keyBytes()), record.offset());
              }
            }
          }
          if (offsetMap.size() >= config.offsetMapMaxKeys()) {
            LOG.log(
                System.Logger.Level.INFO,
                "offset map of {0} is full at {1} keys; cleaning up to offset {2} this pass",
                toClean.log().topicPartition(),
                offsetMap.size(),
                batch.nextOffset());
            return Math.min(batch.nextOffset(), firstUncleanable);
          }
        }
      }
    }
    return firstUncleanable;
  }

  /**
   * The inactive segments based below {@code endOffset}, in consecutive groups that fit one segment
   * and never mix clean and dirty segments.
   */
  private static List<List<LogSegment>> groups(
      List<LogSegment> segments, long firstDirty, long endOffset, CleanerSnapshot snapshot) {
    LogConfig logConfig = snapshot.config();
    List<List<LogSegment>> groups = new ArrayList<>();
    List<LogSegment> current = new ArrayList<>();
    long logBytes = 0;
    long offsetIndexBytes = 0;
    long timeIndexBytes = 0;
    boolean currentDirty = false;
    for (int i = 0; i < segments.size() - 1 && segments.get(i).baseOffset() < endOffset; i++) {
      LogSegment segment = segments.get(i);
      long next = segments.get(i + 1).baseOffset();
      boolean dirty = next > firstDirty;
      if (!current.isEmpty()
          && (dirty != currentDirty
              || logBytes + segment.size() > logConfig.segmentBytes()
              || offsetIndexBytes + segment.offsetIndex().sizeInBytes()
                  > logConfig.segmentIndexBytes()
              || timeIndexBytes + segment.timeIndex().sizeInBytes() > logConfig.segmentIndexBytes()
              || next - 1 - current.get(0).baseOffset() > Integer.MAX_VALUE)) {
        groups.add(current);
        current = new ArrayList<>();
        logBytes = 0;
        offsetIndexBytes = 0;
        timeIndexBytes = 0;
      }
      current.add(segment);
      currentDirty = dirty;
      logBytes += segment.size();
      offsetIndexBytes += segment.offsetIndex().sizeInBytes();
      timeIndexBytes += segment.timeIndex().sizeInBytes();
    }
    if (!current.isEmpty()) {
      groups.add(current);
    }
    return groups;
  }

  private static long nextBaseOffset(List<LogSegment> segments, LogSegment segment) {
    return segments.get(segments.indexOf(segment) + 1).baseOffset();
  }

  private enum Outcome {
    /** The group was rewritten and swapped in. */
    REPLACED,
    /** A single segment with nothing to remove: left as it is. */
    UNCHANGED,
    /** The log changed under the cleaner; the output was deleted. */
    ABANDONED
  }

  private Outcome cleanGroup(
      PartitionLog log,
      CleanerSnapshot snapshot,
      List<LogSegment> group,
      boolean dirty,
      Map<ByteBuffer, Long> offsetMap,
      long nowMs,
      LocalLog.SwapObserver observer)
      throws IOException, InterruptedException {
    LogConfig logConfig = snapshot.config();
    long deleteHorizonMs = nowMs - logConfig.deleteRetentionMs();
    LogSegment cleaned = LogSegment.createCleaned(log.dir(), group.get(0).baseOffset(), logConfig);
    try {
      long removedBefore = recordsRemoved;
      long lastModifiedMs = 0;
      Output output = new Output(cleaned, config.ioBufferBytes(), nowMs);
      for (LogSegment segment : group) {
        long segmentModifiedMs = segment.lastModifiedMs();
        lastModifiedMs = Math.max(lastModifiedMs, segmentModifiedMs);
        boolean retainDeletes = dirty || segmentModifiedMs > deleteHorizonMs;
        int position = 0;
        ByteBuffer chunk;
        while ((chunk = segment.readChunk(position, config.ioBufferBytes())).hasRemaining()) {
          position += chunk.remaining();
          for (RecordBatch batch : BatchIterator.strict(chunk)) {
            throttle(batch.sizeInBytes());
            bytesRead += batch.sizeInBytes();
            batch.validate();
            output.add(filter(batch, offsetMap, retainDeletes));
          }
        }
      }
      boolean removedAny = recordsRemoved > removedBefore;
      if (!removedAny && group.size() == 1) {
        cleaned.closeAndDeleteFiles();
        if (dirty) {
          group.get(0).setLastModifiedMs(nowMs); // starts the clock of its tombstones
        }
        return Outcome.UNCHANGED;
      }
      output.flush();
      cleaned.onBecomeInactiveSegment();
      cleaned.flush();
      cleaned.setLastModifiedMs(dirty ? nowMs : lastModifiedMs);
      observer.afterStep("cleaned written");
      if (!log.cleaning().replaceSegments(group, cleaned, snapshot.truncationCount(), observer)) {
        cleaned.closeAndDeleteFiles();
        return Outcome.ABANDONED;
      }
      return Outcome.REPLACED;
    } catch (IOException | RuntimeException | InterruptedException e) {
      try {
        cleaned.closeAndDeleteFiles();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** The batch as it survives: itself, a rebuilt batch, or null when nothing survives. */
  private ByteBuffer filter(
      RecordBatch batch, Map<ByteBuffer, Long> offsetMap, boolean retainDeletes) {
    if (batch.isControlBatch()) {
      return batch.slice();
    }
    List<Record> records = batch.records();
    List<Record> retained = new ArrayList<>(records.size());
    for (Record record : records) {
      if (shouldRetain(record, offsetMap, retainDeletes)) {
        retained.add(record);
      }
    }
    recordsRemoved += records.size() - retained.size();
    if (retained.size() == records.size()) {
      return batch.slice();
    }
    return retained.isEmpty() ? null : RecordBatchBuilder.rebuild(batch, retained);
  }

  /** Kafka's shouldRetainRecord, without transactions. */
  private static boolean shouldRetain(
      Record record, Map<ByteBuffer, Long> offsetMap, boolean retainDeletes) {
    if (record.key() == null) {
      return false; // cannot be compacted; Kafka's cleaner drops these too
    }
    Long latest = offsetMap.get(record.key());
    if (latest != null && record.offset() < latest) {
      return false;
    }
    return record.value() != null || retainDeletes;
  }

  private void throttle(long bytes) throws InterruptedException {
    if (stopRequested.getAsBoolean()) {
      throw new StoppedException();
    }
    long delayMs = throttler.delayMsFor(bytes);
    if (delayMs > 0) {
      sleeper.sleep(delayMs);
    }
  }

  /** Buffers surviving batches and appends them to the cleaned segment a buffer at a time. */
  private final class Output {
    private final LogSegment segment;
    private final ByteBuffer buffer;
    private final long nowMs;

    Output(LogSegment segment, int bufferBytes, long nowMs) {
      this.segment = segment;
      this.buffer = ByteBuffer.allocate(bufferBytes);
      this.nowMs = nowMs;
    }

    void add(ByteBuffer batch) throws IOException, InterruptedException {
      if (batch == null) {
        return;
      }
      if (batch.remaining() > buffer.remaining()) {
        flush();
      }
      if (batch.remaining() > buffer.capacity()) {
        write(batch);
      } else {
        buffer.put(batch.duplicate());
      }
    }

    void flush() throws IOException, InterruptedException {
      if (buffer.position() > 0) {
        write(buffer.flip());
        buffer.clear();
      }
    }

    private void write(ByteBuffer batches) throws IOException, InterruptedException {
      int bytes = batches.remaining();
      throttle(bytes);
      segment.append(batches, nowMs);
      bytesWritten += bytes;
    }
  }
}
