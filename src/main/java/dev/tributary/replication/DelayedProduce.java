package dev.tributary.replication;

import dev.tributary.common.Scheduler;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@code acks=all} produce waiting for its partitions' high watermarks (Kafka's DelayedProduce),
 * holding no thread: each partition's acknowledgement completes when the high watermark passes its
 * records (or fails when leadership or the ISR says it cannot); the whole answer completes when
 * every partition has one, or at the deadline, when the rest answer REQUEST_TIMED_OUT.
 *
 * <p>Concurrency: acknowledgements complete on the threads that move high watermarks (follower
 * fetches), the deadline on the scheduler's; {@code results} is only written under {@code this}.
 */
final class DelayedProduce {
  private final Map<TopicPartition, Partition.AppendResult> waiting;
  private final Map<TopicPartition, ProducePartitionResult> results;
  private final long timeoutMs;
  private final CompletableFuture<Map<TopicPartition, ProducePartitionResult>> answer =
      new CompletableFuture<>();
  private final AtomicInteger outstanding;
  private Scheduler.Cancellable deadline;

  /**
   * @param results every partition of the request in its order; those in {@code waiting} hold null
   *     until acknowledged
   */
  DelayedProduce(
      Map<TopicPartition, Partition.AppendResult> waiting,
      Map<TopicPartition, ProducePartitionResult> results,
      long timeoutMs) {
    this.waiting = waiting;
    this.results = results;
    this.timeoutMs = timeoutMs;
    this.outstanding = new AtomicInteger(waiting.size());
  }

  CompletableFuture<Map<TopicPartition, ProducePartitionResult>> start(Scheduler scheduler) {
    synchronized (this) {
      deadline = scheduler.schedule(timeoutMs, this::expire);
    }
    waiting.forEach(
        (tp, appended) ->
            appended
                .acked()
                .whenComplete(
                    (ok, failure) ->
                        settle(tp, ProducePartitionResult.acknowledged(appended.info(), failure))));
    return answer;
  }

  /**
   * The answer for an append whose acknowledgement is already settled, or null while it waits. A
   * settled failure is a failure: leadership can end (a leader change, a reassignment removing this
   * replica) or the ISR shrink on another thread between the append and this look, and records that
   * only this replica holds must not be answered as written.
   */
  static ProducePartitionResult settled(Partition.AppendResult appended) {
    CompletableFuture<Void> acked = appended.acked();
    if (!acked.isDone()) {
      return null;
    }
    Throwable failure = null;
    try {
      acked.join();
    } catch (RuntimeException e) {
      failure = e;
    }
    return ProducePartitionResult.acknowledged(appended.info(), failure);
  }

  private void settle(TopicPartition tp, ProducePartitionResult result) {
    synchronized (this) {
      if (answer.isDone() || results.get(tp) != null) {
        return;
      }
      results.put(tp, result);
    }
    if (outstanding.decrementAndGet() == 0) {
      synchronized (this) {
        deadline.cancel();
      }
      answer.complete(results);
    }
  }

  private void expire() {
    synchronized (this) {
      if (answer.isDone()) {
        return;
      }
      waiting.forEach(
          (tp, appended) -> {
            if (results.get(tp) == null) {
              results.put(
                  tp,
                  ProducePartitionResult.failed(
                      Errors.REQUEST_TIMED_OUT,
                      "Timed out after "
                          + timeoutMs
                          + " ms waiting for the in-sync replicas of "
                          + tp
                          + "; the records were appended and may still be committed (outcome"
                          + " unknown)"));
            }
          });
    }
    answer.complete(results);
  }
}
