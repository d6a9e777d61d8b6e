package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;

/**
 * The status line's common part, {@code b2 leader e7 orders-3 hw=120 leo=127 isr=[1,2] osr=[3]}.
 */
final class PartitionStatuses {
  private PartitionStatuses() {}

  static StringBuilder statusLine(
      int brokerId,
      boolean leader,
      int leaderEpoch,
      TopicPartition tp,
      long highWatermark,
      long logEndOffset,
      List<Integer> replicas,
      List<Integer> isr) {
    StringBuilder line = new StringBuilder(96);
    line.append('b')
        .append(brokerId)
        .append(leader ? " leader" : " follower")
        .append(" e")
        .append(leaderEpoch)
        .append(' ')
        .append(tp)
        .append(" hw=")
        .append(highWatermark)
        .append(" leo=")
        .append(logEndOffset)
        .append(" isr=")
        .append(isr);
    List<Integer> osr = new ArrayList<>(replicas);
    osr.removeAll(isr);
    if (!osr.isEmpty()) {
      line.append(" osr=").append(osr);
    }
    return line;
  }
}
