package dev.tributary.demo;

import java.time.Duration;

/** Bounded polling: the demos wait for the cluster to do something, never for a fixed time. */
final class Waits {
  static final long POLL_MS = 100;

  /** A condition that may fail with an exception (treated as "not yet"). */
  interface Condition {
    boolean holds() throws Exception;
  }

  private Waits() {}

  /**
   * Polls {@code condition} until it holds; throws {@link DemoException} naming {@code what} after
   * {@code timeout}. Returns the milliseconds it took.
   */
  static long until(String what, Duration timeout, Condition condition)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        if (condition.holds()) {
          return (System.nanoTime() - start) / 1_000_000;
        }
      } catch (DemoException e) {
        throw e;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        throw new DemoException(
            "gave up after "
                + timeout.toSeconds()
                + " s waiting for "
                + what
                + (last == null ? "" : " (last error: " + last + ")"),
            last);
      }
      Thread.sleep(POLL_MS);
    }
  }
}
