package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.server.OffsetsService;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * ListOffsets (v1–11) through {@link OffsetsService}: earliest (-2, and -4 earliest-local: there is
 * no tiered storage, so the same), latest (-1: the high watermark, which is also the last stable
 * offset without transactions), max timestamp (-3) and by time, each with its leader epoch; -5
 * (latest tiered) finds nothing (offset -1), as on a Kafka without tiered storage.
 */
final class OffsetsApi implements ApiHandler {
  private static final long EARLIEST_LOCAL = -4;
  private static final long LATEST_TIERED = -5;

  /** The first version whose answer carries the offset's leader epoch (KIP-320). */
  private static final short FIRST_VERSION_WITH_LEADER_EPOCH = 4;

  private final OffsetsService offsets;

  OffsetsApi(OffsetsService offsets) {
    this.offsets = offsets;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.LIST_OFFSETS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 10;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    ListOffsetsRequestData data = ((ListOffsetsRequest) request).data();
    Map<TopicPartition, OffsetsService.ListOffsetsQuery> queries = new LinkedHashMap<>();
    for (ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
      for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
        long timestamp = p.timestamp() == EARLIEST_LOCAL ? -2 : p.timestamp();
        if (timestamp != LATEST_TIERED) {
          queries.put(
              new TopicPartition(topic.name(), p.partitionIndex()),
              new OffsetsService.ListOffsetsQuery(timestamp, p.currentLeaderEpoch()));
        }
      }
    }
    Map<TopicPartition, OffsetsService.ListOffsetsResult> results =
        offsets.listOffsets(context.request(), queries);
    // Before v4 the answer has no leader epoch, and kafka-clients refuses to write one that is set
    // (librdkafka 2.0, kcat's, asks at v2).
    boolean withLeaderEpoch = context.apiVersion() >= FIRST_VERSION_WITH_LEADER_EPOCH;
    ListOffsetsResponseData response = new ListOffsetsResponseData().setThrottleTimeMs(0);
    for (ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
      ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
          new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
      for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
        OffsetsService.ListOffsetsResult r =
            results.get(new TopicPartition(topic.name(), p.partitionIndex()));
        ListOffsetsResponseData.ListOffsetsPartitionResponse partition =
            new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                .setPartitionIndex(p.partitionIndex())
                .setTimestamp(-1)
                .setOffset(-1)
                .setLeaderEpoch(-1);
        if (r != null) {
          partition
              .setErrorCode(r.error().code())
              .setTimestamp(r.timestampMs())
              .setOffset(r.offset())
              .setLeaderEpoch(withLeaderEpoch ? r.leaderEpoch() : -1);
        }
        topicResponse.partitions().add(partition);
      }
      response.topics().add(topicResponse);
    }
    return CompletableFuture.completedFuture(new ListOffsetsResponse(response));
  }
}
