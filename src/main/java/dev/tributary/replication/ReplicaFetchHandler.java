package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.log.EpochEndOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The leader's side of the inter-broker replica fetch ({@link ReplicaFetch}'s messages, which the
 * transport carries): a follower's fetch is a {@link ReplicaManager#fetchMessages} from a follower,
 * its epoch query an OffsetsForLeaderEpoch per partition. A sender that is not the current
 * registration of its broker id (a stale incarnation or a stranger) is refused whole, so it cannot
 * move a high watermark or join an ISR (docs/adr/0008).
 */
public final class ReplicaFetchHandler {
  private final ReplicaManager replicas;

  public ReplicaFetchHandler(ReplicaManager replicas) {
    this.replicas = replicas;
  }

  /**
   * Answers a follower's fetch (the internal transport's message): {@link
   * ReplicaManager#fetchMessages} for a follower. A sender that is not the current registration of
   * its broker id is refused whole.
   */
  public CompletableFuture<ReplicaFetch.Response> handleReplicaFetch(ReplicaFetch.Request request) {
    FetchParams params =
        FetchParams.follower(
            request.replicaId(), request.brokerEpoch(), request.maxWaitMs(), 1, request.maxBytes());
    List<PartitionFetch> fetches = new ArrayList<>(request.partitions().size());
    for (ReplicaFetch.PartitionRequest wanted : request.partitions()) {
      fetches.add(
          new PartitionFetch(
              wanted.topicPartition(),
              wanted.fetchOffset(),
              wanted.maxBytes(),
              wanted.currentLeaderEpoch(),
              PartitionFetch.NO_EPOCH));
    }
    try {
      return replicas
          .fetchMessages(params, fetches)
          .thenApply(
              answers -> {
                List<ReplicaFetch.PartitionResponse> out = new ArrayList<>(answers.size());
                for (FetchPartitionData a : answers) {
                  out.add(
                      new ReplicaFetch.PartitionResponse(
                          a.topicPartition(),
                          a.error(),
                          a.highWatermark(),
                          a.logStartOffset(),
                          a.logEndOffset(),
                          a.leaderEpoch(),
                          a.records()));
                }
                return new ReplicaFetch.Response(Errors.NONE, out);
              });
    } catch (StaleBrokerEpochException e) {
      return CompletableFuture.completedFuture(
          new ReplicaFetch.Response(Errors.STALE_BROKER_EPOCH, List.of()));
    }
  }

  /**
   * Answers a follower's OffsetsForLeaderEpoch: where each asked-for epoch ends in this leader's
   * log.
   */
  public ReplicaFetch.EpochResponse handleEpochEndOffsets(ReplicaFetch.EpochRequest request) {
    if (!replicas.isCurrentRegistration(request.replicaId(), request.brokerEpoch())) {
      return new ReplicaFetch.EpochResponse(Errors.STALE_BROKER_EPOCH, List.of());
    }
    List<ReplicaFetch.EpochPartitionResponse> answers = new ArrayList<>();
    for (ReplicaFetch.EpochPartitionRequest wanted : request.partitions()) {
      TopicPartition tp = wanted.topicPartition();
      Partition partition = replicas.partition(tp).orElse(null);
      if (partition == null) {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp, Errors.UNKNOWN_TOPIC_OR_PARTITION, EpochEndOffset.UNDEFINED, -1));
        continue;
      }
      try {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp,
                Errors.NONE,
                partition.endOffsetForEpoch(wanted.currentLeaderEpoch(), wanted.leaderEpoch()),
                partition.logStartOffset()));
      } catch (RuntimeException e) {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                tp, PartitionErrors.errorFor(tp, e), EpochEndOffset.UNDEFINED, -1));
      }
    }
    return new ReplicaFetch.EpochResponse(Errors.NONE, answers);
  }
}
