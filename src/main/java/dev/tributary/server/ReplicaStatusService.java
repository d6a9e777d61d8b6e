package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.replication.PartitionStatus;
import java.util.List;
import java.util.Optional;

/**
 * The replicas this broker hosts, as the dashboard and the REST replica views show them: each
 * partition's offsets, ISR and followers' progress as one consistent {@link PartitionStatus}. Also
 * the demo's fault of stopping this broker's replica fetching for a while (its replicas then fall
 * out of the ISRs after {@code replica.lag.time.max.ms}).
 */
public final class ReplicaStatusService {
  private final RunningBroker broker;
  private final Time time;

  public ReplicaStatusService(RunningBroker broker, Time time) {
    this.broker = broker;
    this.time = time;
  }

  /** Every hosted replica, sorted by topic then partition ({@code leadersOnly}: those led here). */
  public List<PartitionStatus> hosted(boolean leadersOnly) {
    return broker.replicaManager().partitions().stream()
        .filter(p -> !leadersOnly || p.isLeader())
        .map(p -> p.status(time))
        .sorted(
            java.util.Comparator.comparing((PartitionStatus s) -> s.topicPartition().topic())
                .thenComparingInt(s -> s.topicPartition().partition()))
        .toList();
  }

  /** The partition's status if this broker leads it (only the leader knows every replica). */
  public Optional<PartitionStatus> ledHere(TopicPartition tp) {
    return broker.replicaManager().partition(tp).filter(p -> p.isLeader()).map(p -> p.status(time));
  }

  /** Stops this broker's replica fetching for {@code durationMs} (a fault for the demo). */
  public void pauseReplicaFetching(long durationMs) {
    broker.replicaManager().pauseReplicaFetchers(durationMs);
  }

  /** Until when replica fetching is paused (epoch ms), or 0. */
  public long replicaFetchingPausedUntilMs() {
    return broker.replicaManager().fetchers().pausedUntilMs();
  }
}
