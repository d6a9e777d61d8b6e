package dev.tributary.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The sparse offset index of a segment ({@code <baseOffset>.index}), as in Kafka: 8-byte entries of
 * relative offset (int32, offset - segment base offset) and file position (int32) of the batch that
 * starts there; one entry per {@code index.interval.bytes} of log. A lookup gives the position from
 * which to scan batch headers.
 *
 * <p>Invariant: relative offsets and positions both strictly increase; each entry names the start
 * of a batch whose base offset is that entry's offset.
 */
final class OffsetIndex extends AbstractIndex {
  static final int ENTRY_SIZE = 8;

  /** An index entry: an absolute offset and the file position of the batch that starts at it. */
  record OffsetPosition(long offset, int position) {}

  OffsetIndex(Path file, long baseOffset, int maxIndexBytes) throws IOException {
    super(file, baseOffset, maxIndexBytes);
  }

  @Override
  int entrySize() {
    return ENTRY_SIZE;
  }

  @Override
  long keyAt(ByteBuffer memory, int position) {
    return memory.getInt(position);
  }

  /**
   * The entry with the largest offset <= {@code targetOffset}, or (baseOffset, 0) when there is
   * none: scanning from there reaches the batch that holds {@code targetOffset}.
   */
  synchronized OffsetPosition lookup(long targetOffset) {
    int slot = largestLowerBoundSlot(relative(targetOffset));
    if (slot < 0) {
      return new OffsetPosition(baseOffset, 0);
    }
    return entry(slot);
  }

  /**
   * The last entry with offset <= {@code maxOffset} and position <= {@code maxPosition}, or
   * (baseOffset, 0) when there is none. Both columns increase, so every batch before its position
   * ends there with a last offset below {@code maxOffset}.
   */
  synchronized OffsetPosition lookup(long maxOffset, int maxPosition) {
    int lo = 0;
    int hi = largestLowerBoundSlot(relative(maxOffset));
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (memory().getInt(mid * ENTRY_SIZE + 4) <= maxPosition) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? new OffsetPosition(baseOffset, 0) : entry(found);
  }

  /**
   * The entry with the smallest offset >= {@code targetOffset}, or null when there is none: the
   * batch holding {@code targetOffset - 1} ends at or before its position.
   */
  synchronized OffsetPosition ceilingEntry(long targetOffset) {
    int slot = largestLowerBoundSlot((long) relative(targetOffset) - 1) + 1;
    return slot < entries() ? entry(slot) : null;
  }

  synchronized OffsetPosition lastEntry() {
    int n = entries();
    return n == 0 ? new OffsetPosition(baseOffset, 0) : entry(n - 1);
  }

  synchronized OffsetPosition entry(int slot) {
    int at = slot * ENTRY_SIZE;
    return new OffsetPosition(baseOffset + memory().getInt(at), memory().getInt(at + 4));
  }

  /**
   * Adds an entry; {@code offset} must be larger than the last entry's.
   *
   * @throws InvalidOffsetException if it is not (a bug in the caller)
   */
  synchronized void append(long offset, int position) {
    int n = entries();
    if (n > 0 && offset <= lastEntry().offset()) {
      throw new InvalidOffsetException(
          "offset index append of "
              + offset
              + " is not larger than the last entry "
              + lastEntry().offset());
    }
    if (n > 0 && position <= lastEntry().position()) {
      throw new InvalidOffsetException("offset index position " + position + " does not increase");
    }
    ByteBuffer entry =
        ByteBuffer.allocate(ENTRY_SIZE).putInt(relative(offset)).putInt(position).flip();
    appendEntry(entry);
  }

  /** Removes every entry for offsets >= {@code offset}. */
  synchronized void truncateTo(long offset) {
    int slot = largestLowerBoundSlot(relative(offset) - 1);
    truncateToEntries(slot + 1);
  }

  /** Also checks every position lies within a log of {@code logSizeInBytes}. */
  synchronized void sanityCheck(long logSizeInBytes) {
    sanityCheck();
    int n = entries();
    for (int i = 0; i < n; i++) {
      OffsetPosition entry = entry(i);
      if (entry.offset() < baseOffset
          || entry.position() < 0
          || entry.position() >= logSizeInBytes) {
        throw new IllegalStateException(
            "offset index " + file() + " entry " + i + " is out of range: " + entry);
      }
      if (i > 0 && entry.position() <= entry(i - 1).position()) {
        throw new IllegalStateException(
            "offset index " + file() + " positions are not increasing at entry " + i);
      }
    }
  }

  private int relative(long offset) {
    long relative = offset - baseOffset;
    return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, relative));
  }
}
