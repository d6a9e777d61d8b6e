package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.group.CoordinatorLog;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.log.LogReadInfo;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.replication.Acks;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.replication.ReplicaManager;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The coordinator's storage: its partitions of {@code __consumer_offsets} through the replica
 * manager, like any producer's records (one batch per call, {@code acks=all}, the broker's request
 * timeout).
 */
final class ReplicaCoordinatorLog implements CoordinatorLog {
  private final Supplier<ReplicaManager> replicaManager;
  private final long timeoutMs;

  ReplicaCoordinatorLog(Supplier<ReplicaManager> replicaManager, long timeoutMs) {
    this.replicaManager = replicaManager;
    this.timeoutMs = timeoutMs;
  }

  private static TopicPartition tp(int partition) {
    return new TopicPartition(GroupCoordinatorConfig.OFFSETS_TOPIC, partition);
  }

  @Override
  public CompletableFuture<Void> append(int partition, List<SimpleRecord> records) {
    ByteBuffer batch = RecordBatchBuilder.build(records, CompressionType.NONE, 0L, -1);
    TopicPartition tp = tp(partition);
    return replicaManager
        .get()
        .appendRecords(Map.of(tp, batch), Acks.ALL, timeoutMs)
        .thenApply(
            results -> {
              ProducePartitionResult result = results.get(tp);
              if (result.error() != Errors.NONE) {
                throw result.error().exception(result.errorMessage());
              }
              return null;
            });
  }

  @Override
  public Chunk read(int partition, long fromOffset, int maxBytes) {
    Partition leader = replicaManager.get().leaderPartition(tp(partition));
    long logStart = leader.logStartOffset();
    long logEnd = leader.logEndOffset();
    long from = Math.max(fromOffset, logStart);
    if (from >= logEnd) {
      return new Chunk(ByteBuffer.allocate(0), logStart, logEnd);
    }
    LogReadInfo info = leader.log().read(from, maxBytes, logEnd, true);
    return new Chunk(info.records(), logStart, logEnd);
  }

  @Override
  public GroupError errorFor(Throwable failure) {
    Throwable cause =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof NotLeaderOrFollowerException
            || cause instanceof UnknownTopicOrPartitionException
        ? GroupError.NOT_COORDINATOR
        : GroupError.COORDINATOR_NOT_AVAILABLE;
  }
}
