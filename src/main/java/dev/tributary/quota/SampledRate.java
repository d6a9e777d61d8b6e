package dev.tributary.quota;

/**
 * A rate over the last {@code numWindows} windows of {@code windowMs}, as Kafka's {@code Rate} over
 * a {@code SampledStat}: each window starts when the first value after the previous one's end is
 * recorded; windows older than {@code numWindows * windowMs} count as empty; the rate divides the
 * windows' total by the time since the oldest window began, but by no less than {@code numWindows -
 * 1} full windows, so that one burst right after a quiet spell does not read as a huge rate.
 *
 * <p>Invariant: {@code current} is the window values are recorded into; every other window began
 * before it. Not thread-safe: {@link ClientQuotaManager} guards each rate with its lock.
 */
final class SampledRate {
  private final long windowMs;
  private final long[] startMs;
  private final double[] totals;
  private int current;

  SampledRate(int numWindows, long windowMs, long nowMs) {
    this.windowMs = windowMs;
    this.startMs = new long[numWindows];
    this.totals = new double[numWindows];
    java.util.Arrays.fill(startMs, nowMs);
  }

  void record(double value, long nowMs) {
    if (nowMs - startMs[current] >= windowMs) {
      current = (current + 1) % startMs.length;
      startMs[current] = nowMs;
      totals[current] = 0;
    }
    totals[current] += value;
  }

  /** Per second. */
  double rate(long nowMs) {
    purgeObsolete(nowMs);
    double total = 0;
    for (double t : totals) {
      total += t;
    }
    return total / (windowSizeMs(nowMs) / 1000.0);
  }

  /** The time the rate is measured over now (Kafka's {@code Rate.windowSize}). */
  long windowSizeMs(long nowMs) {
    purgeObsolete(nowMs);
    long oldest = startMs[0];
    for (long start : startMs) {
      oldest = Math.min(oldest, start);
    }
    long elapsedMs = nowMs - oldest;
    long fullWindows = elapsedMs / windowMs;
    long minFullWindows = startMs.length - 1;
    if (fullWindows < minFullWindows) {
      elapsedMs += (minFullWindows - fullWindows) * windowMs;
    }
    return elapsedMs;
  }

  /** True when every window is older than the whole span: nothing recorded lately. */
  boolean idle(long nowMs) {
    return nowMs - startMs[current] >= startMs.length * windowMs;
  }

  private void purgeObsolete(long nowMs) {
    long expireAgeMs = startMs.length * windowMs;
    for (int i = 0; i < startMs.length; i++) {
      if (nowMs - startMs[i] >= expireAgeMs) {
        startMs[i] = nowMs;
        totals[i] = 0;
      }
    }
  }
}
