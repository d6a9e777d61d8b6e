package dev.tributary.replication;

import dev.tributary.common.Time;
import java.util.ArrayList;
import java.util.List;

/**
 * The views of a {@link Partition} for logs, tests, the REST API and the dashboard, built from its
 * fields; the partition calls these under its lock, so what they read agrees.
 */
final class PartitionStatuses {
  private PartitionStatuses() {}

  /** The replicas as the leader sees them, their times on {@code time}'s wall clock. */
  static List<ReplicaStatus> replicaStatuses(Partition p, IsrState isrState, Time time) {
    return p.isLeader()
        ? isrState.replicaStatuses(time.milliseconds(), time.monotonicMs(), p.logEndOffset())
        : List.of();
  }

  static PartitionStatus status(Partition p, IsrState isrState, Time time) {
    return new PartitionStatus(
        p.topicPartition(),
        p.isLeader(),
        p.leaderId(),
        p.leaderEpoch(),
        p.logStartOffset(),
        p.highWatermark(),
        p.logEndOffset(),
        p.log().size(),
        p.log().numberOfSegments(),
        p.replicas(),
        p.isr(),
        replicaStatuses(p, isrState, time),
        statusLine(p, isrState));
  }

  /** {@code b2 leader e7 orders-3 hw=120 leo=127 isr=[1,2] osr=[3] lag{3:41}}. */
  static String statusLine(Partition p, IsrState isrState) {
    StringBuilder line = new StringBuilder(96);
    line.append('b')
        .append(p.localBrokerId())
        .append(p.isLeader() ? " leader" : " follower")
        .append(" e")
        .append(p.leaderEpoch())
        .append(' ')
        .append(p.topicPartition())
        .append(" hw=")
        .append(p.highWatermark())
        .append(" leo=")
        .append(p.logEndOffset())
        .append(" isr=")
        .append(p.isr());
    List<Integer> osr = new ArrayList<>(p.replicas());
    osr.removeAll(p.isr());
    if (!osr.isEmpty()) {
      line.append(" osr=").append(osr);
    }
    if (p.isLeader()) {
      isrState.appendLags(line, p.logEndOffset());
    } else {
      line.append(" leader=").append(p.leaderId());
    }
    return line.toString();
  }
}
