package dev.tributary.replication;

import dev.tributary.common.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A fetch that found fewer than {@code fetch.min.bytes} and waits for more (Kafka's DelayedFetch),
 * holding no thread. It watches each of its partitions: a consumer's for the high watermark to pass
 * its fetch offset, a follower's for the log end offset to. An append or a high watermark move that
 * passes a watch completes it, as does a change of leadership (the watch fails) or the deadline; it
 * is never polled.
 *
 * <p>When a watch fires the fetch reads again: with enough bytes (or an error, or a diverging
 * epoch) that read is the answer; otherwise every partition is watched again from where the read
 * found its bound, so the next append or high watermark move tries again. At the deadline the
 * answer is whatever one more read finds.
 *
 * <p>Concurrency: watches fire on whichever thread moved the offset (a producer's, a follower's
 * fetch); the work is handed to {@code executor}. {@code done} makes completion happen once.
 */
final class DelayedFetch {
  private final FetchParams params;
  private final List<PartitionFetch> fetches;
  private final Function<PartitionFetch, Watchable> partitions;
  private final Supplier<List<FetchPartitionData>> read;
  private final Executor executor;
  private final CompletableFuture<List<FetchPartitionData>> result = new CompletableFuture<>();
  private final AtomicBoolean done = new AtomicBoolean();
  private final List<CompletableFuture<Void>> watches = new ArrayList<>();
  private Scheduler.Cancellable deadline;

  /**
   * Bumped each time the partitions are watched again; a watch of an older round that fires (the
   * old watches are completed to release their waiters) is ignored. Guarded by {@code this}.
   */
  private int round;

  /** What a delayed fetch watches on one partition; null-safe for partitions that are not here. */
  interface Watchable {
    /** Completes once the partition's bound (HW or LEO, by the fetch's isolation) passes offset. */
    CompletableFuture<Void> awaitAbove(long offset);
  }

  /**
   * @param partitions the watchable partition for each fetched one, or null if it is not here
   * @param read reads every partition again (the same as the first read)
   */
  DelayedFetch(
      FetchParams params,
      List<PartitionFetch> fetches,
      Function<PartitionFetch, Watchable> partitions,
      Supplier<List<FetchPartitionData>> read,
      Executor executor) {
    this.params = params;
    this.fetches = fetches;
    this.partitions = partitions;
    this.read = read;
    this.executor = executor;
  }

  /** Starts watching from the first read's bounds; the future completes with the answer. */
  CompletableFuture<List<FetchPartitionData>> start(
      List<FetchPartitionData> firstRead, Scheduler scheduler) {
    synchronized (this) {
      deadline = scheduler.schedule(params.maxWaitMs(), this::onDeadline);
      watch(firstRead);
    }
    return result;
  }

  /** True when {@code answer} needs no more waiting (Kafka's tryComplete conditions). */
  static boolean satisfies(FetchParams params, List<FetchPartitionData> answer) {
    long bytes = 0;
    for (FetchPartitionData data : answer) {
      if (data.error() != dev.tributary.common.errors.Errors.NONE
          || data.divergingEpoch() != null) {
        return true;
      }
      bytes += data.sizeInBytes();
    }
    // Kafka's bytesReadable >= minBytes: a min.bytes of 0 is satisfied by nothing at all
    return bytes >= Math.max(0, params.minBytes()) && (bytes > 0 || params.minBytes() <= 0);
  }

  private synchronized void watch(List<FetchPartitionData> lastRead) {
    if (done.get()) {
      return;
    }
    int thisRound = ++round;
    watches.forEach(w -> w.complete(null)); // release the old round's waiters (ignored below)
    watches.clear();
    for (int i = 0; i < fetches.size(); i++) {
      PartitionFetch fetch = fetches.get(i);
      Watchable partition = partitions.apply(fetch);
      if (partition == null) {
        continue;
      }
      FetchPartitionData last = lastRead.get(i);
      long bound = params.isFromFollower() ? last.logEndOffset() : last.highWatermark();
      CompletableFuture<Void> watch = partition.awaitAbove(Math.max(fetch.fetchOffset(), bound));
      watches.add(watch);
      watch.whenComplete((ignored, failure) -> executor.execute(() -> onWatchFired(thisRound)));
    }
  }

  private void onWatchFired(int firedRound) {
    synchronized (this) {
      if (done.get() || firedRound != round) {
        return;
      }
      round++; // the other watches of this round are now stale: one re-read per round
    }
    List<FetchPartitionData> answer;
    try {
      answer = read.get();
    } catch (RuntimeException e) {
      finish(null, e);
      return;
    }
    if (satisfies(params, answer)) {
      finish(answer, null);
    } else {
      watch(answer);
    }
  }

  private void onDeadline() {
    if (done.get()) {
      return;
    }
    executor.execute(
        () -> {
          try {
            finish(read.get(), null);
          } catch (RuntimeException e) {
            finish(null, e);
          }
        });
  }

  private void finish(List<FetchPartitionData> answer, Throwable failure) {
    if (!done.compareAndSet(false, true)) {
      return;
    }
    synchronized (this) {
      if (deadline != null) {
        deadline.cancel();
      }
      watches.forEach(w -> w.complete(null));
      watches.clear();
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else {
      result.complete(answer);
    }
  }
}
