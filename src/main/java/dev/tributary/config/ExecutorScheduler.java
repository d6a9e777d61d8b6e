package dev.tributary.config;

import dev.tributary.common.Scheduler;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link Scheduler}: one daemon thread that fires deadlines (long-poll and produce
 * timeouts) and runs log housekeeping. Deadline tasks only complete futures; what follows them runs
 * on the broker's delayed-completion executor, so a slow housekeeping pass delays deadlines but
 * never blocks them on I/O.
 */
final class ExecutorScheduler implements Scheduler, AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;

  ExecutorScheduler(String threadName) {
    executor =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true); // cancelled long-poll timeouts must not pile up
  }

  @Override
  public Cancellable schedule(long delayMs, Runnable task) {
    var future = executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }

  void scheduleWithFixedDelay(Runnable task, long periodMs) {
    executor.scheduleWithFixedDelay(task, periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
