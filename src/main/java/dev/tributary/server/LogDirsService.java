package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.replication.Partition;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's log directory and the replicas in it, as Kafka's DescribeLogDirs tells them (what
 * {@code kafka-reassign-partitions} and {@code kafka-log-dirs} read). A broker has one log
 * directory ({@link BrokerConfig#logDir}), and answers only for its own, as each Kafka broker does.
 * Needs READ on the cluster (Kafka's DESCRIBE).
 */
public final class LogDirsService {
  private static final Logger logger = LoggerFactory.getLogger(LogDirsService.class);

  private final RunningBroker broker;
  private final Path logDir;
  private final BooleanSupplier offline;
  private final AccessControl access;

  /**
   * @param logDir the directory the partition logs live in
   * @param offline true once an I/O failure took that directory offline
   */
  public LogDirsService(
      RunningBroker broker, Path logDir, BooleanSupplier offline, AccessControl access) {
    this.broker = broker;
    this.logDir = logDir.toAbsolutePath();
    this.offline = offline;
    this.access = access;
  }

  /**
   * One replica's log.
   *
   * @param sizeBytes the bytes of its segments
   * @param offsetLag how far its log end offset is behind the high watermark (Kafka's offset lag of
   *     a current, not a future, replica: never negative, so 0 unless a follower's high watermark
   *     were ahead of its log)
   */
  public record ReplicaLog(TopicPartition topicPartition, long sizeBytes, long offsetLag) {}

  /**
   * The log directory.
   *
   * @param path its absolute path
   * @param error NONE, KAFKA_STORAGE_ERROR when it is offline, or UNKNOWN_SERVER_ERROR when its
   *     file store cannot be read; then the rest is empty
   * @param totalBytes the size of the file store it is on ({@link Long#MAX_VALUE} when the store is
   *     too large to tell, as Kafka)
   * @param usableBytes what is free on it for this process, the same way
   * @param replicas the replicas asked for that are in it, by topic then partition
   */
  public record LogDir(
      String path, Errors error, long totalBytes, long usableBytes, List<ReplicaLog> replicas) {}

  /**
   * The log directory with the replicas of {@code partitions} hosted here (every hosted one when
   * null); a partition not hosted here is left out, as in Kafka.
   *
   * @throws dev.tributary.common.errors.AuthorizationException without READ on the cluster
   */
  public LogDir describe(RequestContext context, Set<TopicPartition> partitions) {
    access.require(context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    String path = logDir.toString();
    if (offline.getAsBoolean()) {
      return new LogDir(path, Errors.KAFKA_STORAGE_ERROR, 0, 0, List.of());
    }
    long totalBytes;
    long usableBytes;
    try {
      FileStore store = Files.getFileStore(logDir);
      totalBytes = largeAsMax(store.getTotalSpace());
      usableBytes = largeAsMax(store.getUsableSpace());
    } catch (IOException | RuntimeException e) {
      logger.error("Could not read the file store of log directory {}", path, e);
      return new LogDir(path, Errors.UNKNOWN_SERVER_ERROR, 0, 0, List.of());
    }
    return new LogDir(path, Errors.NONE, totalBytes, usableBytes, replicaLogs(partitions));
  }

  /**
   * The logs of the replicas of {@code partitions} hosted here (every hosted one when null), by
   * topic then partition; none while the log directory is offline. No ACL check: for this broker's
   * own services (the balancer's load, {@link BrokerLoadService}); clients go through {@link
   * #describe}.
   */
  public List<ReplicaLog> replicaLogs(Set<TopicPartition> partitions) {
    if (offline.getAsBoolean()) {
      return List.of();
    }
    List<ReplicaLog> replicas = new ArrayList<>();
    for (Partition partition : broker.replicaManager().partitions()) {
      TopicPartition tp = partition.topicPartition();
      if (partitions != null && !partitions.contains(tp)) {
        continue;
      }
      long highWatermark = partition.highWatermark();
      replicas.add(
          new ReplicaLog(
              tp, partition.log().size(), Math.max(0, highWatermark - partition.logEndOffset())));
    }
    replicas.sort(
        Comparator.comparing((ReplicaLog r) -> r.topicPartition().topic())
            .thenComparingInt(r -> r.topicPartition().partition()));
    return List.copyOf(replicas);
  }

  /** A file store larger than {@link Long#MAX_VALUE} bytes reports a negative size. */
  private static long largeAsMax(long bytes) {
    return bytes < 0 ? Long.MAX_VALUE : bytes;
  }
}
