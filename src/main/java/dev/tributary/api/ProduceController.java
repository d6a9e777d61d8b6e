package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.replication.Acks;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.ProduceHandler;
import dev.tributary.server.ProduceRecord;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

  private final ProduceHandler produce;
  private final ProduceRequestParser parser;
  private final TopicMeters meters;
  private final BrokerServer broker;
  private final AccessGuard access;

  ProduceController(
      ProduceHandler produce,
      JsonMapper json,
      TopicMeters meters,
      BrokerServer broker,
      AccessGuard access) {
    this.broker = broker;
    this.access = access;
    this.produce = produce;
    this.parser = new ProduceRequestParser(json);
    this.meters = meters;
  }

  @PostMapping("/topics/{topic}")
  CompletableFuture<ResponseEntity<ProduceResponse>> produceToTopic(
      @PathVariable String topic,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestHeader(value = Forwarding.FORWARDED_HEADER, required = false) String forwarded,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    requireCreateIfAbsent(request, topic);
    return produce(topic, null, acks, contentType, forwarded != null, body);
  }

  @PostMapping("/topics/{topic}/partitions/{partition}")
  CompletableFuture<ResponseEntity<ProduceResponse>> produceToPartition(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestHeader(value = Forwarding.FORWARDED_HEADER, required = false) String forwarded,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request) {
    requireCreateIfAbsent(request, topic);
    return produce(topic, partition, acks, contentType, forwarded != null, body);
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
      byte[] body) {
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
    return produce
        .handleProduce(topic, partition, records, acks, forwarded)
        .thenApply(
            offsets -> {
              count(topic, records.size(), body.length);
              List<PartitionOffset> out = offsets.stream().map(ProduceController::toDto).toList();
              return ResponseEntity.ok()
                  .contentType(V2_JSON)
                  .body(new ProduceResponse(null, null, out));
            });
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
