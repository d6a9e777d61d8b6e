package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.ProduceService;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Produce (v3–13; v13 names topics by id): each partition's batches go to {@link ProduceService}
 * exactly as the client sent them (compressed or not, stored byte for byte), never forwarded (a
 * Kafka client routes to leaders itself); the answer has each partition's base offset, log append
 * time and log start offset, or Kafka's error. With {@code acks=0} nothing is answered, and a
 * failed partition closes the connection so the client refreshes its metadata (as Kafka does).
 */
final class ProduceApi implements ApiHandler {
  private final ProduceService produce;
  private final MetadataCache metadata;

  ProduceApi(ProduceService produce, MetadataCache metadata) {
    this.produce = produce;
    this.metadata = metadata;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.PRODUCE;
  }

  @Override
  public short minVersion() {
    return 3;
  }

  @Override
  public short advertisedMinVersion() {
    return 0; // see LegacyProduceRefusal
  }

  @Override
  public short maxVersion() {
    return 13;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    ProduceRequestData data = ((ProduceRequest) request).data();
    Acks acks = acks(data.acks());
    MetadataImage image = metadata.metadata();
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    Map<TopicPartition, Errors> refused = new LinkedHashMap<>();
    Map<TopicPartition, ProduceRequestData.TopicProduceData> topicOf = new LinkedHashMap<>();
    int sizeInBytes = 0;
    for (ProduceRequestData.TopicProduceData topic : data.topicData()) {
      String name = topic.name();
      if (context.apiVersion() >= 13) {
        TopicImage found = TopicIds.find(image, topic.topicId());
        name = found == null ? null : found.name();
      }
      for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
        TopicPartition tp = new TopicPartition(name == null ? "" : name, partition.index());
        topicOf.put(tp, topic);
        if (name == null) {
          refused.put(tp, Errors.UNKNOWN_TOPIC_ID);
          continue;
        }
        MemoryRecords records = (MemoryRecords) partition.records();
        if (records == null) {
          refused.put(tp, Errors.INVALID_RECORD);
          continue;
        }
        ByteBuffer bytes = records.buffer().duplicate();
        sizeInBytes += bytes.remaining();
        batches.put(tp, bytes);
      }
    }
    if (batches.isEmpty()) {
      return CompletableFuture.completedFuture(
          respond(context, acks, topicOf, Map.of(), refused, 0));
    }
    return produce
        .produce(
            context.request(),
            new ProduceService.ProduceRequest(batches, acks, data.timeoutMs(), sizeInBytes, false))
        .thenApply(
            answer ->
                respond(
                    context,
                    acks,
                    topicOf,
                    answer.partitions(),
                    refused,
                    (int) Math.min(Integer.MAX_VALUE, answer.throttleTimeMs())));
  }

  private AbstractResponse respond(
      KafkaRequestContext context,
      Acks acks,
      Map<TopicPartition, ProduceRequestData.TopicProduceData> topicOf,
      Map<TopicPartition, ProducePartitionResult> results,
      Map<TopicPartition, Errors> refused,
      int throttleTimeMs) {
    boolean anyError = !refused.isEmpty();
    ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(throttleTimeMs);
    Map<ProduceRequestData.TopicProduceData, ProduceResponseData.TopicProduceResponse> byTopic =
        new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, ProduceRequestData.TopicProduceData> entry :
        topicOf.entrySet()) {
      TopicPartition tp = entry.getKey();
      ProduceRequestData.TopicProduceData topic = entry.getValue();
      ProduceResponseData.TopicProduceResponse topicResponse =
          byTopic.computeIfAbsent(
              topic,
              t -> {
                ProduceResponseData.TopicProduceResponse r =
                    new ProduceResponseData.TopicProduceResponse()
                        .setName(t.name())
                        .setTopicId(t.topicId());
                response.responses().add(r);
                return r;
              });
      ProduceResponseData.PartitionProduceResponse partition =
          new ProduceResponseData.PartitionProduceResponse().setIndex(tp.partition());
      Errors error = refused.get(tp);
      ProducePartitionResult result = results.get(tp);
      if (error != null) {
        partition.setErrorCode(error.code()).setBaseOffset(-1).setLogAppendTimeMs(-1);
      } else if (result.error() != dev.tributary.common.errors.Errors.NONE) {
        anyError = true;
        partition
            .setErrorCode(result.error().code())
            .setErrorMessage(result.errorMessage())
            .setBaseOffset(-1)
            .setLogAppendTimeMs(-1)
            .setLogStartOffset(-1);
      } else {
        partition
            .setErrorCode(Errors.NONE.code())
            .setBaseOffset(result.baseOffset())
            .setLogAppendTimeMs(result.logAppendTimeMs())
            .setLogStartOffset(result.logStartOffset());
      }
      topicResponse.partitionResponses().add(partition);
    }
    if (acks == Acks.NONE) {
      if (anyError) {
        throw new AcksZeroFailure();
      }
      return null;
    }
    return new ProduceResponse(response);
  }

  /**
   * acks=0 and a partition failed: there is no response to carry the error, so the connection is
   * closed (the client then refreshes its metadata and finds the new leader).
   */
  static final class AcksZeroFailure extends RuntimeException {
    AcksZeroFailure() {
      super("a partition of an acks=0 produce failed", null, false, false);
    }
  }

  private static Acks acks(short acks) {
    return switch (acks) {
      case 0 -> Acks.NONE;
      case 1 -> Acks.LEADER;
      case -1 -> Acks.ALL;
      default ->
          throw new org.apache.kafka.common.errors.InvalidRequiredAcksException(
              "acks must be -1, 0 or 1, got " + acks);
    };
  }
}
