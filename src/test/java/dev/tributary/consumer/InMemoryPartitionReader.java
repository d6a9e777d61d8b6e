package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Partitions in memory: one v2 batch per {@link #append}, every record committed at once (HW = log
 * end). Fetches answer at once unless {@link #holdFetches}, in which case they wait for {@link
 * #releaseFetches}.
 */
final class InMemoryPartitionReader implements PartitionReader {
  private record Pending(TopicPartition tp, long offset, CompletableFuture<Fetched> future) {}

  private final Map<TopicPartition, List<ByteBuffer>> batches = new HashMap<>();
  private final Map<TopicPartition, Long> ends = new HashMap<>();
  private final List<Pending> held = new ArrayList<>();
  boolean holdFetches;
  int fetches;

  /** Appends {@code count} records with {@code valueBytes}-byte values and no key. */
  void append(TopicPartition tp, int count, int valueBytes) {
    long base = ends.getOrDefault(tp, 0L);
    List<SimpleRecord> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(new SimpleRecord(1_000 + base + i, null, new byte[valueBytes]));
    }
    batches
        .computeIfAbsent(tp, t -> new ArrayList<>())
        .add(RecordBatchBuilder.build(records, CompressionType.NONE, base, 0));
    ends.put(tp, base + count);
  }

  @Override
  public CompletableFuture<Fetched> fetch(
      TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    fetches++;
    CompletableFuture<Fetched> future = new CompletableFuture<>();
    if (holdFetches) {
      held.add(new Pending(tp, offset, future));
    } else {
      answer(tp, offset, future);
    }
    return future;
  }

  int heldFetches() {
    return held.size();
  }

  void releaseFetches() {
    holdFetches = false;
    List<Pending> now = List.copyOf(held);
    held.clear();
    now.forEach(p -> answer(p.tp(), p.offset(), p.future()));
  }

  private void answer(TopicPartition tp, long offset, CompletableFuture<Fetched> future) {
    long end = ends.getOrDefault(tp, 0L);
    if (offset < 0 || offset > end) {
      future.completeExceptionally(
          new OffsetOutOfRangeException(offset + " is outside [0, " + end + "] of " + tp));
      return;
    }
    List<ByteBuffer> selected = new ArrayList<>();
    int size = 0;
    for (ByteBuffer b : batches.getOrDefault(tp, List.of())) {
      if (new RecordBatch(b.duplicate()).lastOffset() >= offset) {
        selected.add(b.duplicate());
        size += b.remaining();
      }
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    selected.forEach(out::put);
    out.flip();
    future.complete(new Fetched(out, end, 0));
  }

  @Override
  public CompletableFuture<Offsets> offsets(TopicPartition tp) {
    return CompletableFuture.completedFuture(new Offsets(0, ends.getOrDefault(tp, 0L)));
  }
}
