package dev.tributary.replication;

/**
 * A bytes-per-second bound measured over a sliding window, as Kafka's replication quotas measure it
 * (a {@code Rate} over {@code replication.quota.window.num} = 11 samples of {@code
 * replication.quota.window.size.seconds} = 1 s): the bytes recorded in the window, divided by the
 * window's length — never less than 10 s, so a first burst of up to ten seconds' worth passes
 * before the bound bites, as in Kafka.
 *
 * <p>Also a plain meter: each partition's bytes-in on its leader, for the balancer ({@link
 * LeaderBytesIn}), unbounded.
 *
 * <p>Time is monotonic milliseconds, passed in. Thread-safe: one monitor per instance, so meters of
 * different partitions never contend.
 */
final class ByteRate {
  static final int SAMPLES = 11;
  static final long SAMPLE_MS = 1_000;

  /** Bytes per second; {@link Long#MAX_VALUE}: unbounded. */
  private volatile long boundBytesPerSecond = Long.MAX_VALUE;

  /** Bytes recorded in each sample; sample i covers [starts[i], starts[i] + SAMPLE_MS). */
  private final long[] bytes = new long[SAMPLES];

  private final long[] starts = new long[SAMPLES];
  private int current;

  ByteRate() {
    java.util.Arrays.fill(starts, Long.MIN_VALUE);
  }

  void bound(long bytesPerSecond) {
    boundBytesPerSecond = bytesPerSecond;
  }

  long bound() {
    return boundBytesPerSecond;
  }

  synchronized void record(long count, long nowMs) {
    if (count <= 0) {
      return;
    }
    roll(nowMs);
    bytes[current] += count;
  }

  /** Forgets every sample, as if made now (a partition whose leadership here ended). */
  synchronized void reset() {
    java.util.Arrays.fill(starts, Long.MIN_VALUE);
    java.util.Arrays.fill(bytes, 0);
    current = 0;
  }

  /** True while the measured rate is above the bound (never for an unbounded rate). */
  boolean isExceeded(long nowMs) {
    long bound = boundBytesPerSecond;
    return bound != Long.MAX_VALUE && rate(nowMs) > bound;
  }

  /** Bytes per second over the window at {@code nowMs}. */
  synchronized double rate(long nowMs) {
    roll(nowMs);
    long total = 0;
    long oldest = Long.MAX_VALUE;
    for (int i = 0; i < SAMPLES; i++) {
      if (starts[i] != Long.MIN_VALUE && starts[i] > nowMs - SAMPLES * SAMPLE_MS) {
        total += bytes[i];
        oldest = Math.min(oldest, starts[i]);
      }
    }
    long elapsedMs = oldest == Long.MAX_VALUE ? 0 : nowMs - oldest;
    long windowMs = Math.max(elapsedMs, (SAMPLES - 1) * SAMPLE_MS);
    return total * 1000.0 / windowMs;
  }

  /** Makes the sample that holds {@code nowMs} current, reusing the oldest. */
  private void roll(long nowMs) {
    if (starts[current] != Long.MIN_VALUE && nowMs < starts[current] + SAMPLE_MS) {
      return;
    }
    current = (current + 1) % SAMPLES;
    starts[current] = nowMs - Math.floorMod(nowMs, SAMPLE_MS);
    bytes[current] = 0;
  }
}
