package dev.tributary.replication;

import dev.tributary.log.PartitionLog;
import java.nio.ByteBuffer;

/**
 * What a follower does to its log; {@link Partition} runs these under its lock after checking this
 * broker still follows in the epoch the fetch was sent in, then moves its high watermark.
 */
final class FollowerChanges {
  private FollowerChanges() {}

  /**
   * Appends batches as the leader stored them (offsets, epochs, timestamps kept), then raises the
   * log start offset to the leader's when the leader's is inside this log (retention or
   * DeleteRecords there).
   */
  static void append(PartitionLog log, ByteBuffer records, long leaderLogStartOffset) {
    if (records.hasRemaining()) {
      log.appendAsFollower(records);
    }
    if (leaderLogStartOffset > log.logStartOffset() && leaderLogStartOffset <= log.logEndOffset()) {
      log.maybeIncrementLogStartOffset(leaderLogStartOffset);
    }
  }

  /**
   * Truncates to {@code offset}, where this replica agrees with the leader: even at the log end,
   * since an epoch this replica led without writing starts there and must go too; truncation is by
   * whole batches and may end below {@code offset}. {@code startAt} instead empties the log and
   * restarts it there (the leader no longer has what this replica would fetch next).
   */
  static void truncate(PartitionLog log, long offset, boolean startAt) {
    if (startAt) {
      log.truncateFullyAndStartAt(offset);
    } else {
      log.truncateTo(offset);
    }
  }
}
