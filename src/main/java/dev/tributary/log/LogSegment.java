package dev.tributary.log;

import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One segment of a partition log: {@code <baseOffset>.log} holding whole v2 batches back to back,
 * with its sparse {@code .index} ({@link OffsetIndex}) and {@code .timeindex} ({@link TimeIndex}).
 * File names are the base offset zero-padded to 20 digits, as in Kafka.
 *
 * <p>Invariants: bytes [0, size) of the log file are whole batches with strictly increasing
 * offsets, all >= baseOffset and within baseOffset + Integer.MAX_VALUE (relative offsets are
 * int32); every index entry points into [0, size).
 *
 * <p>Concurrency: mutations ({@code append}, {@code truncateTo}, {@code recover}, {@code close})
 * run under the owning {@link PartitionLog}'s lock. Reads run without it: {@link #size} is volatile
 * and is raised only after the bytes it covers are written, so a reader bounded by it never sees a
 * half-written batch. Truncation and deletion are made safe for readers by the partition log (a
 * sequence check and a retry), not here.
 */
final class LogSegment implements AutoCloseable {
  static final String LOG_SUFFIX = ".log";
  static final String INDEX_SUFFIX = ".index";
  static final String TIME_INDEX_SUFFIX = ".timeindex";
  static final String DELETED_SUFFIX = ".deleted";

  /** The cleaner's output while it is written ({@link LogCleaner}); deleted at load. */
  static final String CLEANED_SUFFIX = ".cleaned";

  /** Cleaner output ready to replace the segments it was cleaned from; completed at load. */
  static final String SWAP_SUFFIX = ".swap";

  private final long baseOffset;

  /** Changes only by {@link #changeFileSuffixes}, under the partition lock. */
  private volatile Path logFile;

  private final FileChannel channel;
  private final OffsetIndex offsetIndex;
  private final TimeIndex timeIndex;
  private final int indexIntervalBytes;

  /**
   * Committed bytes. Invariant: raised only after the bytes are in the file; lowered only by
   * truncation.
   */
  private volatile int size;

  /** The offset after the last batch, or baseOffset when empty. Guarded by the partition lock. */
  private long nextOffset;

  private int bytesSinceLastIndexEntry;

  /**
   * Largest batch max timestamp in the segment, -1 when none; with the base offset of the first
   * batch to reach it.
   */
  private volatile long maxTimestampSoFar = -1;

  private long offsetOfMaxTimestampSoFar;

  /**
   * What {@code segment.ms} is measured from: the broker time of the first append, or after a
   * restart the first batch's max timestamp (the best record of when it was written); -1 while
   * empty.
   */
  private long rollingBasedTimestampMs = -1;

  private LogSegment(Path dir, long baseOffset, LogConfig config, String fileSuffix)
      throws IOException {
    this.baseOffset = baseOffset;
    String name = fileName(baseOffset);
    this.logFile = dir.resolve(name + LOG_SUFFIX + fileSuffix);
    this.channel =
        FileIo.open(
            logFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    this.offsetIndex =
        new OffsetIndex(
            dir.resolve(name + INDEX_SUFFIX + fileSuffix), baseOffset, config.segmentIndexBytes());
    this.timeIndex =
        new TimeIndex(
            dir.resolve(name + TIME_INDEX_SUFFIX + fileSuffix),
            baseOffset,
            config.segmentIndexBytes());
    this.indexIntervalBytes = config.indexIntervalBytes();
    this.size = (int) Math.min(channel.size(), Integer.MAX_VALUE);
    this.nextOffset = baseOffset;
    this.offsetOfMaxTimestampSoFar = baseOffset;
  }

  /**
   * A new, empty segment; stale files of the same name (left by an earlier truncation) are removed
   * first.
   */
  static LogSegment create(Path dir, long baseOffset, LogConfig config) throws IOException {
    String name = fileName(baseOffset);
    for (String suffix : new String[] {LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX}) {
      Files.deleteIfExists(dir.resolve(name + suffix));
    }
    return new LogSegment(dir, baseOffset, config, "");
  }

  /**
   * A new, empty segment for the cleaner to write, its files named {@code <base>.log.cleaned} (and
   * {@code .index.cleaned}, {@code .timeindex.cleaned}); stale ones are removed first.
   */
  static LogSegment createCleaned(Path dir, long baseOffset, LogConfig config) throws IOException {
    String name = fileName(baseOffset);
    for (String suffix : new String[] {LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX}) {
      Files.deleteIfExists(dir.resolve(name + suffix + CLEANED_SUFFIX));
    }
    return new LogSegment(dir, baseOffset, config, CLEANED_SUFFIX);
  }

  /**
   * Opens existing files without validating batches: the caller must then run {@link
   * #loadTailState} (trusting the file) or {@link #recover} (validating it).
   */
  static LogSegment open(Path dir, long baseOffset, LogConfig config) throws IOException {
    return new LogSegment(dir, baseOffset, config, "");
  }

  /** {@code 00000000000000000042} for offset 42. */
  static String fileName(long offset) {
    return String.format("%020d", offset);
  }

  long baseOffset() {
    return baseOffset;
  }

  int size() {
    return size;
  }

  long nextOffset() {
    return nextOffset;
  }

  boolean isEmpty() {
    return size == 0;
  }

  OffsetIndex offsetIndex() {
    return offsetIndex;
  }

  TimeIndex timeIndex() {
    return timeIndex;
  }

  Path logFile() {
    return logFile;
  }

  /** The log file's channel, for {@link LogFileSlice}s; only this class writes or closes it. */
  FileChannel channel() {
    return channel;
  }

  long maxTimestampSoFar() {
    return maxTimestampSoFar;
  }

  /**
   * For retention: the largest record timestamp, or the file's modification time when no batch has
   * one.
   */
  long largestTimestamp() throws IOException {
    long max = maxTimestampSoFar;
    return max >= 0 ? max : Files.getLastModifiedTime(logFile).toMillis();
  }

  /**
   * The log file's modification time. The cleaner sets it when a segment first passes a cleaning
   * (see {@link #setLastModifiedMs}); tombstones are kept for delete.retention.ms after it.
   */
  long lastModifiedMs() throws IOException {
    return Files.getLastModifiedTime(logFile).toMillis();
  }

  void setLastModifiedMs(long timeMs) throws IOException {
    Files.setLastModifiedTime(logFile, java.nio.file.attribute.FileTime.fromMillis(timeMs));
  }

  /** The max timestamp of the first batch, or -1 when empty (max.compaction.lag.ms uses it). */
  long firstBatchMaxTimestamp() throws IOException {
    if (size < RecordBatch.HEADER_SIZE) {
      return -1;
    }
    return new RecordBatch(FileIo.readFully(channel, 0, RecordBatch.HEADER_SIZE), 0).maxTimestamp();
  }

  /**
   * Whole batches from {@code position} (a batch start), about {@code maxBytes} of them but at
   * least one whole batch; empty at the committed end. The cleaner reads a segment with this, one
   * positional read per chunk.
   */
  ByteBuffer readChunk(int position, int maxBytes) throws IOException {
    int maxPosition = size;
    if (maxPosition - position < RecordBatch.HEADER_SIZE) {
      return ByteBuffer.allocate(0);
    }
    int first =
        new RecordBatch(FileIo.readFully(channel, position, RecordBatch.HEADER_SIZE), 0)
            .sizeInBytes();
    if (first < RecordBatch.HEADER_SIZE || first > maxPosition - position) {
      throw new CorruptRecordException(
          "batch at position " + position + " of " + logFile + " has a bad length");
    }
    ByteBuffer chunk =
        FileIo.readFully(
            channel, position, Math.max(first, Math.min(maxBytes, maxPosition - position)));
    int end = endOfBatches(chunk, position, position + chunk.limit(), Long.MAX_VALUE);
    return chunk.limit(end - position).slice();
  }

  /**
   * Whether the next append of {@code messagesSize} bytes up to {@code maxOffsetInMessages} must go
   * to a new segment. An empty segment never rolls (a batch larger than segment.bytes gets a
   * segment of its own).
   */
  boolean shouldRoll(int messagesSize, long maxOffsetInMessages, long nowMs, LogConfig config) {
    if (size == 0) {
      return false;
    }
    return (long) size + messagesSize > config.segmentBytes()
        || nowMs - rollingBasedTimestampMs > config.segmentMs()
        || offsetIndex.isFull()
        || timeIndex.isFull()
        || maxOffsetInMessages - baseOffset > Integer.MAX_VALUE;
  }

  /**
   * Appends validated batches with offsets already assigned (the first at or after {@link
   * #nextOffset}), indexing one batch every {@code index.interval.bytes}. Caller holds the
   * partition lock.
   */
  void append(ByteBuffer batches, long nowMs) throws IOException {
    int position = size;
    FileIo.writeFully(channel, position, batches);
    ByteBuffer view = batches.duplicate();
    int at = view.position();
    while (at < view.limit()) {
      RecordBatch batch = new RecordBatch(view, at);
      indexBatch(batch, position);
      position += batch.sizeInBytes();
      at += batch.sizeInBytes();
    }
    if (rollingBasedTimestampMs < 0) {
      rollingBasedTimestampMs = nowMs;
    }
    size = position; // publish: readers may now see these batches
  }

  /**
   * Truncates the file back to {@code oldSize} after a failed append; indexes are rebuilt by the
   * caller.
   */
  void truncateToSize(int oldSize) throws IOException {
    channel.truncate(oldSize);
    size = oldSize;
  }

  private void indexBatch(RecordBatch batch, int position) {
    if (batch.maxTimestamp() > maxTimestampSoFar) {
      maxTimestampSoFar = batch.maxTimestamp();
      offsetOfMaxTimestampSoFar = batch.baseOffset();
    }
    if (bytesSinceLastIndexEntry > indexIntervalBytes) {
      offsetIndex.append(batch.baseOffset(), position);
      timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
      bytesSinceLastIndexEntry = 0;
    }
    bytesSinceLastIndexEntry += batch.sizeInBytes();
    nextOffset = batch.nextOffset();
  }

  /**
   * Whole batches from the one holding {@code startOffset}: at most {@code maxBytes} (but the first
   * whole batch regardless if {@code minOneBatch}) and only batches with last offset < {@code
   * maxOffset}; null when no batch here reaches {@code startOffset} (the caller tries the next
   * segment), empty when the limits exclude the first batch. One positional read, bounded by the
   * committed size; the answer is a read-only view of the buffer it filled.
   */
  ByteBuffer read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
      throws IOException {
    FileRange range = fetchRange(startOffset, maxBytes, maxOffset, minOneBatch);
    if (range == null || range.sizeInBytes() == 0) {
      return range == null ? null : ByteBuffer.allocate(0);
    }
    ByteBuffer chunk = FileIo.read(channel, range.position(), range.sizeInBytes());
    int end = endOfBatches(chunk, range.position(), range.position() + chunk.limit(), maxOffset);
    return chunk.limit(end - range.position()).slice().asReadOnlyBuffer();
  }

  /**
   * The batches {@link #read} returns for the same arguments, as a range of the file. Only batch
   * headers are read: from the last indexed batch below both bounds (the batches before it are
   * whole and below {@code maxOffset}), so at most about {@code index.interval.bytes} of them, in
   * {@value BatchHeaders#WINDOW_BYTES}-byte reads. Null and empty as for read.
   */
  FileRange slice(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
      throws IOException {
    FileRange range = fetchRange(startOffset, maxBytes, maxOffset, minOneBatch);
    if (range == null || range.sizeInBytes() == 0) {
      return range;
    }
    int limit = range.position() + range.sizeInBytes();
    OffsetIndex.OffsetPosition indexed = offsetIndex.lookup(maxOffset, limit);
    int from = Math.max(range.position(), indexed.position());
    BatchHeaders.BatchesEnd end =
        BatchHeaders.batchesEnd(channel, logFile, ByteBuffer.allocate(0), from, limit, maxOffset);
    // No whole batch from the indexed one: the range ends where that batch starts.
    long nextOffset =
        end.nextOffset() >= 0 ? end.nextOffset() : Math.max(indexed.offset(), range.firstOffset());
    return new FileRange(
        range.position(), end.position() - range.position(), range.firstOffset(), nextOffset);
  }

  /** The bytes {@link #read} may read, from the batch holding {@code startOffset} on. */
  private FileRange fetchRange(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
      throws IOException {
    int maxPosition = size;
    BatchHeaders.BatchPosition first =
        translateOffset(startOffset, offsetIndex.lookup(startOffset).position(), maxPosition);
    if (first == null) {
      return null;
    }
    RecordBatch header = first.header();
    int firstSize = header.sizeInBytes();
    if (header.lastOffset() >= maxOffset || (firstSize > maxBytes && !minOneBatch)) {
      return new FileRange(first.position(), 0, header.baseOffset(), -1);
    }
    int length = Math.max(firstSize, Math.min(maxBytes, maxPosition - first.position()));
    return new FileRange(first.position(), length, header.baseOffset(), -1);
  }

  private BatchHeaders.BatchPosition translateOffset(long offset, int from, int maxPosition)
      throws IOException {
    return BatchHeaders.translateOffset(channel, logFile, offset, from, maxPosition);
  }

  private int endOfBatches(ByteBuffer window, int from, int limit, long maxOffset)
      throws IOException {
    return BatchHeaders.endOfBatches(channel, logFile, window, from, limit, maxOffset);
  }

  /**
   * The first record with timestamp >= {@code targetTimestampMs} at or after {@code
   * startingOffset}, via the time index then a batch scan. Record-level precision for uncompressed
   * CreateTime batches; for a compressed batch the answer is its base offset and max timestamp (a
   * consumer seeking there may see a few earlier records, never misses one).
   */
  Optional<TimestampAndOffset> findOffsetByTimestamp(long targetTimestampMs, long startingOffset)
      throws IOException {
    long fromOffset = Math.max(timeIndex.lookup(targetTimestampMs).offset(), startingOffset);
    int position = offsetIndex.lookup(fromOffset).position();
    int maxPosition = size;
    while (true) {
      BatchHeaders.BatchPosition found = translateOffset(startingOffset, position, maxPosition);
      if (found == null) {
        return Optional.empty();
      }
      RecordBatch header = found.header();
      if (header.maxTimestamp() >= targetTimestampMs) {
        ByteBuffer whole = FileIo.readFully(channel, found.position(), header.sizeInBytes());
        return Optional.of(
            RecordTimestamps.firstAtOrAfter(
                new RecordBatch(whole, 0), targetTimestampMs, startingOffset));
      }
      position = found.position() + header.sizeInBytes();
    }
  }

  /**
   * Rebuilds the indexes by validating every batch (framing, CRC, offsets increasing from {@code
   * minOffset}) and truncates the file at the first invalid byte: a torn write, a flipped bit,
   * garbage after the last batch.
   *
   * @return bytes truncated
   */
  int recover(long minOffset) throws IOException {
    offsetIndex.reset();
    timeIndex.reset();
    bytesSinceLastIndexEntry = 0;
    maxTimestampSoFar = -1;
    offsetOfMaxTimestampSoFar = baseOffset;
    nextOffset = baseOffset;
    rollingBasedTimestampMs = -1;
    long fileSize = channel.size();
    long expectedMinOffset = Math.max(minOffset, baseOffset);
    int position = 0;
    while (fileSize - position >= RecordBatch.HEADER_SIZE) {
      RecordBatch header =
          new RecordBatch(FileIo.readFully(channel, position, RecordBatch.HEADER_SIZE), 0);
      long batchSize = RecordBatch.LOG_OVERHEAD + (long) header.batchLength();
      if (header.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD
          || position + batchSize > fileSize
          || position + batchSize > Integer.MAX_VALUE) {
        break;
      }
      RecordBatch batch = new RecordBatch(FileIo.readFully(channel, position, (int) batchSize), 0);
      try {
        batch.validate();
      } catch (CorruptRecordException e) {
        break;
      }
      if (batch.baseOffset() < expectedMinOffset
          || batch.lastOffset() - baseOffset > Integer.MAX_VALUE) {
        break;
      }
      if (rollingBasedTimestampMs < 0) {
        rollingBasedTimestampMs = batch.maxTimestamp();
      }
      indexBatch(batch, position);
      expectedMinOffset = batch.nextOffset();
      position += (int) batchSize;
    }
    channel.truncate(position);
    size = position;
    if (size > 0 && rollingBasedTimestampMs < 0) {
      rollingBasedTimestampMs = Files.getLastModifiedTime(logFile).toMillis();
    }
    return (int) (fileSize - position);
  }

  /**
   * Trusts the file (clean shutdown, or data below the recovery point): derives the next offset and
   * the max timestamp by scanning headers from the last offset index entry, which is cheap.
   *
   * @return false if the headers do not end exactly at the end of the file; the caller must then
   *     {@link #recover}
   */
  boolean loadTailState() throws IOException {
    TimeIndex.TimestampOffset lastTime = timeIndex.lastEntry();
    maxTimestampSoFar = lastTime.timestampMs();
    offsetOfMaxTimestampSoFar = lastTime.offset();
    OffsetIndex.OffsetPosition lastEntry = offsetIndex.lastEntry();
    int position = lastEntry.position();
    long fileSize = channel.size();
    if (fileSize > Integer.MAX_VALUE || position > fileSize) {
      return false;
    }
    nextOffset = baseOffset;
    while (fileSize - position >= RecordBatch.HEADER_SIZE) {
      RecordBatch header =
          new RecordBatch(FileIo.readFully(channel, position, RecordBatch.HEADER_SIZE), 0);
      if (header.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD
          || position + (long) header.sizeInBytes() > fileSize
          || header.baseOffset() < nextOffset) {
        return false;
      }
      if (header.maxTimestamp() > maxTimestampSoFar) {
        maxTimestampSoFar = header.maxTimestamp();
        offsetOfMaxTimestampSoFar = header.baseOffset();
      }
      nextOffset = header.nextOffset();
      position += header.sizeInBytes();
    }
    if (position != fileSize) {
      return false;
    }
    size = position;
    bytesSinceLastIndexEntry = position - lastEntry.position();
    if (size > 0) {
      long first =
          new RecordBatch(FileIo.readFully(channel, 0, RecordBatch.HEADER_SIZE), 0).maxTimestamp();
      rollingBasedTimestampMs = first >= 0 ? first : Files.getLastModifiedTime(logFile).toMillis();
    }
    return true;
  }

  /**
   * Removes the batch holding {@code offset} and everything after it (truncation is at batch
   * boundaries, so the segment may end below {@code offset}).
   *
   * @return bytes removed
   */
  int truncateTo(long offset) throws IOException {
    BatchHeaders.BatchPosition from =
        translateOffset(offset, offsetIndex.lookup(offset).position(), size);
    if (from == null) {
      return 0;
    }
    int removed = size - from.position();
    offsetIndex.truncateTo(from.header().baseOffset());
    timeIndex.truncateTo(from.header().baseOffset());
    channel.truncate(from.position());
    size = from.position();
    if (!loadTailState()) {
      throw new IllegalStateException("segment " + logFile + " is inconsistent after truncation");
    }
    if (size == 0) {
      rollingBasedTimestampMs = -1;
    }
    return removed;
  }

  /**
   * Writes the final time index entry, so that a reopened segment knows its max timestamp from the
   * index.
   */
  void onBecomeInactiveSegment() {
    timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
  }

  void flush() throws IOException {
    channel.force(true);
    offsetIndex.flush();
    timeIndex.flush();
  }

  @Override
  public void close() throws IOException {
    if (channel.isOpen()) {
      onBecomeInactiveSegment();
    }
    channel.close();
    offsetIndex.close();
    timeIndex.close();
  }

  /**
   * Closes the files without writing anything (a log directory gone offline, or a simulated crash
   * in tests).
   */
  void closeHandlers() throws IOException {
    channel.close();
    offsetIndex.close();
    timeIndex.close();
  }

  /**
   * Renames the three files from {@code <name><oldSuffix>} to {@code <name><newSuffix>} (the
   * cleaner's {@code .cleaned} to {@code .swap} to final names); the indexes first, the log file
   * last, because the log file's name is what recovery goes by. Open channels keep working.
   */
  void changeFileSuffixes(String oldSuffix, String newSuffix) throws IOException {
    offsetIndex.renameTo(withSuffix(offsetIndex.file(), oldSuffix, newSuffix));
    timeIndex.renameTo(withSuffix(timeIndex.file(), oldSuffix, newSuffix));
    Path target = withSuffix(logFile, oldSuffix, newSuffix);
    Files.move(logFile, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    logFile = target;
  }

  private static Path withSuffix(Path file, String oldSuffix, String newSuffix) {
    String name = file.getFileName().toString();
    if (!name.endsWith(oldSuffix)) {
      throw new IllegalStateException(file + " does not end with '" + oldSuffix + "'");
    }
    return file.resolveSibling(name.substring(0, name.length() - oldSuffix.length()) + newSuffix);
  }

  /** Closes and deletes the files without renaming them first (abandoned cleaner output). */
  void closeAndDeleteFiles() throws IOException {
    channel.close();
    Files.deleteIfExists(logFile);
    offsetIndex.closeAndDelete();
    timeIndex.closeAndDelete();
  }

  /**
   * Renames the files to {@code .deleted} (so a crash midway leaves only files the loader removes),
   * closes them and deletes them. Readers still holding this segment get a ClosedChannelException
   * and retry.
   */
  void deleteFiles() throws IOException {
    Path deleted = logFile.resolveSibling(logFile.getFileName() + DELETED_SUFFIX);
    Files.move(logFile, deleted);
    offsetIndex.renameTo(
        offsetIndex.file().resolveSibling(offsetIndex.file().getFileName() + DELETED_SUFFIX));
    timeIndex.renameTo(
        timeIndex.file().resolveSibling(timeIndex.file().getFileName() + DELETED_SUFFIX));
    channel.close();
    Files.deleteIfExists(deleted);
    offsetIndex.closeAndDelete();
    timeIndex.closeAndDelete();
  }

  @Override
  public String toString() {
    return "LogSegment(baseOffset="
        + baseOffset
        + ", size="
        + size
        + ", nextOffset="
        + nextOffset
        + ")";
  }
}
