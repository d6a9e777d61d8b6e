package dev.tributary.log;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One partition's log (Kafka's UnifiedLog): a directory {@code <topic>-<partition>} of segments, each {@code
 * <baseOffset, 20 digits>.log} (v2 record batches stored byte for byte as appended), {@code .index} (sparse
 * relative offset int32 to file position int32, one entry per {@code index.interval.bytes}) and {@code .timeindex}
 * (timestamp int64 to relative offset int32). See {@link LogSegment}, {@link OffsetIndex}, {@link TimeIndex}.
 *
 * <p>Invariants (enforced where each field changes; checked by the randomized test after every step):
 *
 * <ul>
 *   <li>first segment's base offset <= logStartOffset <= logEndOffset; logStartOffset never decreases except
 *       through {@link #truncateFullyAndStartAt} (and {@link #truncateTo} below it, which calls it).
 *   <li>recoveryPoint <= logEndOffset; everything below recoveryPoint has been fsynced.
 *   <li>batch offsets strictly increase across the log; segments' ranges do not overlap; only the last segment
 *       (the active one) is appended to.
 * </ul>
 *
 * <p>Concurrency notes:
 *
 * <ol>
 *   <li>Appends, rolls, truncation, retention, flush, close hold {@code lock}; appends to one partition are
 *       serialized, different partitions proceed in parallel. Lock order: partition lock, then a segment's index
 *       monitor. Nothing calls out while holding the lock.
 *   <li>Reads take no lock. They snapshot logStartOffset/logEndOffset (volatile) and read at most a segment's
 *       committed size (volatile, raised after the bytes are written, and the segment size before logEndOffset),
 *       so they never see a half-written batch.
 *   <li>Truncation changes bytes readers may be reading: it runs inside a sequence lock ({@code truncations} is odd
 *       while it runs); a read that overlapped one is retried. A read that hits a segment deleted by retention
 *       (ClosedChannelException) is retried too, and then reports OffsetOutOfRange if its offset is gone.
 *   <li>{@link #offsetForTimestamp} takes the lock (ListOffsets is rare and this keeps it simple).
 * </ol>
 *
 * <p>Durability: an append is written to the file (the OS page cache) before it is acknowledged; it is fsynced when
 * {@code flush.messages} unflushed messages accumulate, when {@code flush.ms} has passed (driven by {@link
 * LogManager#runPeriodicTasks}), at every segment roll (synchronously here; Kafka schedules that flush) and at
 * close. A crash loses what the OS had not written since the last fsync; recovery truncates each recovered segment
 * at its first invalid batch, so what survives is always a prefix of what was appended.
 *
 * <p>Deletion (retention, truncation) renames segment files to {@code .deleted} and deletes them at once; {@code
 * file.delete.delay.ms} is not used because readers retry instead of relying on a grace period.
 */
public final class PartitionLog implements AutoCloseable {
  private static final short TIMESTAMP_TYPE_LOG_APPEND_TIME = 0x08;
  private static final int MAX_READ_ATTEMPTS = 16;

  private final Path dir;
  private final TopicPartition topicPartition;
  private final Time time;
  private volatile LogConfig config;
  private final ReentrantLock lock = new ReentrantLock();
  /** Base offset to segment; the last is the active segment. Invariant: never empty while open. */
  private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

  /** Invariant: first segment base <= logStartOffset <= logEndOffset; moves forward only (see class doc). */
  private volatile long logStartOffset;
  /** The offset the next batch gets; = active segment's nextOffset. Published after the segment's size. */
  private volatile long logEndOffset;
  /** Invariant: logStartOffset <= recoveryPoint <= logEndOffset; everything below it is on disk. */
  private volatile long recoveryPoint;
  /** Sequence lock for readers: odd while a truncation runs. Changed only under {@code lock}. */
  private volatile long truncations;
  private long lastFlushTimeMs;
  private boolean closed;

  private PartitionLog(Path dir, TopicPartition tp, LogConfig config, Time time, LogLoader.Loaded loaded) {
    this.dir = dir;
    this.topicPartition = tp;
    this.config = config;
    this.time = time;
    this.segments.putAll(loaded.segments());
    this.logStartOffset = loaded.logStartOffset();
    this.logEndOffset = loaded.logEndOffset();
    this.recoveryPoint = loaded.recoveryPoint();
    this.lastFlushTimeMs = time.milliseconds();
  }

  /** Opens (creating if needed) the log in {@code dir}, with the log start offset derived from the segments. */
  public static PartitionLog open(
      Path dir, TopicPartition tp, LogConfig config, long recoveryPoint, boolean hadCleanShutdown, Time time) {
    return open(dir, tp, config, recoveryPoint, 0, hadCleanShutdown, time);
  }

  /**
   * Opens the log in {@code dir}, recovering every segment from {@code recoveryPoint} on unless {@code
   * hadCleanShutdown} (see {@link LogLoader}). {@code logStartOffset} comes from the checkpoint; it is raised to the
   * first segment's base offset.
   */
  public static PartitionLog open(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      long recoveryPoint,
      long logStartOffset,
      boolean hadCleanShutdown,
      Time time) {
    try {
      LogLoader.Loaded loaded = LogLoader.load(dir, config, recoveryPoint, logStartOffset, hadCleanShutdown);
      return new PartitionLog(dir, tp, config, time, loaded);
    } catch (IOException e) {
      throw new LogStorageException("failed to load log " + tp + " from " + dir, e);
    }
  }

  /**
   * Appends a produce request: validates every batch first (a rejected request changes nothing), then assigns
   * offsets from the log end offset and stamps {@code leaderEpoch} in place (both outside the CRC); for
   * LogAppendTime topics it sets the max timestamp and timestamp type and recomputes the CRC.
   *
   * @throws CorruptRecordException bad framing, magic, CRC or record count
   * @throws RecordTooLargeException a batch larger than max.message.bytes
   */
  public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch) {
    LogConfig config = this.config;
    ByteBuffer records = batches.duplicate();
    AppendValidator.Summary summary = AppendValidator.validateForLeader(records, config.maxMessageBytes());
    lock.lock();
    try {
      ensureOpen();
      long nowMs = time.milliseconds();
      boolean logAppendTime = config.messageTimestampType() == TimestampType.LOG_APPEND_TIME;
      long firstOffset = logEndOffset;
      long offset = firstOffset;
      for (int at = records.position(); at < records.limit(); ) {
        RecordBatch batch = new RecordBatch(records, at);
        batch.setBaseOffset(offset);
        batch.setPartitionLeaderEpoch(leaderEpoch);
        if (logAppendTime) {
          stampLogAppendTime(records, batch, nowMs);
        }
        offset = batch.nextOffset();
        at += batch.sizeInBytes();
      }
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
    } finally {
      lock.unlock();
    }
  }

  /**
   * Appends batches fetched from the leader, keeping their offsets, epochs and timestamps.
   *
   * @throws InvalidOffsetException if the first batch does not start at the log end offset or the batches are not
   *     contiguous
   * @throws CorruptRecordException bad framing, magic or CRC
   */
  public LogAppendInfo appendAsFollower(ByteBuffer batches) {
    ByteBuffer records = batches.duplicate();
    AppendValidator.Summary summary = AppendValidator.validateForFollower(records);
    lock.lock();
    try {
      ensureOpen();
      if (summary.firstOffset() != logEndOffset) {
        throw new InvalidOffsetException(
            "follower append to " + topicPartition + " starts at " + summary.firstOffset()
                + " but the log end offset is " + logEndOffset);
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
    } finally {
      lock.unlock();
    }
  }

  private static void stampLogAppendTime(ByteBuffer buffer, RecordBatch batch, long nowMs) {
    int start = batch.start();
    short attributes = (short) (batch.attributes() | TIMESTAMP_TYPE_LOG_APPEND_TIME);
    buffer.putShort(start + RecordBatch.ATTRIBUTES_OFFSET, attributes);
    buffer.putLong(start + RecordBatch.MAX_TIMESTAMP_OFFSET, nowMs);
    buffer.putInt(start + RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
  }

  /** Writes offset-assigned batches to the active segment (rolling first if needed); caller holds the lock. */
  private void appendLocked(ByteBuffer records, long lastOffset, long nowMs) {
    LogSegment segment = maybeRoll(records.remaining(), lastOffset, nowMs);
    int sizeBefore = segment.size();
    try {
      segment.append(records, nowMs);
    } catch (IOException e) {
      try {
        segment.truncateToSize(sizeBefore);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new LogStorageException("append to " + topicPartition + " failed", e);
    }
    updateLogEndOffset(lastOffset + 1);
    if (logEndOffset - recoveryPoint >= config.flushMessages()) {
      flushLocked(nowMs);
    }
  }

  /** The only writer of logEndOffset; it must move forward except under truncation. */
  private void updateLogEndOffset(long offset) {
    if (offset < logEndOffset && (truncations & 1) == 0) {
      throw new IllegalStateException("log end offset would go back from " + logEndOffset + " to " + offset);
    }
    logEndOffset = offset;
    if (recoveryPoint > offset) {
      recoveryPoint = offset;
    }
  }

  private LogSegment maybeRoll(int messagesSize, long maxOffset, long nowMs) {
    LogSegment active = segments.lastEntry().getValue();
    return active.shouldRoll(messagesSize, maxOffset, nowMs, config) ? roll(nowMs) : active;
  }

  /**
   * Starts a new active segment at the log end offset. The previous one gets its final time index entry and is
   * fsynced synchronously (Kafka schedules that flush), so the recovery point moves to the new base offset.
   */
  private LogSegment roll(long nowMs) {
    LogSegment previous = segments.lastEntry().getValue();
    long newBaseOffset = logEndOffset;
    try {
      previous.onBecomeInactiveSegment();
      previous.flush();
      LogSegment segment = LogSegment.create(dir, newBaseOffset, config);
      segments.put(newBaseOffset, segment);
      FileIo.fsyncDirectory(dir);
      recoveryPoint = newBaseOffset;
      lastFlushTimeMs = nowMs;
      return segment;
    } catch (IOException e) {
      throw new LogStorageException("failed to roll " + topicPartition + " at " + newBaseOffset, e);
    }
  }

  /**
   * Whole batches from the batch holding {@code startOffset}: at most {@code maxBytes} (at least one whole batch if
   * {@code minOneBatch}), only batches with last offset < {@code maxOffset} (the high watermark), from one segment.
   * Empty when {@code startOffset} is the log end offset or >= {@code maxOffset}.
   *
   * @throws OffsetOutOfRangeException if startOffset is outside [logStartOffset, logEndOffset]
   */
  public LogReadInfo read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) {
    for (int attempt = 1; ; attempt++) {
      long sequence = truncations;
      if ((sequence & 1) != 0) {
        lock.lock(); // a truncation is running: wait for it
        lock.unlock();
        continue;
      }
      long start = logStartOffset;
      long end = logEndOffset;
      if (startOffset < start || startOffset > end) {
        throw new OffsetOutOfRangeException(
            "offset " + startOffset + " is out of range for " + topicPartition + ": valid offsets are [" + start
                + ", " + end + "]");
      }
      if (startOffset == end || startOffset >= maxOffset) {
        return new LogReadInfo(ByteBuffer.allocate(0), start, end);
      }
      try {
        ByteBuffer records = readSegments(startOffset, maxBytes, Math.min(maxOffset, end), minOneBatch);
        if (records != null && truncations == sequence) {
          return new LogReadInfo(records, start, end);
        }
      } catch (ClosedChannelException e) {
        // The segment was deleted or the log closed under us: retry, which re-checks the range.
      } catch (IOException | CorruptRecordException e) {
        if (truncations == sequence) {
          throw e instanceof IOException io ? new LogStorageException("read of " + topicPartition + " failed", io)
              : (CorruptRecordException) e;
        }
      }
      if (attempt >= MAX_READ_ATTEMPTS) {
        throw new LogStorageException("read of " + topicPartition + " kept racing with deletion", null);
      }
    }
  }

  /** Null when the segment holding startOffset has gone (deleted under us); the caller retries. */
  private ByteBuffer readSegments(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
      throws IOException {
    Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
    if (entry == null) {
      return null;
    }
    while (entry != null) {
      ByteBuffer records = entry.getValue().read(startOffset, maxBytes, maxOffset, minOneBatch);
      if (records != null) {
        return records;
      }
      entry = segments.higherEntry(entry.getKey());
    }
    return ByteBuffer.allocate(0);
  }

  /**
   * The first offset whose record timestamp is >= {@code targetTimestampMs} (ListOffsets), with that record's
   * timestamp; empty if no record is that recent. The special targets are handled here too: {@code -2} (earliest)
   * answers the log start offset, {@code -1} (latest) the log end offset, both with timestamp -1. The caller bounds
   * the answer by the high watermark if it must.
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(long targetTimestampMs) {
    lock.lock();
    try {
      ensureOpen();
      if (targetTimestampMs == -2) {
        return Optional.of(new TimestampAndOffset(-1, logStartOffset, RecordBatch.NO_PARTITION_LEADER_EPOCH));
      }
      if (targetTimestampMs == -1) {
        return Optional.of(new TimestampAndOffset(-1, logEndOffset, RecordBatch.NO_PARTITION_LEADER_EPOCH));
      }
      if (targetTimestampMs < 0) {
        throw new IllegalArgumentException("unsupported target timestamp " + targetTimestampMs);
      }
      for (LogSegment segment : segments.values()) {
        if (segment.maxTimestampSoFar() >= targetTimestampMs) {
          Optional<TimestampAndOffset> found = segment.findOffsetByTimestamp(targetTimestampMs, logStartOffset);
          if (found.isPresent()) {
            return found;
          }
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new LogStorageException("offset lookup in " + topicPartition + " failed", e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes everything at and after {@code offset} (replication truncation). Truncation is at batch boundaries: if
   * {@code offset} falls inside a batch, that whole batch goes and the log end offset ends below {@code offset}.
   * Below the log start offset this is {@link #truncateFullyAndStartAt}.
   */
  public void truncateTo(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("cannot truncate to negative offset " + offset);
    }
    lock.lock();
    try {
      ensureOpen();
      if (offset >= logEndOffset) {
        return;
      }
      if (offset < logStartOffset) {
        truncateFullyLocked(offset);
        return;
      }
      truncations++;
      try {
        for (LogSegment segment : new ArrayList<>(segments.tailMap(offset, false).values())) {
          segments.remove(segment.baseOffset());
          segment.deleteFiles();
        }
        LogSegment active = segments.lastEntry().getValue();
        active.truncateTo(offset);
        updateLogEndOffset(active.nextOffset());
      } catch (IOException e) {
        throw new LogStorageException("truncation of " + topicPartition + " to " + offset + " failed", e);
      } finally {
        truncations++;
      }
      if (logEndOffset < logStartOffset) {
        truncateFullyLocked(offset); // the batch holding logStartOffset straddled offset
      }
    } finally {
      lock.unlock();
    }
  }

  /** Deletes every segment and starts an empty log at {@code offset}: start, end and recovery point all become it. */
  public void truncateFullyAndStartAt(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("cannot start at negative offset " + offset);
    }
    lock.lock();
    try {
      ensureOpen();
      truncateFullyLocked(offset);
    } finally {
      lock.unlock();
    }
  }

  private void truncateFullyLocked(long offset) {
    truncations++;
    try {
      for (LogSegment segment : new ArrayList<>(segments.values())) {
        segments.remove(segment.baseOffset());
        segment.deleteFiles();
      }
      segments.put(offset, LogSegment.create(dir, offset, config));
      logEndOffset = offset;
      logStartOffset = offset;
      recoveryPoint = offset;
    } catch (IOException e) {
      throw new LogStorageException("full truncation of " + topicPartition + " failed", e);
    } finally {
      truncations++;
    }
  }

  /**
   * Raises the log start offset (DeleteRecords, or a leader's start offset seen by a follower). Segments wholly below
   * it are deleted by the next {@link #deleteOldSegments}.
   *
   * @return true if it moved
   * @throws OffsetOutOfRangeException if {@code newLogStartOffset} is beyond the log end offset
   */
  public boolean maybeIncrementLogStartOffset(long newLogStartOffset) {
    lock.lock();
    try {
      ensureOpen();
      if (newLogStartOffset > logEndOffset) {
        throw new OffsetOutOfRangeException(
            "cannot move the log start offset of " + topicPartition + " to " + newLogStartOffset
                + ": beyond the log end offset " + logEndOffset);
      }
      if (newLogStartOffset <= logStartOffset) {
        return false;
      }
      logStartOffset = newLogStartOffset;
      if (recoveryPoint < newLogStartOffset) {
        recoveryPoint = newLogStartOffset; // data below the start no longer needs recovery
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies retention, oldest segment first, stopping at the first segment to keep: a segment goes if the log start
   * offset is past it, if its largest timestamp is older than now - retention.ms, or if the log would still hold
   * at least retention.bytes without it (Kafka's rule: size - segment >= retention.bytes, so the log keeps between
   * retention.bytes and retention.bytes plus one segment). When the active segment
   * itself must go (the whole log expired), the log first rolls an empty segment, as Kafka does. The log start
   * offset moves to the first remaining segment's base offset (never backwards).
   *
   * @return segments deleted
   */
  public int deleteOldSegments() {
    lock.lock();
    try {
      ensureOpen();
      LogConfig config = this.config;
      long nowMs = time.milliseconds();
      long remainingBytes = size();
      List<LogSegment> deletable = new ArrayList<>();
      for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
        LogSegment segment = entry.getValue();
        Map.Entry<Long, LogSegment> next = segments.higherEntry(entry.getKey());
        if (next == null && segment.isEmpty()) {
          break;
        }
        boolean belowStart = next != null && next.getKey() <= logStartOffset;
        boolean expired =
            config.retentionMs() >= 0 && segment.largestTimestamp() < nowMs - config.retentionMs();
        boolean overSize =
            config.retentionBytes() >= 0 && remainingBytes - segment.size() >= config.retentionBytes();
        if (!belowStart && !expired && !overSize) {
          break;
        }
        deletable.add(segment);
        remainingBytes -= segment.size();
      }
      if (deletable.isEmpty()) {
        return 0;
      }
      if (deletable.get(deletable.size() - 1) == segments.lastEntry().getValue()) {
        roll(nowMs);
      }
      long newStart = segments.higherKey(deletable.get(deletable.size() - 1).baseOffset());
      if (newStart > logStartOffset) {
        logStartOffset = newStart;
      }
      if (recoveryPoint < logStartOffset) {
        recoveryPoint = logStartOffset;
      }
      for (LogSegment segment : deletable) {
        segments.remove(segment.baseOffset());
        segment.deleteFiles();
      }
      return deletable.size();
    } catch (IOException e) {
      throw new LogStorageException("retention of " + topicPartition + " failed", e);
    } finally {
      lock.unlock();
    }
  }

  /** Fsyncs every segment up to the log end offset and moves the recovery point there. */
  public void flush() {
    lock.lock();
    try {
      ensureOpen();
      flushLocked(time.milliseconds());
    } finally {
      lock.unlock();
    }
  }

  /** Flushes if {@code flush.ms} has passed since the last flush; returns whether it did. */
  public boolean maybeFlushByTime() {
    lock.lock();
    try {
      if (closed || time.milliseconds() - lastFlushTimeMs < config.flushMs()) {
        return false;
      }
      flushLocked(time.milliseconds());
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void flushLocked(long nowMs) {
    long upTo = logEndOffset;
    if (upTo > recoveryPoint) {
      Long from = segments.floorKey(recoveryPoint);
      try {
        for (LogSegment segment : segments.tailMap(from == null ? segments.firstKey() : from, true).values()) {
          segment.flush();
        }
      } catch (IOException e) {
        throw new LogStorageException("flush of " + topicPartition + " failed", e);
      }
      recoveryPoint = upTo;
    }
    lastFlushTimeMs = nowMs;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long logEndOffset() {
    return logEndOffset;
  }

  public long recoveryPoint() {
    return recoveryPoint;
  }

  /** Bytes in all segments. */
  public long size() {
    long total = 0;
    for (LogSegment segment : segments.values()) {
      total += segment.size();
    }
    return total;
  }

  public int numberOfSegments() {
    return segments.size();
  }

  /** Base offsets of the segments, oldest first (for tests, tools and the dashboard). */
  public List<Long> segmentBaseOffsets() {
    return List.copyOf(segments.keySet());
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

  /** Takes effect for the next append, roll and retention; existing segments keep their index sizes. */
  public void updateConfig(LogConfig config) {
    this.config = config;
  }

  /** Flushes and closes the files; the log cannot be used afterwards. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      flushLocked(time.milliseconds());
      closed = true;
      for (LogSegment segment : segments.values()) {
        segment.close();
      }
    } catch (IOException e) {
      throw new LogStorageException("close of " + topicPartition + " failed", e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes the file handles without flushing or writing final index entries (Kafka's closeHandlers: the directory
   * went offline). Tests use it to simulate a crash. Idempotent.
   */
  void closeHandlers() {
    lock.lock();
    try {
      closed = true;
      for (LogSegment segment : segments.values()) {
        segment.closeHandlers();
      }
    } catch (IOException e) {
      throw new LogStorageException("closing handles of " + topicPartition + " failed", e);
    } finally {
      lock.unlock();
    }
  }

  /** Closes the files without flushing and removes the directory. */
  public void delete() {
    lock.lock();
    try {
      closed = true;
      for (LogSegment segment : segments.values()) {
        segment.close();
      }
      segments.clear();
      FileIo.deleteRecursively(dir);
    } catch (IOException e) {
      throw new LogStorageException("delete of " + topicPartition + " failed", e);
    } finally {
      lock.unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("log " + topicPartition + " is closed");
    }
  }

  /** One status line: {@code orders-3 start=0 end=120 recovery=100 segments=3 bytes=40960}. */
  @Override
  public String toString() {
    return topicPartition + " start=" + logStartOffset + " end=" + logEndOffset + " recovery=" + recoveryPoint
        + " segments=" + segments.size();
  }
}
