package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link PartitionForwarder} that records each forward and answers when the test says so, as the
 * leader would (its offsets) or as an unreachable one (a failure).
 */
final class RecordingForwarder implements PartitionForwarder {
  /** One forward, and the answer the test gives it. */
  record Call(
      int leaderId,
      Map<TopicPartition, ByteBuffer> batches,
      Acks acks,
      long timeoutMs,
      RequestContext context,
      CompletableFuture<Map<TopicPartition, ProducePartitionResult>> answer) {

    /** The leader appended every partition, each at {@code baseOffset}. */
    void appendedAt(long baseOffset) {
      Map<TopicPartition, ProducePartitionResult> results = new LinkedHashMap<>();
      batches.forEach((tp, batch) -> results.put(tp, appended(batch, baseOffset)));
      answer.complete(results);
    }

    void answer(Map<TopicPartition, ProducePartitionResult> results) {
      answer.complete(results);
    }

    void fail(Throwable failure) {
      answer.completeExceptionally(failure);
    }
  }

  private final List<Call> calls = new ArrayList<>();

  List<Call> calls() {
    return calls;
  }

  @Override
  public CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forward(
      int leaderId,
      Map<TopicPartition, ByteBuffer> batches,
      Acks acks,
      long timeoutMs,
      RequestContext context) {
    Call call =
        new Call(
            leaderId,
            new LinkedHashMap<>(batches),
            acks,
            timeoutMs,
            context,
            new CompletableFuture<>());
    calls.add(call);
    return call.answer();
  }

  /** What a leader answers for {@code batch} appended at {@code baseOffset}. */
  static ProducePartitionResult appended(ByteBuffer batch, long baseOffset) {
    int records = 0;
    for (RecordBatch b : BatchIterator.strict(batch.duplicate())) {
      records += b.recordCount();
    }
    return new ProducePartitionResult(
        Errors.NONE, null, baseOffset, baseOffset + records - 1, -1, 0, records);
  }
}
