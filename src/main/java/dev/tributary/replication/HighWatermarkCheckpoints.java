package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.LogManager;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The high watermarks a replica manager keeps across restarts (Kafka's
 * replication-offset-checkpoint): the ones written before this process started, read once, so that
 * a partition created again starts from its last high watermark and consumers of a restarted leader
 * do not briefly see less than they did; and the writes of the current ones.
 *
 * <p>Concurrency: {@link #restartHighWatermark} runs under the replica manager's monitor (metadata
 * updates); {@link #write} on the periodic task's thread and at shutdown, serialized by the log
 * manager.
 */
final class HighWatermarkCheckpoints {
  private final LogManager logManager;

  /** Read on first use; guarded by the replica manager's monitor. */
  private Map<TopicPartition, Long> beforeRestart;

  HighWatermarkCheckpoints(LogManager logManager) {
    this.logManager = logManager;
  }

  /** The high watermark {@code tp} had when this process started; 0 if none was checkpointed. */
  long restartHighWatermark(TopicPartition tp) {
    if (beforeRestart == null) {
      beforeRestart = logManager.highWatermarkCheckpoint();
    }
    return beforeRestart.getOrDefault(tp, 0L);
  }

  /** Writes every hosted partition's high watermark. */
  void write(Collection<Partition> partitions) {
    Map<TopicPartition, Long> highWatermarks = new HashMap<>();
    for (Partition partition : partitions) {
      highWatermarks.put(partition.topicPartition(), partition.highWatermark());
    }
    logManager.checkpointHighWatermarks(highWatermarks);
  }
}
