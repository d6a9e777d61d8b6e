package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.common.Scheduler;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.replication.Acks;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.ProduceHandler;
import dev.tributary.server.ProduceRecord;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST Proxy v2 produce: {@code POST /topics/{t}} and {@code POST /topics/{t}/partitions/{p}}.
 * Asynchronous: the servlet thread returns as soon as the append is issued and the response is
 * written when {@code acks} is met.
 */
@RestController
class ProduceController {
  static final MediaType V2_JSON = MediaType.parseMediaType("application/vnd.kafka.v2+json");

  /** How long this answer was held back by the principal's produce quota, in milliseconds. */
  static final String THROTTLE_TIME_HEADER = "X-Tributary-Throttle-Time-Ms";

  private final ProduceHandler produce;
  private final ProduceRequestParser parser;
  private final TopicMeters meters;
  private final BrokerServer broker;
  private final AccessGuard access;
  private final ClientQuotaManager quotas;
  private final QuotaMeters quotaMeters;
  private final Scheduler scheduler;

  ProduceController(
      ProduceHandler produce,
      JsonMapper json,
      TopicMeters meters,
      BrokerServer broker,
      AccessGuard access,
      ClientQuotaManager quotas,
      QuotaMeters quotaMeters,
      Scheduler scheduler,
      @Value("${tributary.max-records-per-request:10000}") int maxRecordsPerRequest) {
    this.broker = broker;
    this.access = access;
    this.produce = produce;
    this.quotas = quotas;
    this.quotaMeters = quotaMeters;
    this.scheduler = scheduler;
    this.parser = new ProduceRequestParser(json, maxRecordsPerRequest);
    this.meters = meters;
  }

  @PostMapping("/topics/{topic}")
  CompletableFuture<ResponseEntity<ProduceResponse>> produceToTopic(
      @PathVariable String topic,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestHeader(value = Forwarding.FORWARDED_HEADER, required = false) String forwarded,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    requireCreateIfAbsent(request, topic);
    return produce(topic, null, acks, contentType, forwarded != null, body, request, response);
  }

  @PostMapping("/topics/{topic}/partitions/{partition}")
  CompletableFuture<ResponseEntity<ProduceResponse>> produceToPartition(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestHeader(value = Forwarding.FORWARDED_HEADER, required = false) String forwarded,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    requireCreateIfAbsent(request, topic);
    return produce(topic, partition, acks, contentType, forwarded != null, body, request, response);
  }

  /**
   * Producing to a topic that does not exist creates it (auto.create.topics.enable); as Kafka asks
   * for CREATE, that takes ADMIN on the topic, not only WRITE.
   */
  private void requireCreateIfAbsent(HttpServletRequest request, String topic) {
    if (access.enabled() && broker.metadata().topic(topic).isEmpty()) {
      access.require(request, AclOperation.ADMIN, ResourceType.TOPIC, topic);
    }
  }

  private CompletableFuture<ResponseEntity<ProduceResponse>> produce(
      String topic,
      Integer partition,
      String acksText,
      String contentType,
      boolean forwarded,
      byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    Acks acks;
    try {
      acks = Acks.parse(acksText);
    } catch (IllegalArgumentException e) {
      throw RestException.badParameter(e.getMessage());
    }
    if (body == null || body.length == 0) {
      throw RestException.badRequest("The request has no body; send {\"records\":[...]}");
    }
    List<ProduceRecord> records = parser.parse(body, EmbeddedFormat.ofContentType(contentType));
    // A produce another broker forwarded was throttled there, for its client; a forwarding header
    // without the cluster secret proves nothing.
    long throttleMs =
        BrokerCalls.fromBroker(request, broker.config().clusterSecret())
            ? 0
            : throttle(ClientIdentity.of(request), body.length, response);
    return delayed(
        throttleMs,
        produce
            .handleProduce(topic, partition, records, acks, forwarded)
            .thenApply(
                offsets -> {
                  count(topic, records.size(), body.length);
                  List<PartitionOffset> out =
                      offsets.stream().map(ProduceController::toDto).toList();
                  return ResponseEntity.ok()
                      .contentType(V2_JSON)
                      .body(new ProduceResponse(null, null, out));
                }));
  }

  /**
   * Records the request's bytes against the principal's produce quota and returns how long to delay
   * its answer. The time goes to the client in {@value #THROTTLE_TIME_HEADER} on every produce
   * answer (Kafka's {@code throttle_time_ms}), 0 when not throttled. Forwarded requests are not
   * counted again: the broker the client reached counted them.
   */
  private long throttle(String principal, long bytes, HttpServletResponse response) {
    long throttleMs = quotas.recordAndGetThrottleTimeMs(principal, bytes);
    response.setHeader(THROTTLE_TIME_HEADER, Long.toString(throttleMs));
    quotaMeters.throttleTime(principal).record(throttleMs, TimeUnit.MILLISECONDS);
    return throttleMs;
  }

  /**
   * The answer, {@code delayMs} after it is ready: the scheduler completes it, so no request thread
   * waits out a throttle.
   */
  private <T> CompletableFuture<T> delayed(long delayMs, CompletableFuture<T> answer) {
    if (delayMs <= 0) {
      return answer;
    }
    CompletableFuture<T> later = new CompletableFuture<>();
    answer.whenComplete(
        (value, failure) ->
            scheduler.schedule(
                delayMs,
                () -> {
                  if (failure != null) {
                    later.completeExceptionally(failure);
                  } else {
                    later.complete(value);
                  }
                }));
    return later;
  }

  private static PartitionOffset toDto(ProduceHandler.RecordOffset offset) {
    if (offset.error() == null) {
      return new PartitionOffset(offset.partition(), offset.offset(), null, null);
    }
    ErrorResponse error = ApiExceptionHandler.toResponse(offset.error()).getBody();
    return new PartitionOffset(offset.partition(), null, error.errorCode(), error.message());
  }

  private void count(String topic, int records, long bytes) {
    TopicMeters.Counters counters = meters.produce(topic);
    counters.records().increment(records);
    counters.bytes().increment(bytes);
  }

  record ProduceResponse(
      @JsonProperty("key_schema_id") Integer keySchemaId,
      @JsonProperty("value_schema_id") Integer valueSchemaId,
      @JsonProperty("offsets") List<PartitionOffset> offsets) {}

  record PartitionOffset(
      @JsonProperty("partition") int partition,
      @JsonProperty("offset") Long offset,
      @JsonProperty("error_code") Integer errorCode,
      @JsonProperty("error") String error) {}
}
