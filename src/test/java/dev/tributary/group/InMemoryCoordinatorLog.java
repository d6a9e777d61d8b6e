package dev.tributary.group;

import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * {@code __consumer_offsets} in memory: per partition a list of v2 batches built with {@link
 * RecordBatchBuilder}, offsets assigned on append. What an append does is the test's choice:
 *
 * <ul>
 *   <li>{@link Mode#COMMIT}: the batch is in the log and committed at once (acks=all succeeded);
 *   <li>{@link Mode#HOLD}: the batch is in the log, its commit waits for {@link #releaseAll} or
 *       {@link #failHeld};
 *   <li>{@link Mode#NOT_LEADER}: nothing is written, the append fails with NOT_LEADER_OR_FOLLOWER;
 *   <li>{@link Mode#TIMEOUT}: the batch is in the leader's log but the append fails with a timeout
 *       (too few replicas caught up in time).
 * </ul>
 *
 * Single-threaded, like the tests that use it.
 */
public final class InMemoryCoordinatorLog implements CoordinatorLog {
  public enum Mode {
    COMMIT,
    HOLD,
    NOT_LEADER,
    TIMEOUT
  }

  /** An append whose commit the test holds. */
  public record Held(int partition, List<SimpleRecord> records, CompletableFuture<Void> future) {}

  /** A decoded record as stored, for assertions. */
  public record Stored(long offset, GroupRecords.Key key, ByteBuffer value) {
    public boolean tombstone() {
      return value == null;
    }
  }

  private final Map<Integer, List<ByteBuffer>> batches = new HashMap<>();
  private final Map<Integer, Long> logEndOffsets = new HashMap<>();
  private final List<Held> held = new ArrayList<>();
  private Mode mode = Mode.COMMIT;
  private RuntimeException readFailure;
  private int reads;

  public void mode(Mode mode) {
    this.mode = mode;
  }

  /** Makes every read throw {@code failure} (null: reads work again). */
  public void failReads(RuntimeException failure) {
    this.readFailure = failure;
  }

  public int reads() {
    return reads;
  }

  @Override
  public CompletableFuture<Void> append(int partition, List<SimpleRecord> records) {
    switch (mode) {
      case NOT_LEADER -> {
        return CompletableFuture.failedFuture(
            new NotLeaderOrFollowerException("not the leader of __consumer_offsets-" + partition));
      }
      case TIMEOUT -> {
        write(partition, records);
        return CompletableFuture.failedFuture(
            new CompletionException(new TimeoutException("acks=all timed out")));
      }
      case HOLD -> {
        write(partition, records);
        CompletableFuture<Void> future = new CompletableFuture<>();
        held.add(new Held(partition, List.copyOf(records), future));
        return future;
      }
      default -> {
        write(partition, records);
        return CompletableFuture.completedFuture(null);
      }
    }
  }

  /** Writes records to the log directly, as a previous leader would have (for loading tests). */
  public void write(int partition, List<SimpleRecord> records) {
    long base = logEndOffset(partition);
    ByteBuffer batch = RecordBatchBuilder.build(records, CompressionType.NONE, base, 0);
    batches.computeIfAbsent(partition, p -> new ArrayList<>()).add(batch);
    logEndOffsets.put(partition, base + records.size());
  }

  public long logEndOffset(int partition) {
    return logEndOffsets.getOrDefault(partition, 0L);
  }

  public List<Held> held() {
    return List.copyOf(held);
  }

  /** Commits every held append, oldest first. */
  public void releaseAll() {
    List<Held> now = List.copyOf(held);
    held.clear();
    now.forEach(h -> h.future().complete(null));
  }

  /** Fails every held append with {@code failure}. */
  public void failHeld(Throwable failure) {
    List<Held> now = List.copyOf(held);
    held.clear();
    now.forEach(h -> h.future().completeExceptionally(failure));
  }

  @Override
  public Chunk read(int partition, long fromOffset, int maxBytes) {
    reads++;
    if (readFailure != null) {
      throw readFailure;
    }
    List<ByteBuffer> selected = new ArrayList<>();
    int size = 0;
    for (ByteBuffer batch : batches.getOrDefault(partition, List.of())) {
      RecordBatch b = new RecordBatch(batch.duplicate());
      if (b.lastOffset() < fromOffset) {
        continue;
      }
      if (!selected.isEmpty() && size + batch.remaining() > maxBytes) {
        break;
      }
      selected.add(batch.duplicate());
      size += batch.remaining();
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    selected.forEach(out::put);
    out.flip();
    return new Chunk(out, 0, logEndOffset(partition));
  }

  @Override
  public GroupError errorFor(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof NotLeaderOrFollowerException
        ? GroupError.NOT_COORDINATOR
        : GroupError.COORDINATOR_NOT_AVAILABLE;
  }

  /** Every record of {@code partition}, decoded, in offset order. */
  public List<Stored> records(int partition) {
    List<Stored> out = new ArrayList<>();
    for (ByteBuffer batch : batches.getOrDefault(partition, List.of())) {
      for (RecordBatch b : BatchIterator.strict(batch.duplicate())) {
        for (Record r : b.records()) {
          out.add(new Stored(r.offset(), GroupRecords.readKey(r.key()), r.value()));
        }
      }
    }
    return out;
  }

  /**
   * The group metadata records of {@code groupId} in {@code partition}, decoded (null = tombstone).
   */
  public List<GroupRecords.StoredGroup> groupRecords(int partition, String groupId) {
    List<GroupRecords.StoredGroup> out = new ArrayList<>();
    for (Stored s : records(partition)) {
      if (s.key() instanceof GroupRecords.GroupKey gk && gk.groupId().equals(groupId)) {
        out.add(s.tombstone() ? null : GroupRecords.readGroupValue(s.value()));
      }
    }
    return out;
  }
}
