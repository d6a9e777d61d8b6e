package dev.tributary.log;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The sequence lock that lets {@link LogReader} read without the log's lock while truncation
 * rewrites bytes under it (concurrency note 3 in {@link PartitionLog}), or the cleaner swaps
 * segments in the segment map (note 5). A reader notes {@link #sequence()} before it reads and
 * retries if the number was odd or has changed since.
 */
final class TruncationSequence {
  /** A step that may fail with an IOException. */
  interface IoStep {
    void run() throws IOException;
  }

  /** The owning log's lock, held by every truncation from start to end. */
  private final ReentrantLock lock;

  /**
   * Invariant: odd exactly while a truncation runs. Changed only by {@link #truncate}, under {@code
   * lock}.
   */
  private volatile long sequence;

  TruncationSequence(ReentrantLock lock) {
    this.lock = lock;
  }

  /**
   * Runs {@code truncation} with the sequence odd; the caller holds the lock. An IOException
   * becomes a LogStorageException saying that {@code what} failed.
   */
  void truncate(String what, IoStep truncation) {
    if (!lock.isHeldByCurrentThread()) {
      throw new IllegalStateException(what + " without the log's lock");
    }
    sequence++;
    try {
      truncation.run();
    } catch (IOException e) {
      throw new LogStorageException(what + " failed", e);
    } finally {
      sequence++;
    }
  }

  /** True while a truncation runs. */
  boolean inProgress() {
    return (sequence & 1) != 0;
  }

  /** Odd while a truncation runs; changed by every truncation. */
  long sequence() {
    return sequence;
  }

  /** Blocks until a running truncation has finished (it holds the lock throughout). */
  void await() {
    lock.lock();
    lock.unlock();
  }
}
