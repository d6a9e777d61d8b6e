package dev.tributary.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The sparse time index of a segment ({@code <baseOffset>.timeindex}), as in Kafka: 12-byte entries
 * of timestamp (int64) and relative offset (int32). An entry (t, o) says: t is the largest
 * timestamp in the segment up to and including the batch at base offset o, and o is the first batch
 * that reached t, so every batch before o has a max timestamp < t. Entries are added beside offset
 * index entries (and once more when the segment becomes inactive), and only when the segment's max
 * timestamp grew.
 *
 * <p>Invariant: timestamps strictly increase, offsets never decrease.
 */
final class TimeIndex extends AbstractIndex {
  static final int ENTRY_SIZE = 12;

  /**
   * A time index entry: a timestamp and the (absolute) offset of the batch whose max timestamp it
   * is.
   */
  record TimestampOffset(long timestampMs, long offset) {}

  TimeIndex(Path file, long baseOffset, int maxIndexBytes) throws IOException {
    super(file, baseOffset, maxIndexBytes);
  }

  @Override
  int entrySize() {
    return ENTRY_SIZE;
  }

  @Override
  long keyAt(ByteBuffer memory, int position) {
    return memory.getLong(position);
  }

  /**
   * The entry with the largest timestamp <= {@code targetTimestampMs}, or (-1, baseOffset) when
   * there is none. Every batch before the returned offset has only timestamps < target, so a scan
   * for the first record with timestamp >= target can start at the returned offset's batch.
   */
  synchronized TimestampOffset lookup(long targetTimestampMs) {
    int slot = largestLowerBoundSlot(targetTimestampMs);
    return slot < 0 ? new TimestampOffset(-1, baseOffset) : entry(slot);
  }

  /** The last entry, or (-1, baseOffset) when empty. */
  synchronized TimestampOffset lastEntry() {
    int n = entries();
    return n == 0 ? new TimestampOffset(-1, baseOffset) : entry(n - 1);
  }

  synchronized TimestampOffset entry(int slot) {
    int at = slot * ENTRY_SIZE;
    return new TimestampOffset(memory().getLong(at), baseOffset + memory().getInt(at + 8));
  }

  /**
   * Adds (timestamp, offset) if the timestamp is larger than the last entry's; otherwise nothing.
   * The entry limit is soft: a full index makes the segment roll before the next append, but one
   * append may add a few entries past it.
   */
  synchronized void maybeAppend(long timestampMs, long offset) {
    int n = entries();
    if (n > 0) {
      TimestampOffset last = lastEntry();
      if (offset < last.offset()) {
        throw new InvalidOffsetException(
            "time index offset " + offset + " is below the last entry " + last);
      }
      if (timestampMs <= last.timestampMs()) {
        return;
      }
    }
    if (timestampMs < 0) {
      return;
    }
    ByteBuffer entry =
        ByteBuffer.allocate(ENTRY_SIZE)
            .putLong(timestampMs)
            .putInt((int) (offset - baseOffset))
            .flip();
    appendEntry(entry);
  }

  /** Removes every entry whose offset is >= {@code offset}. */
  synchronized void truncateTo(long offset) {
    int n = entries();
    int keep = n;
    while (keep > 0 && entry(keep - 1).offset() >= offset) {
      keep--;
    }
    truncateToEntries(keep);
  }

  @Override
  synchronized void sanityCheck() {
    super.sanityCheck();
    int n = entries();
    for (int i = 0; i < n; i++) {
      TimestampOffset entry = entry(i);
      if (entry.offset() < baseOffset || (i > 0 && entry.offset() < entry(i - 1).offset())) {
        throw new IllegalStateException(
            "time index " + file() + " entry " + i + " has a bad offset: " + entry);
      }
    }
  }
}
