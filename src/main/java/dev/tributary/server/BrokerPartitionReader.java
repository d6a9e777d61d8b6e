package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ReplicaManager;
import java.util.concurrent.CompletableFuture;

/**
 * Consumer reads on this broker: from the local replica when this broker leads the partition (no
 * copy: the batches are the log's bytes), otherwise from the leader over {@link GroupTransport}.
 * Remote reads are one hop only: the remote side reads its own leaders and never forwards.
 */
final class BrokerPartitionReader implements PartitionReader {
  private final BrokerServer broker;
  private final GroupTransport transport;
  private final boolean localOnly;

  /**
   * @param localOnly answer only from this broker's leaders (the internal endpoint's reader)
   */
  BrokerPartitionReader(BrokerServer broker, GroupTransport transport, boolean localOnly) {
    this.broker = broker;
    this.transport = transport;
    this.localOnly = localOnly;
  }

  @Override
  public CompletableFuture<Fetched> fetch(
      TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    try {
      ReplicaManager replicas = broker.replicaManager();
      Partition leader = replicas.leaderPartition(tp);
      return replicas
          .fetch(leader, offset, maxBytes, maxWaitMs)
          .thenApply(r -> new Fetched(r.records(), r.highWatermark(), r.logStartOffset()));
    } catch (NotLeaderOrFollowerException e) {
      return remote(e)
          .map(reader -> reader.fetch(tp, offset, maxBytes, maxWaitMs))
          .orElseGet(() -> CompletableFuture.failedFuture(e));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Offsets> offsets(TopicPartition tp) {
    try {
      Partition leader = broker.replicaManager().leaderPartition(tp);
      return CompletableFuture.completedFuture(
          new Offsets(leader.logStartOffset(), leader.highWatermark()));
    } catch (NotLeaderOrFollowerException e) {
      return remote(e)
          .map(reader -> reader.offsets(tp))
          .orElseGet(() -> CompletableFuture.failedFuture(e));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private java.util.Optional<PartitionReader> remote(NotLeaderOrFollowerException notLeader) {
    if (localOnly || notLeader.leaderId().isEmpty()) {
      return java.util.Optional.empty();
    }
    return broker.brokerEndpoint(notLeader.leaderId().getAsInt()).map(transport::readerAt);
  }
}
