package dev.tributary.replication;

/**
 * Told of one leader partition's replication events as they happen: the events a record trace
 * (dev.tributary.trace) measures. Notification only: every method runs under the partition's lock,
 * on the thread that caused the event, so it must record and return at once, never block, and never
 * call back into the partition (lock order partition → listener).
 */
public interface ReplicationListener {
  /**
   * The leader appended a batch ending at {@code lastOffset}; its log end offset (LEO) is now
   * {@code logEndOffset}, and its high watermark (HW), before this append moves it, {@code
   * highWatermark}. Runs on the producing thread.
   */
  void onAppend(long lastOffset, long logEndOffset, long highWatermark);

  /**
   * Follower {@code replicaId} fetched from {@code fetchOffset}: the leader now knows the
   * follower's LEO is {@code fetchOffset} (a follower asks for the offset after the last one it
   * has).
   */
  void onFollowerFetch(int replicaId, long fetchOffset);

  /** The leader's HW moved up to {@code highWatermark}. */
  void onHighWatermark(long highWatermark);
}
