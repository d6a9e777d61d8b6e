package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.replication.FetchParams;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.PartitionFetch;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * Consumer instances' reads on this broker, through the {@link FetchService} like every other
 * fetch: from the local replica when this broker leads the partition (no copy: the batches are the
 * log's bytes), otherwise from the leader over {@link GroupTransport}, whose internal endpoint
 * reads there through the same service. Remote reads are one hop only: the remote side reads its
 * own leaders and never forwards. The instance was authorised when it subscribed, so the reads run
 * as the broker.
 */
final class BrokerPartitionReader implements PartitionReader {
  private final FetchService fetch;
  private final OffsetsService offsets;
  private final GroupTransport transport;
  private final IntFunction<Optional<ControllerChannel.Endpoint>> endpoints;
  private final boolean localOnly;

  /**
   * @param endpoints where each broker serves (for remote reads)
   * @param localOnly answer only from this broker's leaders (the internal endpoint's reader)
   */
  BrokerPartitionReader(
      FetchService fetch,
      OffsetsService offsets,
      GroupTransport transport,
      IntFunction<Optional<ControllerChannel.Endpoint>> endpoints,
      boolean localOnly) {
    this.fetch = fetch;
    this.offsets = offsets;
    this.transport = transport;
    this.endpoints = endpoints;
    this.localOnly = localOnly;
  }

  @Override
  public CompletableFuture<Fetched> fetch(
      TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
    try {
      return fetch
          .fetch(
              RequestContext.INTERNAL,
              FetchParams.consumer(maxWaitMs, 1, maxBytes),
              List.of(PartitionFetch.of(tp, offset, maxBytes)))
          .thenCompose(
              answers -> {
                FetchPartitionData data = answers.get(0);
                if (data.error() == Errors.NONE) {
                  return CompletableFuture.completedFuture(
                      new Fetched(data.records(), data.highWatermark(), data.logStartOffset()));
                }
                return remote(data.error(), data.leaderId())
                    .map(reader -> reader.fetch(tp, offset, maxBytes, maxWaitMs))
                    .orElseGet(
                        () ->
                            CompletableFuture.failedFuture(
                                data.error().exception(data.errorMessage())));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Offsets> offsets(TopicPartition tp) {
    try {
      OffsetsService.PartitionOffsets found = offsets.partitionOffsets(RequestContext.INTERNAL, tp);
      return CompletableFuture.completedFuture(
          new Offsets(found.logStartOffset(), found.highWatermark()));
    } catch (RuntimeException e) {
      Errors error = Errors.forException(e);
      int leaderId =
          e instanceof dev.tributary.common.errors.NotLeaderOrFollowerException notLeader
              ? notLeader.leaderId().orElse(-1)
              : -1;
      return remote(error, leaderId)
          .map(reader -> reader.offsets(tp))
          .orElseGet(() -> CompletableFuture.failedFuture(e));
    }
  }

  /** The leader's reader, when the answer was "not the leader here" and one hop is allowed. */
  private Optional<PartitionReader> remote(Errors error, int leaderId) {
    if (localOnly || error != Errors.NOT_LEADER_OR_FOLLOWER || leaderId < 0) {
      return Optional.empty();
    }
    return endpoints.apply(leaderId).map(transport::readerAt);
  }
}
