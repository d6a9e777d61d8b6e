package dev.tributary.replication;

/**
 * The leader's view of one follower replica (Kafka's Replica): how far its log reaches and when it
 * last fetched and was caught up. Reset whenever this broker starts a new leader epoch: a
 * follower's log end offset is then unknown (-1) until it fetches, so the high watermark cannot
 * pass what it may lack.
 *
 * <p>Times are the leader's monotonic clock ({@code Time.monotonicMs}), not wall time as in Kafka:
 * they only ever measure how long ago something happened here, and the ISR decision rests on that
 * interval. On the wall clock a forward jump of the leader's clock would make a follower a few
 * records behind look lagging by the whole jump (and drop it from the ISR), and a backward jump
 * would keep a follower that stopped fetching in the ISR for as long as the jump. The replica views
 * (REST, dashboard) show these times as wall-clock ms, converted when the status is built ({@link
 * IsrState#replicaStatuses}). Monotonic ms are never negative, so -1 can mean "never".
 *
 * <p>Concurrency: guarded by the owning {@link Partition}'s lock.
 */
final class ReplicaState {
  /** A time this follower never had in this leader epoch. */
  static final long NEVER = -1;

  final int brokerId;

  /**
   * The follower's log end offset as its last fetch offset said; -1 until it fetches in this epoch.
   */
  long logEndOffset = -1;

  /** When it last fetched (monotonic ms), or {@link #NEVER} in this leader epoch. */
  long lastFetchTimeMs = NEVER;

  /** The broker epoch (registration) the follower's last fetch carried. */
  long brokerEpoch = -1;

  /**
   * The last time the follower had everything the leader had (Kafka's lastCaughtUpTimeMs; monotonic
   * ms), or {@link #NEVER} if it has not had it in this leader epoch (Kafka's 0): such a follower
   * has not been caught up for longer than any lag time.
   */
  long lastCaughtUpTimeMs;

  /** The leader's log end offset at the follower's previous fetch. */
  private long lastFetchLeaderLogEndOffset = -1;

  /**
   * @param lastCaughtUpTimeMs monotonic ms, or {@link #NEVER}
   */
  ReplicaState(int brokerId, long lastCaughtUpTimeMs) {
    this.brokerId = brokerId;
    this.lastCaughtUpTimeMs = lastCaughtUpTimeMs;
  }

  /**
   * A fetch from {@code fetchOffset} arrived at {@code nowMs} (monotonic) while the leader's log
   * ended at {@code leaderLogEndOffset}. Kafka's rule: the follower is caught up now if it asks for
   * the leader's end; it was caught up at its previous fetch if it now asks for at least what the
   * leader's end was then.
   */
  void onFetch(long fetchOffset, long leaderLogEndOffset, long brokerEpoch, long nowMs) {
    this.brokerEpoch = brokerEpoch;
    if (fetchOffset >= leaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
    } else if (lastFetchTimeMs != NEVER && fetchOffset >= lastFetchLeaderLogEndOffset) {
      lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
    }
    logEndOffset = fetchOffset;
    lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    lastFetchTimeMs = nowMs;
  }

  /**
   * How long, at {@code nowMs} (monotonic), the follower has not been caught up: 0 while it has
   * everything the leader has (Kafka's rule: such a follower stays in the ISR however long ago it
   * fetched), {@link Long#MAX_VALUE} if it has not been caught up in this leader epoch, else the
   * time since it last was. The ISR shrink compares this with {@code replica.lag.time.max.ms}.
   */
  long notCaughtUpForMs(long nowMs, long leaderLogEndOffset) {
    if (logEndOffset >= leaderLogEndOffset) {
      return 0;
    }
    return lastCaughtUpTimeMs == NEVER ? Long.MAX_VALUE : nowMs - lastCaughtUpTimeMs;
  }
}
