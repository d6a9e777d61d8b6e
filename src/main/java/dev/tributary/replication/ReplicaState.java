package dev.tributary.replication;

/**
 * The leader's view of one follower replica (Kafka's Replica): how far its log reaches and when it
 * last fetched and was caught up. Reset whenever this broker starts a new leader epoch: a
 * follower's log end offset is then unknown (-1) until it fetches, so the high watermark cannot
 * pass what it may lack.
 *
 * <p>Concurrency: guarded by the owning {@link Partition}'s lock.
 */
final class ReplicaState {
  final int brokerId;

  /**
   * The follower's log end offset as its last fetch offset said; -1 until it fetches in this epoch.
   */
  long logEndOffset = -1;

  long lastFetchTimeMs = -1;

  /** The broker epoch (registration) the follower's last fetch carried. */
  long brokerEpoch = -1;

  /**
   * The last time the follower had everything the leader had (Kafka's lastCaughtUpTimeMs); 0 if it
   * has not had it in this leader epoch (Kafka's "never"). Wall time, as in Kafka: after a backward
   * jump it lies ahead of now, so a follower that stopped fetching stays in the ISR that much
   * longer (or until the controller fences its broker).
   */
  long lastCaughtUpTimeMs;

  /** The leader's log end offset at the follower's previous fetch. */
  private long lastFetchLeaderLogEndOffset = -1;

  ReplicaState(int brokerId, long lastCaughtUpTimeMs) {
    this.brokerId = brokerId;
    this.lastCaughtUpTimeMs = lastCaughtUpTimeMs;
  }

  /**
   * A fetch from {@code fetchOffset} arrived at {@code nowMs} while the leader's log ended at
   * {@code leaderLogEndOffset}. Kafka's rule: the follower is caught up now if it asks for the
   * leader's end; it was caught up at its previous fetch if it now asks for at least what the
   * leader's end was then.
   */
  void onFetch(long fetchOffset, long leaderLogEndOffset, long brokerEpoch, long nowMs) {
    this.brokerEpoch = brokerEpoch;
    if (fetchOffset >= leaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
    } else if (lastFetchTimeMs >= 0 && fetchOffset >= lastFetchLeaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
    }
    logEndOffset = fetchOffset;
    lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    lastFetchTimeMs = nowMs;
  }

  /**
   * How long, at {@code nowMs}, the follower has not been caught up: 0 while it has everything the
   * leader has (Kafka's rule: such a follower stays in the ISR however long ago it fetched), else
   * the time since it last was. The ISR shrink compares this with {@code replica.lag.time.max.ms}.
   */
  long notCaughtUpForMs(long nowMs, long leaderLogEndOffset) {
    return logEndOffset >= leaderLogEndOffset ? 0 : nowMs - lastCaughtUpTimeMs;
  }
}
