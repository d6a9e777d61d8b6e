package dev.tributary.replication;

import java.util.OptionalDouble;

/**
 * A partition's bytes-in while this broker leads it (what the balancer weighs): the bytes each
 * produce appended, over Kafka's 11 one-second samples ({@link ByteRate}). It counts only between
 * {@link #start} and {@link #stop}, and {@link #stop} forgets every sample, so a partition led
 * again here starts from nothing and one no longer led reports nothing.
 *
 * <p>Cheap on the produce path: one volatile read, then this partition's own meter's monitor (never
 * the partition lock), no allocation. Thread-safe.
 */
public final class LeaderBytesIn {
  private final ByteRate rate = new ByteRate();

  /** True while this broker leads the partition. */
  private volatile boolean counting;

  void start() {
    counting = true;
  }

  void stop() {
    counting = false;
    rate.reset();
  }

  /** Counts {@code sizeInBytes} appended by a produce at {@code nowMs} (monotonic ms). */
  public void record(int sizeInBytes, long nowMs) {
    if (counting) {
      rate.record(sizeInBytes, nowMs);
    }
  }

  /** Bytes per second over the last ~10 s while leading; empty while not. */
  public OptionalDouble perSecond(long nowMs) {
    return counting ? OptionalDouble.of(rate.rate(nowMs)) : OptionalDouble.empty();
  }
}
