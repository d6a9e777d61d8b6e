package dev.tributary.log;

import dev.tributary.common.Time;
import java.util.concurrent.TimeUnit;

/** A clock that moves only when a test says so. Thread-safe. */
public final class ManualTime implements Time {
  private volatile long nowMs;

  public ManualTime(long startMs) {
    this.nowMs = startMs;
  }

  @Override
  public long milliseconds() {
    return nowMs;
  }

  @Override
  public long nanoseconds() {
    return TimeUnit.MILLISECONDS.toNanos(nowMs);
  }

  public synchronized void sleep(long ms) {
    nowMs += ms;
  }
}
