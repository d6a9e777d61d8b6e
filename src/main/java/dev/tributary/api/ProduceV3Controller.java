package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Acks;
import dev.tributary.server.AutoTopicCreator;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.ProduceRecord;
import dev.tributary.server.RecordProducer;
import dev.tributary.server.RequestContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Confluent REST Proxy v3's produce: {@code POST /v3/clusters/{cluster_id}/topics/{topic}/records}
 * with one record, or several JSON records one after another in one body (REST Proxy's streaming
 * mode), each {@code {"partition_id"?, "headers"?, "key"?, "value"?, "timestamp"?}} with key and
 * value as {@code {"type": "JSON"|"BINARY"|"STRING", "data": ...}} ({@link V3ProduceRecords}).
 *
 * <p>One record: 200 with its result ({@code error_code} 200, {@code partition_id}, {@code offset},
 * {@code timestamp}, key and value type and size), or the error's status with {@code
 * {"error_code","message"}}. Several: 200 with one result per record, in order, each a JSON object
 * on its own line, a failed record's carrying its own error code and message; a bad record fails
 * alone and the others are produced. The topic is auto-created as by v2 produce
 * (auto.create.topics.enable); records go through the same {@link RecordProducer} and {@code
 * acks=all}, as REST Proxy's producer defaults.
 */
@RestController
class ProduceV3Controller {
  private final MetadataCache metadata;
  private final RecordProducer producer;
  private final AutoTopicCreator autoTopics;
  private final RequestContexts contexts;
  private final JsonMapper json;
  private final V3ProduceRecords parser;
  private final Scheduler scheduler;
  private final Time time;

  ProduceV3Controller(
      MetadataCache metadata,
      RecordProducer producer,
      AutoTopicCreator autoTopics,
      RequestContexts contexts,
      JsonMapper json,
      Scheduler scheduler,
      Time brokerTime,
      @org.springframework.beans.factory.annotation.Value(
              "${tributary.max-records-per-request:10000}")
          int maxRecordsPerRequest) {
    this.metadata = metadata;
    this.producer = producer;
    this.autoTopics = autoTopics;
    this.contexts = contexts;
    this.json = json;
    this.parser = new V3ProduceRecords(json, maxRecordsPerRequest);
    this.scheduler = scheduler;
    this.time = brokerTime;
  }

  /** Answers now when the future is already complete ({@link Answers#nowIfDone}). */
  @PostMapping("/v3/clusters/{clusterId}/topics/{topic}/records")
  Object produce(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    return Answers.nowIfDone(produceAnswer(clusterId, topic, body, request, response));
  }

  private CompletableFuture<ResponseEntity<byte[]>> produceAnswer(
      String clusterId,
      String topic,
      byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    ApiRequests.requireCluster(metadata, clusterId);
    if (body == null || body.length == 0) {
      throw RestException.badRequest(
          "The request needs a body: one or more {\"key\":..,\"value\":..} records");
    }
    List<V3ProduceRecords.Parsed> parsed = parser.parse(body, time.milliseconds());
    RequestContext context = contexts.of(request);
    boolean single = parsed.size() == 1;
    if (parsed.stream().allMatch(p -> p.error() != null)) {
      return CompletableFuture.completedFuture(answer(topic, parsed, List.of(), single));
    }
    // A record naming a partition the topic does not have is refused alone (below), not the
    // request: the topic is looked up, or auto-created, for every partition.
    return autoTopics
        .topicForProduce(context, topic, -1)
        .thenCompose(image -> produceValid(context, image, parsed, body.length, single, response));
  }

  private CompletableFuture<ResponseEntity<byte[]>> produceValid(
      RequestContext context,
      TopicImage image,
      List<V3ProduceRecords.Parsed> parsed,
      long sizeInBytes,
      boolean single,
      HttpServletResponse response) {
    List<V3ProduceRecords.Parsed> checked = new ArrayList<>(parsed.size());
    List<ProduceRecord> valid = new ArrayList<>();
    for (V3ProduceRecords.Parsed p : parsed) {
      Integer partition = p.error() == null ? p.record().partition() : null;
      if (partition != null && partition >= image.partitionCount()) {
        checked.add(
            p.failed(
                UnknownTopicOrPartitionException.unknownPartition(
                    image.name(), partition, image.partitionCount())));
        continue;
      }
      checked.add(p);
      if (p.error() == null) {
        valid.add(p.record());
      }
    }
    if (valid.isEmpty()) {
      return CompletableFuture.completedFuture(answer(image.name(), checked, List.of(), single));
    }
    return producer
        .produce(context, image.name(), null, valid, Acks.ALL, sizeInBytes)
        .handle(
            (result, failure) -> {
              List<RecordProducer.RecordOffset> offsets = new ArrayList<>(valid.size());
              for (int i = 0; i < valid.size(); i++) {
                offsets.add(
                    failure == null
                        ? result.offsets().get(i)
                        : new RecordProducer.RecordOffset(-1, -1, -1, failure));
              }
              ResponseEntity<byte[]> answer = answer(image.name(), checked, offsets, single);
              // over the produce quota: held back as v2's answer is, so a client that waits for
              // each answer slows to the quota
              long throttleTimeMs = failure == null ? result.throttleTimeMs() : 0;
              response.setHeader(
                  ProduceController.THROTTLE_TIME_HEADER, Long.toString(throttleTimeMs));
              return Throttling.delayed(scheduler, throttleTimeMs, answer);
            })
        .thenCompose(delayed -> delayed);
  }

  /**
   * The answer: one result per record in order (the produced ones take the next offset outcome).
   */
  private ResponseEntity<byte[]> answer(
      String topic,
      List<V3ProduceRecords.Parsed> parsed,
      List<RecordProducer.RecordOffset> offsets,
      boolean single) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int next = 0;
    HttpStatus singleStatus = HttpStatus.OK;
    for (V3ProduceRecords.Parsed p : parsed) {
      Map<String, Object> result;
      if (p.error() != null) {
        ResponseEntity<ErrorResponse> error = ApiExceptionHandler.toResponse(p.error());
        singleStatus = HttpStatus.valueOf(error.getStatusCode().value());
        result = errorResult(error.getBody());
      } else {
        RecordProducer.RecordOffset offset = offsets.get(next++);
        if (offset.error() != null) {
          ResponseEntity<ErrorResponse> error = ApiExceptionHandler.toResponse(offset.error());
          singleStatus = HttpStatus.valueOf(error.getStatusCode().value());
          result = errorResult(error.getBody());
        } else {
          result = success(topic, p, offset);
        }
      }
      out.writeBytes(json.writeValueAsBytes(result));
      if (!single) {
        out.write('\n');
      }
    }
    return ResponseEntity.status(single ? singleStatus : HttpStatus.OK)
        .contentType(MediaType.APPLICATION_JSON)
        .body(out.toByteArray());
  }

  private Map<String, Object> success(
      String topic, V3ProduceRecords.Parsed p, RecordProducer.RecordOffset offset) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("error_code", 200);
    result.put("cluster_id", metadata.clusterId());
    result.put("topic_name", topic);
    result.put("partition_id", offset.partition());
    result.put("offset", offset.offset());
    long timestampMs =
        offset.logAppendTimeMs() >= 0 ? offset.logAppendTimeMs() : p.record().timestampMs();
    result.put("timestamp", java.time.Instant.ofEpochMilli(timestampMs).toString());
    result.put("key", p.keyDescription());
    result.put("value", p.valueDescription());
    return result;
  }

  /** A record's error, in the API's error shape: its code (docs/api.md) and why. */
  private static Map<String, Object> errorResult(ErrorResponse error) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("error_code", error.errorCode());
    result.put("message", error.message());
    return result;
  }
}
