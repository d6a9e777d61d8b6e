package dev.tributary.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A segment's sparse index file: fixed-size entries sorted by key, each mapping a key (an offset or
 * a timestamp) to a relative offset or position. Entries are appended to the file with positional
 * writes and mirrored in a heap buffer for lookups (Kafka memory-maps a preallocated file instead;
 * appending keeps the file exactly the size of its entries, so a reopened index needs no trimming).
 *
 * <p>Invariant: the file holds exactly {@code entries * entrySize()} bytes, keys strictly
 * increasing (checked by {@link #sanityCheck}, which recovery runs on indexes it does not rebuild).
 *
 * <p>Concurrency: every method is synchronized on the index; lookups from readers are short. Lock
 * order: the partition's append lock, then an index.
 */
abstract class AbstractIndex implements AutoCloseable {
  private Path file;
  protected final long baseOffset;
  private final int maxEntries;
  private FileChannel channel;

  /** Entries [0, entries) mirror the file; capacity grows by doubling. */
  private ByteBuffer memory;

  /** Invariant: 0 <= entries <= memory.capacity() / entrySize(). */
  private int entries;

  /** The file length found at open, checked by {@link #sanityCheck}. */
  private final long fileLengthAtOpen;

  protected AbstractIndex(Path file, long baseOffset, int maxIndexBytes) throws IOException {
    this.file = file;
    this.baseOffset = baseOffset;
    this.maxEntries = Math.max(1, maxIndexBytes / entrySize());
    this.channel =
        FileIo.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    long length = channel.size();
    int wholeEntries = (int) Math.min(length / entrySize(), Integer.MAX_VALUE / entrySize());
    this.memory = ByteBuffer.allocate(Math.max(16, wholeEntries) * entrySize());
    if (length > 0) {
      ByteBuffer read = memory.duplicate().limit(wholeEntries * entrySize());
      while (read.hasRemaining()) {
        if (channel.read(read, read.position()) < 0) {
          break;
        }
      }
    }
    this.entries = wholeEntries;
    this.fileLengthAtOpen = length;
  }

  abstract int entrySize();

  /** The sort key of entry {@code n}. */
  abstract long keyAt(ByteBuffer memory, int position);

  protected final synchronized int entries() {
    return entries;
  }

  final synchronized boolean isFull() {
    return entries >= maxEntries;
  }

  final int maxEntries() {
    return maxEntries;
  }

  final synchronized long sizeInBytes() {
    return (long) entries * entrySize();
  }

  final synchronized Path file() {
    return file;
  }

  /** The in-memory mirror of the entries; callers hold the monitor. */
  protected final ByteBuffer memory() {
    return memory;
  }

  protected final synchronized void appendEntry(ByteBuffer entry) {
    if (entries == Integer.MAX_VALUE / entrySize()) {
      throw new IllegalStateException("index " + file + " cannot grow further");
    }
    int position = entries * entrySize();
    try {
      ByteBuffer toWrite = entry.duplicate();
      long filePosition = position;
      while (toWrite.hasRemaining()) {
        filePosition += channel.write(toWrite, filePosition);
      }
    } catch (IOException e) {
      throw new LogStorageException("failed to append to index " + file, e);
    }
    if (position + entrySize() > memory.capacity()) {
      ByteBuffer grown = ByteBuffer.allocate(memory.capacity() * 2);
      grown.put(memory.duplicate().position(0).limit(position));
      memory = grown;
    }
    memory.put(position, entry.duplicate(), 0, entrySize());
    entries++;
  }

  /**
   * The slot of the largest entry whose key is <= {@code target}, or -1 when the first key is
   * already larger (or the index is empty).
   */
  protected final synchronized int largestLowerBoundSlot(long target) {
    int lo = 0;
    int hi = entries - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (keyAt(memory, mid * entrySize()) <= target) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Drops entries from slot {@code slot} on. */
  protected final synchronized void truncateToEntries(int slot) {
    if (slot >= entries) {
      return;
    }
    entries = Math.max(0, slot);
    try {
      channel.truncate((long) entries * entrySize());
    } catch (IOException e) {
      throw new LogStorageException("failed to truncate index " + file, e);
    }
  }

  final void reset() {
    truncateToEntries(0);
  }

  /**
   * Checks framing and key order; a failed check means the index must be rebuilt from the log.
   *
   * @throws IllegalStateException naming the problem
   */
  synchronized void sanityCheck() {
    if (fileLengthAtOpen % entrySize() != 0) {
      throw new IllegalStateException(
          "index "
              + file
              + " has length "
              + fileLengthAtOpen
              + ", not a multiple of "
              + entrySize());
    }
    for (int i = 1; i < entries; i++) {
      if (keyAt(memory, i * entrySize()) <= keyAt(memory, (i - 1) * entrySize())) {
        throw new IllegalStateException("index " + file + " keys are not increasing at entry " + i);
      }
    }
  }

  synchronized void flush() {
    try {
      channel.force(true);
    } catch (IOException e) {
      throw new LogStorageException("failed to flush index " + file, e);
    }
  }

  synchronized void renameTo(Path target) throws IOException {
    Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
    file = target;
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }

  synchronized void closeAndDelete() throws IOException {
    channel.close();
    Files.deleteIfExists(file);
  }
}
