package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.FetchIsolation;
import dev.tributary.replication.FetchParams;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.PartitionFetch;
import dev.tributary.server.FetchService;
import dev.tributary.server.MetadataCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch (v4–18; v13 and later name topics by id) for consumers, through {@link FetchService} like
 * every reader: Kafka's parameters as they come (max wait, min bytes, max bytes, isolation, each
 * partition's offset, max bytes, current leader epoch and last fetched epoch), the stored batches
 * back unchanged (a fetch inside a batch returns the whole batch; the client skips to its offset),
 * the high watermark, last stable offset, log start offset and diverging epoch. Every requested
 * partition is in the answer. There are no fetch sessions: the answer's session id is 0, which
 * tells the client to keep sending full requests (KIP-227 allows it). Brokers replicate over their
 * own transport, so a fetch from a replica id is refused.
 */
final class FetchApi implements ApiHandler {
  private final FetchService fetch;
  private final MetadataCache metadata;

  FetchApi(FetchService fetch, MetadataCache metadata) {
    this.fetch = fetch;
    this.metadata = metadata;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.FETCH;
  }

  @Override
  public short minVersion() {
    return 4;
  }

  @Override
  public short maxVersion() {
    return 18;
  }

  /** One requested partition: where it goes in the answer, and what was asked. */
  private record Wanted(
      FetchResponseData.FetchableTopicResponse topic,
      int partition,
      TopicPartition tp,
      Errors refused,
      PartitionFetch fetch) {}

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    FetchRequestData data = ((FetchRequest) request).data();
    short version = context.apiVersion();
    int replicaId = version >= 15 ? data.replicaState().replicaId() : data.replicaId();
    if (replicaId >= 0) {
      return CompletableFuture.completedFuture(
          FetchResponse.of(
              new FetchResponseData()
                  .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                  .setSessionId(0)));
    }
    MetadataImage image = metadata.metadata();
    FetchResponseData response = new FetchResponseData().setSessionId(0);
    List<Wanted> wanted = new ArrayList<>();
    List<PartitionFetch> fetches = new ArrayList<>();
    for (FetchRequestData.FetchTopic topic : data.topics()) {
      String name = topic.topic();
      Errors topicError = null;
      if (version >= 13) {
        TopicImage found = TopicIds.find(image, topic.topicId());
        name = found == null ? null : found.name();
        topicError = found == null ? Errors.UNKNOWN_TOPIC_ID : null;
      }
      FetchResponseData.FetchableTopicResponse topicResponse =
          new FetchResponseData.FetchableTopicResponse()
              .setTopic(topic.topic())
              .setTopicId(topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId());
      response.responses().add(topicResponse);
      for (FetchRequestData.FetchPartition p : topic.partitions()) {
        TopicPartition tp = new TopicPartition(name == null ? "" : name, p.partition());
        PartitionFetch partitionFetch = null;
        if (topicError == null) {
          partitionFetch =
              new PartitionFetch(
                  tp,
                  p.fetchOffset(),
                  Math.max(0, p.partitionMaxBytes()),
                  p.currentLeaderEpoch(),
                  version >= 12 ? p.lastFetchedEpoch() : PartitionFetch.NO_EPOCH);
          fetches.add(partitionFetch);
        }
        wanted.add(new Wanted(topicResponse, p.partition(), tp, topicError, partitionFetch));
      }
    }
    FetchParams params =
        new FetchParams(
            FetchParams.CONSUMER_REPLICA_ID,
            -1,
            Math.max(0, data.maxWaitMs()),
            data.minBytes(),
            version >= 3 ? Math.max(0, data.maxBytes()) : Integer.MAX_VALUE,
            data.isolationLevel() == 1
                ? FetchIsolation.TXN_COMMITTED
                : FetchIsolation.HIGH_WATERMARK,
            true); // sent from the segment files (LogSliceRecords)
    CompletableFuture<List<FetchPartitionData>> read =
        fetches.isEmpty()
            ? CompletableFuture.completedFuture(List.of())
            : fetch.fetch(context.request(), params, fetches);
    return read.thenApply(answers -> respond(response, wanted, answers));
  }

  private static AbstractResponse respond(
      FetchResponseData response, List<Wanted> wanted, List<FetchPartitionData> answers) {
    int next = 0;
    for (Wanted w : wanted) {
      FetchResponseData.PartitionData partition =
          new FetchResponseData.PartitionData()
              .setPartitionIndex(w.partition())
              .setHighWatermark(-1)
              .setLastStableOffset(-1)
              .setLogStartOffset(-1)
              .setRecords(MemoryRecords.EMPTY);
      if (w.refused() != null) {
        partition.setErrorCode(w.refused().code());
      } else {
        FetchPartitionData data = answers.get(next++);
        partition
            .setErrorCode(data.error().code())
            .setHighWatermark(data.highWatermark())
            .setLastStableOffset(data.lastStableOffset())
            .setLogStartOffset(data.logStartOffset())
            .setRecords(
                data.fileSlice() != null
                    ? new LogSliceRecords(data.fileSlice())
                    : MemoryRecords.readableRecords(data.records().slice()));
        if (data.divergingEpoch() != null) {
          partition.setDivergingEpoch(
              new FetchResponseData.EpochEndOffset()
                  .setEpoch(data.divergingEpoch().leaderEpoch())
                  .setEndOffset(data.divergingEpoch().endOffset()));
        }
        if (data.error() != dev.tributary.common.errors.Errors.NONE && data.leaderId() >= 0) {
          partition.setCurrentLeader(
              new FetchResponseData.LeaderIdAndEpoch()
                  .setLeaderId(data.leaderId())
                  .setLeaderEpoch(data.leaderEpoch()));
        }
      }
      w.topic().partitions().add(partition);
    }
    return FetchResponse.of(response);
  }
}
