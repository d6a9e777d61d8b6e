package dev.tributary.log;

/**
 * A broker's disk made slow on purpose, a fault for tests, the demo and learners
 * (docs/reliability.md, "A slow disk"): while {@link #delayMs} is above 0, every write of segment
 * bytes and every fsync of a segment by this broker's partition logs first blocks the writing
 * thread that long, as a saturated or failing device blocks its writer. Reads are not slowed: they
 * are served from the page cache, which a slow device does not touch. One instance per broker,
 * shared by all its logs ({@link LogManager}); a log opened without one gets its own, never set.
 *
 * <p>The writer sleeps under the partition log's lock, as a real blocked write would hold it: the
 * log's other writers (produce, the replica fetcher, retention) queue behind it; its readers do
 * not.
 *
 * <p>Concurrency: thread-safe; the delay is one volatile field.
 */
public final class SlowDisk {
  /** The longest delay accepted: ten seconds per write, already far beyond any timeout. */
  public static final long MAX_DELAY_MS = 10_000;

  /** How the writer waits; tests record the waits instead. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  /** Thrown instead of writing when the writing thread is interrupted while it waits. */
  public static final class StallInterruptedException extends RuntimeException {
    StallInterruptedException(InterruptedException cause) {
      super("interrupted while waiting for the (injected) slow disk", cause);
    }
  }

  private final Sleeper sleeper;

  /**
   * Added to every segment write and fsync, in ms; 0 is a healthy disk. Invariant: within [0,
   * {@link #MAX_DELAY_MS}]. Hot path: an append reads it once and, at 0, does nothing else, so a
   * healthy broker pays one volatile read per append (produce and replica fetch alike); keep any
   * further work behind the {@code > 0} test in {@link #stall}.
   */
  private volatile long delayMs;

  /** A disk that sleeps with {@link Thread#sleep}. */
  public SlowDisk() {
    this(Thread::sleep);
  }

  public SlowDisk(Sleeper sleeper) {
    this.sleeper = sleeper;
  }

  /** The delay added to each write and fsync, in ms (0: a healthy disk). */
  public long delayMs() {
    return delayMs;
  }

  /**
   * Sets the delay (absolute, not added); 0 heals the disk. Writers already waiting finish their
   * current wait. Synchronized so that concurrent setters each get the right previous delay; the
   * writers never take the monitor.
   *
   * @return the previous delay
   * @throws IllegalArgumentException outside [0, {@link #MAX_DELAY_MS}]
   */
  public synchronized long setDelayMs(long delayMs) {
    if (delayMs < 0 || delayMs > MAX_DELAY_MS) {
      throw new IllegalArgumentException(
          "a disk delay must be from 0 to " + MAX_DELAY_MS + " ms, not " + delayMs);
    }
    long was = this.delayMs;
    this.delayMs = delayMs;
    return was;
  }

  /**
   * Blocks the calling writer for {@code delayMs}, a value read from {@link #delayMs()} by the
   * caller (once per append, so an append that also flushes does not read the field twice); nothing
   * at 0.
   *
   * <p>Called before the I/O it slows, never between a write and its rollback: an interrupted wait
   * then leaves the file as it was. The interrupt is kept (the flag is set again) and the write is
   * abandoned with {@link StallInterruptedException}, an unchecked exception that the log does not
   * count as an I/O failure: writing on an interrupted thread would close the segment's FileChannel
   * (ClosedByInterruptException) and take the whole log directory offline for a fault that is only
   * a test's.
   */
  void stall(long delayMs) {
    if (delayMs > 0) {
      try {
        sleeper.sleep(delayMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StallInterruptedException(e);
      }
    }
  }
}
