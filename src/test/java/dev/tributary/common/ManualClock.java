package dev.tributary.common;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A clock and scheduler that move only when a test says so; due tasks run on the test's thread, in
 * due order (ties in scheduling order). Shared by the replication, group, consumer and dashboard
 * tests.
 *
 * <p>{@link #advance} moves both clocks and runs due tasks (scheduling is monotonic, like a {@code
 * ScheduledExecutorService}); {@link #jumpWallClock} moves only the wall clock, as an NTP step or a
 * skewed host would. Until a jump, {@link #milliseconds} and {@link #monotonicMs} agree.
 */
public final class ManualClock implements Scheduler, Time {
  private record Task(long dueMs, long seq, Runnable action, boolean[] cancelled) {}

  private final List<Task> tasks = new ArrayList<>();
  private long nowMs = 1_700_000_000_000L;

  /** How far the wall clock has jumped away from the monotonic one. */
  private long wallOffsetMs;

  private long seq;

  @Override
  public synchronized Cancellable schedule(long delayMs, Runnable task) {
    boolean[] cancelled = {false};
    tasks.add(new Task(nowMs + delayMs, seq++, task, cancelled));
    return () -> cancelled[0] = true;
  }

  /** Advances the clock, running every task that falls due, in due order. */
  public void advance(long ms) {
    long target;
    synchronized (this) {
      target = nowMs + ms;
    }
    while (true) {
      Task next;
      synchronized (this) {
        next =
            tasks.stream()
                .filter(t -> t.dueMs <= target)
                .min(Comparator.comparingLong(Task::dueMs).thenComparingLong(Task::seq))
                .orElse(null);
        if (next == null) {
          nowMs = target;
          return;
        }
        tasks.remove(next);
        nowMs = Math.max(nowMs, next.dueMs);
      }
      if (!next.cancelled[0]) {
        next.action.run();
      }
    }
  }

  /**
   * Steps the wall clock by {@code ms} (negative: backwards) without moving monotonic time or
   * running any task.
   */
  public synchronized void jumpWallClock(long ms) {
    wallOffsetMs += ms;
  }

  public synchronized int pendingTasks() {
    return (int) tasks.stream().filter(t -> !t.cancelled[0]).count();
  }

  @Override
  public synchronized long milliseconds() {
    return nowMs + wallOffsetMs;
  }

  @Override
  public synchronized long nanoseconds() {
    return nowMs * 1_000_000;
  }
}
