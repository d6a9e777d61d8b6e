package dev.tributary.log;

import dev.tributary.common.Time;

/**
 * Paces I/O to at most {@code bytesPerSecond} (Kafka's Throttler, as the cleaner uses it for {@code
 * log.cleaner.io.max.bytes.per.second}). It does not sleep: {@link #delayMsFor} says how long the
 * caller must wait, so a test with a manual clock decides what waiting means.
 *
 * <p>Pacing: each call moves a "due time" forward by {@code bytes / bytesPerSecond}; the caller is
 * ahead of the rate by however far the due time is past now. Idle time earns a burst of at most
 * {@link #MAX_BURST_MS} worth of bytes, no more, so a long pause is not followed by a flood.
 *
 * <p>Not thread-safe: one cleaner thread owns it.
 */
final class Throttler {
  static final long MAX_BURST_MS = 100;

  private final Time time;
  private final double bytesPerMs;

  /** When the bytes recorded so far would have been done at exactly the rate. */
  private double dueMs = Double.NEGATIVE_INFINITY;

  /**
   * @param bytesPerSecond at least 1; {@code Long.MAX_VALUE} never throttles
   */
  Throttler(long bytesPerSecond, Time time) {
    if (bytesPerSecond < 1) {
      throw new IllegalArgumentException("bytes per second must be positive: " + bytesPerSecond);
    }
    this.time = time;
    this.bytesPerMs = bytesPerSecond / 1000.0;
  }

  /** Records {@code bytes} of I/O and returns how many ms to wait before the next (0 if none). */
  long delayMsFor(long bytes) {
    long nowMs = time.monotonicMs(); // pacing measures intervals (Kafka's Throttler: nanoseconds)
    dueMs = Math.max(dueMs, nowMs - MAX_BURST_MS) + bytes / bytesPerMs;
    return dueMs > nowMs ? (long) Math.ceil(dueMs - nowMs) : 0;
  }
}
