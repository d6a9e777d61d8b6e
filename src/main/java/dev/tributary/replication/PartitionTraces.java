package dev.tributary.replication;

import java.util.Arrays;

/**
 * The {@link ReplicationListener}s armed on one partition: several at once (each trace follows its
 * own record). The partition calls {@link #onAppend}, {@link #onFollowerFetch} and {@link
 * #onHighWatermark} on every append, follower fetch and HW move, under its lock; with nothing armed
 * each costs one volatile read and allocates nothing, so the hot path stays as it was.
 *
 * <p>Concurrency: arming and disarming copy the array under this object's monitor; the hooks read
 * it without a lock.
 */
public final class PartitionTraces {
  /** Null while nothing is armed (the common case); never an empty array. */
  private volatile ReplicationListener[] armed;

  /** Starts telling {@code listener} of this partition's events, until {@link #disarm}. */
  public synchronized void arm(ReplicationListener listener) {
    ReplicationListener[] now = armed;
    if (now == null) {
      armed = new ReplicationListener[] {listener};
    } else {
      ReplicationListener[] next = Arrays.copyOf(now, now.length + 1);
      next[now.length] = listener;
      armed = next;
    }
  }

  /** Stops telling {@code listener}; harmless if it is not armed. */
  public synchronized void disarm(ReplicationListener listener) {
    ReplicationListener[] now = armed;
    if (now == null) {
      return;
    }
    ReplicationListener[] next =
        Arrays.stream(now).filter(l -> l != listener).toArray(ReplicationListener[]::new);
    armed = next.length == 0 ? null : next;
  }

  /** How many listeners are armed (for tests and the status line). */
  public int armedCount() {
    ReplicationListener[] now = armed;
    return now == null ? 0 : now.length;
  }

  void onAppend(long lastOffset, long logEndOffset, long highWatermark) {
    ReplicationListener[] now = armed;
    if (now != null) {
      for (ReplicationListener listener : now) {
        listener.onAppend(lastOffset, logEndOffset, highWatermark);
      }
    }
  }

  void onFollowerFetch(int replicaId, long fetchOffset) {
    ReplicationListener[] now = armed;
    if (now != null) {
      for (ReplicationListener listener : now) {
        listener.onFollowerFetch(replicaId, fetchOffset);
      }
    }
  }

  void onHighWatermark(long highWatermark) {
    ReplicationListener[] now = armed;
    if (now != null) {
      for (ReplicationListener listener : now) {
        listener.onHighWatermark(highWatermark);
      }
    }
  }
}
