package dev.tributary.common;

import java.util.concurrent.TimeUnit;

/**
 * The clock the core reads. Production code gets {@link #SYSTEM}; tests pass a manual clock so that
 * time-driven behaviour (segment rolls, retention, flush intervals, long-poll deadlines) is
 * deterministic.
 *
 * <p>Two clocks, for two purposes. The wall clock ({@link #milliseconds}) can jump either way (an
 * NTP step, an operator, a skewed host): use it only for values that are persisted or compared with
 * persisted timestamps (record timestamps, segment age, retention, offset and producer-id expiry).
 * Every deadline, session and backoff that lives only in memory uses the monotonic clock ({@link
 * #nanoseconds}, {@link #monotonicMs}), as Kafka's BrokerHeartbeatManager does, so that a jump of
 * the wall clock neither fences a live broker nor keeps a dead one unfenced.
 */
public interface Time {
  /**
   * Wall-clock milliseconds since the epoch; used for record timestamps, segment age and retention.
   */
  long milliseconds();

  /**
   * Monotonic nanoseconds from an arbitrary origin (never negative for {@link #SYSTEM}), for
   * measuring intervals only.
   */
  long nanoseconds();

  /**
   * {@link #nanoseconds} in milliseconds: for in-memory deadlines, sessions and backoffs, which
   * must not move when the wall clock jumps. Not comparable with {@link #milliseconds}.
   */
  default long monotonicMs() {
    return TimeUnit.NANOSECONDS.toMillis(nanoseconds());
  }

  Time SYSTEM =
      new Time() {
        /**
         * {@link System#nanoTime} may be negative; counting from when this clock was made keeps
         * monotonic values non-negative, so an in-memory deadline of 0 has always passed.
         */
        private final long originNs = System.nanoTime();

        @Override
        public long milliseconds() {
          return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
          return System.nanoTime() - originNs;
        }
      };
}
