package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.server.OffsetsService;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * OffsetForLeaderEpoch (v2–4), which consumers send to validate their position after a leader
 * change (KIP-320): where each asked-for epoch ends on the partition's leader.
 */
final class OffsetForLeaderEpochApi implements ApiHandler {
  private final OffsetsService offsets;

  OffsetForLeaderEpochApi(OffsetsService offsets) {
    this.offsets = offsets;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.OFFSET_FOR_LEADER_EPOCH;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    OffsetForLeaderEpochRequestData data = ((OffsetsForLeaderEpochRequest) request).data();
    Map<TopicPartition, OffsetsService.EpochQuery> queries = new LinkedHashMap<>();
    data.topics()
        .forEach(
            topic ->
                topic
                    .partitions()
                    .forEach(
                        p ->
                            queries.put(
                                new TopicPartition(topic.topic(), p.partition()),
                                new OffsetsService.EpochQuery(
                                    p.currentLeaderEpoch(), p.leaderEpoch()))));
    Map<TopicPartition, OffsetsService.EpochEndOffsetResult> results =
        offsets.offsetForLeaderEpoch(context.request(), queries);
    OffsetForLeaderEpochResponseData response =
        new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0);
    data.topics()
        .forEach(
            topic -> {
              OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topicResult =
                  new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                      .setTopic(topic.topic());
              topic
                  .partitions()
                  .forEach(
                      p -> {
                        OffsetsService.EpochEndOffsetResult r =
                            results.get(new TopicPartition(topic.topic(), p.partition()));
                        topicResult
                            .partitions()
                            .add(
                                new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                    .setPartition(p.partition())
                                    .setErrorCode(r.error().code())
                                    .setLeaderEpoch(r.endOffset().leaderEpoch())
                                    .setEndOffset(r.endOffset().endOffset()));
                      });
              response.topics().add(topicResult);
            });
    return CompletableFuture.completedFuture(new OffsetsForLeaderEpochResponse(response));
  }
}
