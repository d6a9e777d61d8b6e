package dev.tributary.server;

import java.nio.file.Path;

/**
 * A broker's own settings (not per-topic ones, which are {@link dev.tributary.log.LogConfig}). Kafka's names, in
 * camelCase with units last: {@code autoCreateTopicsEnable} is {@code auto.create.topics.enable}.
 *
 * @param brokerId this broker's id ({@code node.id})
 * @param dataDir where logs, metadata and checkpoints live ({@code log.dirs}, one directory)
 * @param host the host the broker's HTTP listener is reached on
 * @param port the HTTP port
 * @param autoCreateTopicsEnable producing to a missing topic creates it ({@code auto.create.topics.enable})
 * @param numPartitions partitions of an auto-created topic ({@code num.partitions})
 * @param defaultReplicationFactor replicas of an auto-created topic ({@code default.replication.factor})
 * @param requestTimeoutMs how long an {@code acks=all} produce waits for replication ({@code request.timeout.ms})
 * @param logPeriodicTaskIntervalMs how often retention, time-based flushes and checkpoints run
 */
public record BrokerConfig(
    int brokerId, Path dataDir, String host, int port, boolean autoCreateTopicsEnable, int numPartitions,
    int defaultReplicationFactor, long requestTimeoutMs, long logPeriodicTaskIntervalMs) {
  public BrokerConfig {
    if (brokerId < 0) {
      throw new IllegalArgumentException("broker id must be >= 0, got " + brokerId);
    }
    if (numPartitions < 1 || defaultReplicationFactor < 1) {
      throw new IllegalArgumentException("num.partitions and default.replication.factor must be >= 1");
    }
  }

  /** The same settings with the port the HTTP listener actually bound. */
  public BrokerConfig withPort(int boundPort) {
    return new BrokerConfig(
        brokerId, dataDir, host, boundPort, autoCreateTopicsEnable, numPartitions, defaultReplicationFactor,
        requestTimeoutMs, logPeriodicTaskIntervalMs);
  }

  public Path logDir() {
    return dataDir.resolve("logs");
  }

  public Path metadataDir() {
    return dataDir.resolve("metadata");
  }
}
