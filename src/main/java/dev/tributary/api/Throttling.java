package dev.tributary.api;

import dev.tributary.common.Scheduler;
import java.util.concurrent.CompletableFuture;

/**
 * Holds an answer back for a quota's throttle time: the scheduler completes it later, so no request
 * thread waits out a throttle (Kafka mutes the channel instead; HTTP has only the answer to delay).
 */
final class Throttling {
  private Throttling() {}

  static <T> CompletableFuture<T> delayed(Scheduler scheduler, long delayMs, T answer) {
    if (delayMs <= 0) {
      return CompletableFuture.completedFuture(answer);
    }
    CompletableFuture<T> later = new CompletableFuture<>();
    scheduler.schedule(delayMs, () -> later.complete(answer));
    return later;
  }
}
