package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotEnoughReplicasAfterAppendException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What waits on one partition (Kafka's purgatory watch lists, for one partition): consumer long
 * polls for the high watermark, {@code acks=all} produces for the high watermark, follower fetches
 * for the log end offset. Each release returns the work to do instead of doing it: the caller runs
 * it after dropping the partition's lock, so no waiter's continuation runs under it.
 *
 * <p>Concurrency: guarded by the owning {@link Partition}'s lock.
 */
final class PartitionWaiters {
  /** Consumer long polls waiting for the HW; released normally (empty read) on shutdown. */
  private final HighWatermarkWaiters fetches = new HighWatermarkWaiters();

  /** {@code acks=all} produces waiting for the HW; failed, never released, when leadership ends. */
  private final HighWatermarkWaiters produces = new HighWatermarkWaiters();

  /** Follower fetches (replica fetch long polls) waiting for the log end offset to move. */
  private final HighWatermarkWaiters logEnd = new HighWatermarkWaiters();

  CompletableFuture<Void> awaitHighWatermarkAbove(long offset) {
    return fetches.add(offset);
  }

  CompletableFuture<Void> awaitReplicated(long lastOffset) {
    return produces.add(lastOffset);
  }

  CompletableFuture<Void> awaitLogEndOffsetAbove(long offset) {
    return logEnd.add(offset);
  }

  /**
   * The high watermark of {@code tp} moved to {@code highWatermark}: long polls below it complete;
   * produces below it complete if the committed {@code isr} still has {@code minInSyncReplicas}
   * members, else fail with NOT_ENOUGH_REPLICAS_AFTER_APPEND (the records are in the log, but the
   * ISR shrank before they were replicated).
   */
  List<Runnable> onHighWatermark(
      long highWatermark, TopicPartition tp, List<Integer> isr, int minInSyncReplicas) {
    if (fetches.size() == 0 && produces.size() == 0) {
      return List.of(); // the common case on the produce path: nobody is waiting, allocate nothing
    }
    List<CompletableFuture<Void>> polls = new ArrayList<>();
    fetches.releaseInto(highWatermark, polls);
    List<CompletableFuture<Void>> acked = new ArrayList<>();
    produces.releaseInto(highWatermark, acked);
    List<Runnable> completions = new ArrayList<>(polls.size() + acked.size());
    polls.forEach(f -> completions.add(() -> f.complete(null)));
    if (isr.size() >= minInSyncReplicas) {
      acked.forEach(f -> completions.add(() -> f.complete(null)));
    } else if (!acked.isEmpty()) {
      NotEnoughReplicasAfterAppendException error =
          new NotEnoughReplicasAfterAppendException(
              "The records of %s were appended, but the ISR %s shrank below min.insync.replicas=%d before they were replicated"
                  .formatted(tp, isr, minInSyncReplicas));
      acked.forEach(
          f -> completions.add(() -> f.completeExceptionally(new CompletionException(error))));
    }
    return completions;
  }

  /** The log end offset moved to {@code logEndOffset}: follower fetches below it complete. */
  List<Runnable> onLogEndOffset(long logEndOffset) {
    if (logEnd.size() == 0) {
      return List.of();
    }
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    logEnd.releaseInto(logEndOffset, ready);
    List<Runnable> completions = new ArrayList<>(ready.size());
    ready.forEach(f -> completions.add(() -> f.complete(null)));
    return completions;
  }

  /**
   * Leadership here ended: everything waiting fails with NOT_LEADER_OR_FOLLOWER ({@code message}).
   */
  Runnable failAll(String message) {
    List<CompletableFuture<Void>> all = new ArrayList<>(fetches.releaseAll());
    all.addAll(produces.releaseAll());
    all.addAll(logEnd.releaseAll());
    if (all.isEmpty()) {
      return () -> {};
    }
    return () -> {
      NotLeaderOrFollowerException error = new NotLeaderOrFollowerException(message);
      all.forEach(f -> f.completeExceptionally(new CompletionException(error)));
    };
  }

  /** Long polls answer now with what they have (the broker is stopping); produces keep waiting. */
  Runnable releasePolls() {
    List<CompletableFuture<Void>> all = new ArrayList<>(fetches.releaseAll());
    all.addAll(logEnd.releaseAll());
    return () -> all.forEach(f -> f.complete(null));
  }

  int size() {
    return fetches.size() + produces.size() + logEnd.size();
  }
}
