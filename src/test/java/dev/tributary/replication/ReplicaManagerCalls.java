package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One-partition calls of the replica manager's many-partition produce and fetch, for tests that are
 * about one partition. A partition's error comes back as the core exception of its Kafka code:
 * thrown at once when the append failed up front, or failing the future when it failed while
 * waiting (acks=all), as a client of a single partition would see it.
 */
public final class ReplicaManagerCalls {
  private ReplicaManagerCalls() {}

  public static CompletableFuture<ProducePartitionResult> append(
      ReplicaManager replicas, TopicPartition tp, ByteBuffer batches, Acks acks, long timeoutMs) {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> all =
        replicas.appendRecords(Map.of(tp, batches), acks, timeoutMs);
    if (all.isDone()) {
      ProducePartitionResult result = all.join().get(tp);
      if (result.error() != Errors.NONE) {
        throw result.error().exception(result.errorMessage());
      }
    }
    return all.thenApply(
        results -> {
          ProducePartitionResult result = results.get(tp);
          if (result.error() != Errors.NONE) {
            throw result.error().exception(result.errorMessage());
          }
          return result;
        });
  }

  /** A consumer's fetch of one partition; an error fails the future with its core exception. */
  public static CompletableFuture<FetchPartitionData> fetch(
      ReplicaManager replicas, TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    return replicas
        .fetchMessages(
            FetchParams.consumer(maxWaitMs, 1, maxBytes),
            List.of(PartitionFetch.of(tp, offset, maxBytes)))
        .thenApply(
            answers -> {
              FetchPartitionData data = answers.get(0);
              if (data.error() != Errors.NONE) {
                throw data.error().exception(data.errorMessage());
              }
              return data;
            });
  }
}
