package dev.tributary.common;

/**
 * Runs a task after a delay. The core takes this instead of creating threads, so that deadlines
 * (long-poll timeouts, produce timeouts) are driven by a real executor in the broker and by a
 * manual clock in tests.
 */
public interface Scheduler {
  /** Schedules {@code task} to run once after {@code delayMs}; the returned handle cancels it. */
  Cancellable schedule(long delayMs, Runnable task);

  /** A scheduled task that can still be called off. */
  interface Cancellable {
    /** Cancels the task if it has not run; harmless if it has. */
    void cancel();
  }
}
