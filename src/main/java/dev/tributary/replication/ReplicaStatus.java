package dev.tributary.replication;

/**
 * One replica of a partition as its leader sees it, for the replicas API, the dashboard and tests.
 *
 * @param logEndOffset the replica's log end offset (-1 if the leader has not heard from it in this
 *     epoch)
 * @param lag records behind the leader's log end offset (-1 when unknown)
 * @param lastFetchMs when it last fetched, in wall-clock ms by the leader's clock (-1 never in this
 *     epoch; -1 for the leader's own entry). The leader measures on its monotonic clock and
 *     converts when it builds the status (now on the wall clock less how long ago), so a jump of
 *     its wall clock moves these times with it instead of stretching or shrinking the lag
 * @param lastCaughtUpMs when it last had everything the leader had, in wall-clock ms likewise (0
 *     not in this epoch); the leader's own entry is its wall clock now
 * @param outOfSyncMs how long it had not been caught up at the status's time, by the leader's
 *     clock: 0 while it has everything the leader has (so it stays in the ISR), else the time since
 *     {@code lastCaughtUpMs}, which {@code replica.lag.time.max.ms} bounds for an ISR member; -1
 *     when the leader has not seen it caught up in this leader epoch
 */
public record ReplicaStatus(
    int brokerId,
    boolean isLeader,
    boolean isInSync,
    long logEndOffset,
    long lag,
    long lastFetchMs,
    long lastCaughtUpMs,
    long outOfSyncMs) {}
