package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.metadata.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Futures that complete once this broker has applied metadata that satisfies them (an offset the
 * controller committed a change at, a topic another broker created), told by {@link #onApplied} for
 * every image the replica manager applies. No thread waits and nothing polls: a waiter is checked
 * when an image arrives, and expires by a scheduler deadline.
 *
 * <p>Thread-safe: images arrive on the metadata thread, waiters are added on request threads.
 */
public final class MetadataWaiters {
  private final Scheduler scheduler;
  private final int brokerId;
  private final List<Waiter> waiters = new ArrayList<>();
  private volatile MetadataImage latest = MetadataImage.EMPTY;

  private record Waiter(
      Predicate<MetadataImage> condition, CompletableFuture<MetadataImage> done) {}

  public MetadataWaiters(Scheduler scheduler, int brokerId) {
    this.scheduler = scheduler;
    this.brokerId = brokerId;
  }

  /**
   * Completes with the first applied image at or after metadata offset {@code offset}; fails with
   * BROKER_NOT_AVAILABLE ("committed, not seen here yet") after {@code timeoutMs}.
   */
  public CompletableFuture<MetadataImage> awaitOffset(long offset, long timeoutMs) {
    return await(image -> image.lastOffset() >= offset, timeoutMs);
  }

  /**
   * Completes with the first applied image that satisfies {@code condition} (the current one, if it
   * does); fails with BROKER_NOT_AVAILABLE after {@code timeoutMs}.
   */
  public CompletableFuture<MetadataImage> await(
      Predicate<MetadataImage> condition, long timeoutMs) {
    MetadataImage now = latest;
    if (condition.test(now)) {
      return CompletableFuture.completedFuture(now);
    }
    Waiter waiter = new Waiter(condition, new CompletableFuture<>());
    synchronized (waiters) {
      waiters.add(waiter);
    }
    // An image applied between the check above and the add would be missed: check again.
    onApplied(latest);
    Scheduler.Cancellable deadline =
        scheduler.schedule(
            timeoutMs,
            () -> {
              synchronized (waiters) {
                waiters.remove(waiter);
              }
              waiter.done.completeExceptionally(
                  new BrokerNotAvailableException(
                      "The change was committed, but broker "
                          + brokerId
                          + " has not seen it yet; retry the read"));
            });
    waiter.done.whenComplete((image, failure) -> deadline.cancel());
    return waiter.done;
  }

  /** This broker has applied {@code image}: completes every waiter it satisfies. */
  public void onApplied(MetadataImage image) {
    if (image.lastOffset() > latest.lastOffset()) {
      latest = image;
    }
    List<Waiter> ready = new ArrayList<>();
    synchronized (waiters) {
      if (waiters.isEmpty()) {
        return;
      }
      waiters.removeIf(
          w -> {
            if (w.condition.test(image)) {
              ready.add(w);
              return true;
            }
            return false;
          });
    }
    ready.forEach(w -> w.done.complete(image));
  }
}
