package dev.tributary.common;

/**
 * A broker's clock with an adjustable wall-clock offset: another {@link Time}'s wall clock plus
 * {@link #skewMs}, and its monotonic clock unchanged, as on a host whose clock is wrong or is
 * stepped (an NTP step, an operator): the monotonic clock of such a host still ticks at the normal
 * rate. Setting the skew is a jump of the wall clock by the difference. It lets a test, the demo or
 * a learner skew one running broker and see that nothing safety-relevant depends on agreeing wall
 * clocks (docs/reliability.md, "Clock skew").
 *
 * <p>Thread-safe: the offset is one volatile field, read once per {@link #milliseconds}.
 */
public final class SkewedTime implements Time {
  /** The largest skew accepted either way: one day. */
  public static final long MAX_SKEW_MS = 86_400_000L;

  private final Time base;
  private volatile long skewMs;

  /**
   * @param skewMs the initial offset of the wall clock, within ±{@link #MAX_SKEW_MS}
   */
  public SkewedTime(Time base, long skewMs) {
    this.base = base;
    setSkewMs(skewMs);
  }

  /** The wall clock's offset from the base clock's, in ms (positive: ahead). */
  public long skewMs() {
    return skewMs;
  }

  /**
   * Sets the wall clock's offset (absolute, not added): the wall clock jumps by the difference.
   *
   * @throws IllegalArgumentException beyond ±{@link #MAX_SKEW_MS}
   */
  public void setSkewMs(long skewMs) {
    if (skewMs < -MAX_SKEW_MS || skewMs > MAX_SKEW_MS) {
      throw new IllegalArgumentException(
          "a clock skew must be within ±" + MAX_SKEW_MS + " ms (one day), not " + skewMs);
    }
    this.skewMs = skewMs;
  }

  @Override
  public long milliseconds() {
    return base.milliseconds() + skewMs;
  }

  @Override
  public long nanoseconds() {
    return base.nanoseconds();
  }
}
