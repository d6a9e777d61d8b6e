package dev.tributary.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Futures waiting for a partition's high watermark to pass an offset: long-poll fetches waiting for
 * data and {@code acks=all} produces waiting for replication. Kafka's "purgatory", for one
 * partition.
 *
 * <p>Concurrency: guarded by the owning {@link Partition}'s lock. {@link #releaseInto} only
 * collects the futures; the caller completes them after dropping the lock, so no waiter's
 * continuation runs under it.
 */
final class HighWatermarkWaiters {
  private record Waiter(long offset, CompletableFuture<Void> future) {}

  private static final int PURGE_THRESHOLD = 1024;
  private final PriorityQueue<Waiter> waiters =
      new PriorityQueue<>((a, b) -> Long.compare(a.offset, b.offset));

  /** Registers a future that completes once the high watermark is above {@code offset}. */
  CompletableFuture<Void> add(long offset) {
    if (waiters.size() >= PURGE_THRESHOLD) {
      waiters.removeIf(
          w -> w.future.isDone()); // timed out or cancelled waiters of a partition that is quiet
    }
    CompletableFuture<Void> future = new CompletableFuture<>();
    waiters.add(new Waiter(offset, future));
    return future;
  }

  /** Moves the futures whose offset is below {@code highWatermark} into {@code ready}. */
  void releaseInto(long highWatermark, List<CompletableFuture<Void>> ready) {
    while (!waiters.isEmpty() && waiters.peek().offset < highWatermark) {
      ready.add(waiters.poll().future);
    }
  }

  /** Removes and returns every future (leadership lost, partition deleted). */
  List<CompletableFuture<Void>> releaseAll() {
    List<CompletableFuture<Void>> all = new ArrayList<>(waiters.size());
    waiters.forEach(w -> all.add(w.future));
    waiters.clear();
    return all;
  }

  int size() {
    return waiters.size();
  }
}
