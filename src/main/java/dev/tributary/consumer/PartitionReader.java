package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * How a consumer instance reads partitions: from this broker's replica manager when it leads the
 * partition, otherwise from the leader over the network. Reads see only committed records (below
 * the high watermark), like every consumer read.
 */
public interface PartitionReader {
  /**
   * Whole batches from {@code offset}, waiting up to {@code maxWaitMs} for some to be committed;
   * empty if none were. Fails with {@code OffsetOutOfRangeException} outside [log start, HW], with
   * {@code NotLeaderOrFollowerException} / {@code LeaderNotAvailableException} while leadership
   * moves.
   */
  CompletableFuture<Fetched> fetch(TopicPartition tp, long offset, int maxBytes, long maxWaitMs);

  /** The partition's log start offset and high watermark, from its leader. */
  CompletableFuture<Offsets> offsets(TopicPartition tp);

  record Fetched(ByteBuffer records, long highWatermark, long logStartOffset) {}

  record Offsets(long logStartOffset, long highWatermark) {}
}
