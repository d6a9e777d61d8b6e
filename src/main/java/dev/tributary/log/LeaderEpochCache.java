package dev.tributary.log;

import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * Which leader epoch wrote which part of a log: epoch → the first offset written in it (Kafka's
 * LeaderEpochFileCache). A replica that becomes a follower, or restarts, compares its epochs with
 * the leader's to find the offset where their logs agree and truncates to it, so that logs never
 * diverge (KIP-101, KIP-279; see docs/adr/0008-replica-fetch-and-truncation.md).
 *
 * <p>File {@code leader-epoch-checkpoint} in the partition directory, Kafka's text format, written
 * atomically on every change (changes are rare: a new epoch, a truncation):
 *
 * <pre>
 * 0            version
 * 2            number of entries
 * 0 0          epoch startOffset
 * 3 120
 * </pre>
 *
 * <p>Invariants (enforced in {@link #assign}, the only method that adds entries): epochs strictly
 * increase and so do start offsets; every start offset lies in [logStartOffset, logEndOffset] of
 * the owning log (the log truncates this cache whenever it truncates itself or moves its start).
 *
 * <p>Concurrency: guarded by the owning {@link PartitionLog}'s lock; not thread-safe on its own.
 */
final class LeaderEpochCache {
  static final String FILE_NAME = "leader-epoch-checkpoint";
  private static final int VERSION = 0;

  private final Path file;
  private final TreeMap<Integer, Long> startOffsets = new TreeMap<>();

  /**
   * True when the file was absent or unreadable: the owning log rebuilds the cache from its
   * batches.
   */
  private boolean needsRebuild;

  private LeaderEpochCache(Path file) {
    this.file = file;
  }

  /**
   * Reads the checkpoint in {@code dir}. An absent or unreadable file (a torn write cannot happen:
   * writes are atomic, but a disk can corrupt it) gives an empty cache marked {@link
   * #needsRebuild}: the epochs are stamped in every batch, so the log can always rebuild it.
   */
  static LeaderEpochCache load(Path dir) throws IOException {
    LeaderEpochCache cache = new LeaderEpochCache(dir.resolve(FILE_NAME));
    List<String> lines;
    try {
      lines = Files.readAllLines(cache.file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      cache.needsRebuild = true;
      return cache;
    }
    try {
      if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
        throw new IllegalArgumentException("unknown version");
      }
      int count = Integer.parseInt(lines.get(1).trim());
      if (count < 0 || lines.size() < 2 + count) {
        throw new IllegalArgumentException("missing entries");
      }
      for (int i = 0; i < count; i++) {
        String[] parts = lines.get(2 + i).trim().split(" ");
        if (parts.length != 2
            || !cache.assignInMemory(Integer.parseInt(parts[0]), Long.parseLong(parts[1]))) {
          throw new IllegalArgumentException("bad entry '" + lines.get(2 + i) + "'");
        }
      }
    } catch (IllegalArgumentException e) { // NumberFormatException included
      System.getLogger(LeaderEpochCache.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "rebuilding unreadable leader epoch checkpoint {0}: {1}",
              cache.file,
              e.getMessage());
      cache.startOffsets.clear();
      cache.needsRebuild = true;
    }
    return cache;
  }

  boolean needsRebuild() {
    return needsRebuild;
  }

  /**
   * Records that {@code epoch} starts at {@code startOffset}. An epoch no newer than the latest is
   * ignored (it is already known, or it is stale); entries starting at or after {@code startOffset}
   * are replaced, as Kafka does when an epoch wrote nothing before the next began. Returns whether
   * anything changed.
   */
  boolean assign(int epoch, long startOffset) throws IOException {
    if (!assignInMemory(epoch, startOffset)) {
      return false;
    }
    write();
    return true;
  }

  /**
   * As {@link #assign}, without writing the file; the caller calls {@link #write} once it is done.
   */
  boolean assignInMemory(int epoch, long startOffset) {
    if (epoch < 0 || (!startOffsets.isEmpty() && epoch <= startOffsets.lastKey())) {
      return false;
    }
    startOffsets.values().removeIf(offset -> offset >= startOffset);
    startOffsets.put(epoch, startOffset);
    return true;
  }

  /**
   * Records the epoch stamped in each of {@code batches} (a follower's append: the leader's epochs,
   * recorded before the batches that carry them), writing the file once if any was new.
   */
  void assignFrom(ByteBuffer batches) throws IOException {
    boolean newEpoch = false;
    for (RecordBatch batch : BatchIterator.strict(batches.duplicate())) {
      newEpoch |= assignInMemory(batch.partitionLeaderEpoch(), batch.baseOffset());
    }
    if (newEpoch) {
      write();
    }
  }

  /**
   * Brings the cache in line with a recovered log [{@code logStartOffset}, {@code logEndOffset}):
   * entries past the log end (written just before a crash lost the batches) or below its start go.
   * A cache without a readable file (written before epochs were tracked, or corrupted) is rebuilt
   * from the epochs stamped in the log's batches, read with {@code readFrom}.
   */
  void reconcile(long logStartOffset, long logEndOffset, LongFunction<LogReadInfo> readFrom)
      throws IOException {
    if (needsRebuild && logEndOffset > logStartOffset) {
      long offset = logStartOffset;
      while (offset < logEndOffset) {
        LogReadInfo read = readFrom.apply(offset);
        if (read.isEmpty()) {
          break;
        }
        for (RecordBatch batch : read.batches()) {
          assignInMemory(batch.partitionLeaderEpoch(), batch.baseOffset());
          offset = batch.nextOffset();
        }
      }
      write();
    }
    truncateFromEnd(logEndOffset);
    truncateFromStart(logStartOffset);
  }

  /** The latest epoch, or -1 when the cache is empty. */
  int latestEpoch() {
    return startOffsets.isEmpty() ? -1 : startOffsets.lastKey();
  }

  /** The start offset of {@code epoch}, or -1 if it is not in the cache. */
  long startOffsetOf(int epoch) {
    Long offset = startOffsets.get(epoch);
    return offset == null ? -1 : offset;
  }

  /**
   * The epoch that wrote {@code offset}: the latest epoch starting at or before it; -1 if none
   * does.
   */
  int epochForOffset(long offset) {
    int found = -1;
    for (Map.Entry<Integer, Long> entry : startOffsets.entrySet()) {
      if (entry.getValue() > offset) {
        break;
      }
      found = entry.getKey();
    }
    return found;
  }

  /**
   * Where {@code requestedEpoch} ends in a log ending at {@code logEndOffset}, with Kafka's
   * semantics: the latest epoch ends at the log end offset; an older one at the start of the next
   * epoch the cache knows, reported with the largest known epoch at most {@code requestedEpoch} (or
   * the requested one itself if it predates every entry); an epoch newer than any known, or an
   * empty cache, is {@link EpochEndOffset#UNDEFINED}.
   */
  EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
    if (requestedEpoch < 0 || startOffsets.isEmpty()) {
      return EpochEndOffset.UNDEFINED;
    }
    if (requestedEpoch == startOffsets.lastKey()) {
      return new EpochEndOffset(requestedEpoch, logEndOffset);
    }
    Map.Entry<Integer, Long> higher = startOffsets.higherEntry(requestedEpoch);
    if (higher == null) {
      return EpochEndOffset.UNDEFINED;
    }
    Map.Entry<Integer, Long> floor = startOffsets.floorEntry(requestedEpoch);
    return new EpochEndOffset(floor == null ? requestedEpoch : floor.getKey(), higher.getValue());
  }

  /**
   * Removes the entries of epochs that start at or after {@code endOffset} (the log was truncated
   * there).
   */
  void truncateFromEnd(long endOffset) throws IOException {
    if (startOffsets.values().removeIf(offset -> offset >= endOffset)) {
      write();
    }
  }

  /**
   * The log now starts at {@code startOffset}: entries wholly below it go, and the epoch that
   * covers it is moved to start there.
   */
  void truncateFromStart(long startOffset) throws IOException {
    Integer covering = null;
    for (Map.Entry<Integer, Long> entry : List.copyOf(startOffsets.entrySet())) {
      if (entry.getValue() < startOffset) {
        covering =
            entry.getKey(); // the last one below the new start wins: epochs rise with offsets
        startOffsets.remove(entry.getKey());
      }
    }
    if (covering == null) {
      return;
    }
    if (!startOffsets.containsValue(startOffset)) {
      startOffsets.put(covering, startOffset);
    }
    write();
  }

  void clear() throws IOException {
    if (!startOffsets.isEmpty()) {
      startOffsets.clear();
      write();
    }
  }

  /** The entries, epoch → start offset, oldest first (tests, tools). */
  Map<Integer, Long> entries() {
    return new TreeMap<>(startOffsets);
  }

  /** Writes the file atomically ({@link FileIo#writeAtomically}). */
  void write() throws IOException {
    needsRebuild = false;
    StringBuilder text =
        new StringBuilder().append(VERSION).append('\n').append(startOffsets.size()).append('\n');
    startOffsets.forEach(
        (epoch, offset) -> text.append(epoch).append(' ').append(offset).append('\n'));
    FileIo.writeAtomically(file, text.toString());
  }

  @Override
  public String toString() {
    return "LeaderEpochCache" + startOffsets;
  }
}
