package dev.tributary.group;

import dev.tributary.log.record.SimpleRecord;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The coordinator's view of its partitions of {@code __consumer_offsets}: the only storage it has.
 * Offsets and group metadata are records in these partitions, replicated like any others, so a new
 * leader of a partition rebuilds the same state by reading the partition back. The broker
 * implements this over its replica manager; tests over an in-memory list.
 */
public interface CoordinatorLog {
  /**
   * Appends {@code records} to {@code partition} as its leader with {@code acks=all}; completes
   * once the records are committed (below the high watermark), or exceptionally if they could not
   * be (no longer leader, too few in-sync replicas, timeout).
   */
  CompletableFuture<Void> append(int partition, List<SimpleRecord> records);

  /**
   * Reads whole batches from {@code fromOffset} (the log start if it is below) up to the log end,
   * at most about {@code maxBytes}. Loading reads to the log end, not the high watermark: this
   * broker leads the partition, so what its log holds is what the partition will hold.
   */
  Chunk read(int partition, long fromOffset, int maxBytes);

  /** The Kafka error an append failure stands for: NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE. */
  GroupError errorFor(Throwable appendFailure);

  /** Batches read, with the log's offsets at the time of the read. */
  record Chunk(ByteBuffer batches, long logStartOffset, long logEndOffset) {}
}
