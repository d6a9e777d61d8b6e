package dev.tributary.replication;

/**
 * Broker settings for replication, by Kafka's names.
 *
 * @param replicaLagTimeMaxMs a follower not caught up for this long leaves the ISR ({@code
 *     replica.lag.time.max.ms}; Kafka's default 30000)
 * @param replicaFetchWaitMaxMs how long a leader holds a follower's fetch when there is nothing new
 *     ({@code replica.fetch.wait.max.ms}; 500)
 * @param replicaFetchMaxBytes bytes per fetch response, over all partitions ({@code
 *     replica.fetch.response.max.bytes})
 * @param replicaFetchPartitionMaxBytes bytes per partition in a fetch ({@code
 *     replica.fetch.max.bytes}; 1 MiB)
 * @param replicaFetchBackoffMs pause after a failed fetch ({@code replica.fetch.backoff.ms}; 1000
 *     in Kafka, less here since failover is what a learner watches)
 */
public record ReplicationConfig(
    long replicaLagTimeMaxMs,
    int replicaFetchWaitMaxMs,
    int replicaFetchMaxBytes,
    int replicaFetchPartitionMaxBytes,
    long replicaFetchBackoffMs) {
  public static final ReplicationConfig DEFAULTS =
      new ReplicationConfig(30_000, 500, 10 << 20, 1 << 20, 100);

  public ReplicationConfig {
    if (replicaLagTimeMaxMs <= 0
        || replicaFetchWaitMaxMs < 0
        || replicaFetchMaxBytes <= 0
        || replicaFetchPartitionMaxBytes <= 0
        || replicaFetchBackoffMs < 0) {
      throw new IllegalArgumentException("invalid replication config " + this);
    }
  }
}
