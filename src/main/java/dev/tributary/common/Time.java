package dev.tributary.common;

/**
 * The clock the core reads. Production code gets {@link #SYSTEM}; tests pass a manual clock so that
 * time-driven behaviour (segment rolls, retention, flush intervals, long-poll deadlines) is
 * deterministic.
 */
public interface Time {
  /**
   * Wall-clock milliseconds since the epoch; used for record timestamps, segment age and retention.
   */
  long milliseconds();

  /** Monotonic nanoseconds, for measuring intervals only. */
  long nanoseconds();

  Time SYSTEM =
      new Time() {
        @Override
        public long milliseconds() {
          return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
          return System.nanoTime();
        }
      };
}
