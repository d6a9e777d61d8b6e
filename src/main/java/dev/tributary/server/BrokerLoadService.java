package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Partition;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * This broker's load, as the balancer weighs it: every local replica's log size (as DescribeLogDirs
 * reports it, {@link LogDirsService#replicaLogs}) and, for every partition it leads, the bytes
 * appended by produce per second ({@link dev.tributary.replication.LeaderBytesIn}).
 * Protocol-neutral: the balancer reads it here, and the other brokers' balancers over the internal
 * API ({@link PeerLoads}). No ACL check of its own: the balancer checks its caller, the internal
 * endpoint the cluster secret.
 */
public final class BrokerLoadService {
  private final RunningBroker broker;
  private final LogDirsService logDirs;
  private final Time time;

  /**
   * @param time the clock the replica manager measures bytes-in with (its monotonic milliseconds)
   */
  public BrokerLoadService(RunningBroker broker, LogDirsService logDirs, Time time) {
    this.broker = broker;
    this.logDirs = logDirs;
    this.time = time;
  }

  /**
   * The load now; none of the sizes while the log directory is offline.
   *
   * @throws dev.tributary.common.errors.BrokerNotAvailableException while the broker is not ready
   */
  public BrokerLoadReport load() {
    Map<TopicPartition, Double> rates = new HashMap<>();
    long nowMs = time.monotonicMs();
    for (Partition partition : broker.replicaManager().partitions()) {
      OptionalDouble rate = partition.bytesIn().perSecond(nowMs);
      if (rate.isPresent()) {
        rates.put(partition.topicPartition(), rate.getAsDouble());
      }
    }
    Map<TopicPartition, Long> sizes = new HashMap<>();
    for (LogDirsService.ReplicaLog replica : logDirs.replicaLogs(null)) {
      sizes.put(replica.topicPartition(), replica.sizeBytes());
    }
    return new BrokerLoadReport(broker.brokerId(), sizes, rates);
  }
}
