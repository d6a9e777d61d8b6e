package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.common.Scheduler;
import dev.tributary.replication.Acks;
import dev.tributary.server.ProduceRecord;
import dev.tributary.server.RecordProducer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST Proxy v2 produce: {@code POST /topics/{t}} and {@code POST /topics/{t}/partitions/{p}}. A
 * thin adapter: it parses the JSON body into records and hands them to {@link RecordProducer}
 * (partitioning, batches, the produce service). Asynchronous: the servlet thread returns as soon as
 * the append is issued, and the response is written when {@code acks} is met and the principal's
 * quota delay has passed.
 */
@RestController
class ProduceController {
  static final MediaType V2_JSON = MediaType.parseMediaType("application/vnd.kafka.v2+json");

  /** How long this answer was held back by the principal's produce quota, in milliseconds. */
  static final String THROTTLE_TIME_HEADER = "X-Tributary-Throttle-Time-Ms";

  private final RecordProducer producer;
  private final ProduceRequestParser parser;
  private final JsonMapper json;
  private final RequestContexts contexts;
  private final Scheduler scheduler;

  ProduceController(
      RecordProducer producer,
      JsonMapper json,
      RequestContexts contexts,
      Scheduler scheduler,
      @Value("${tributary.max-records-per-request:10000}") int maxRecordsPerRequest) {
    this.producer = producer;
    this.contexts = contexts;
    this.scheduler = scheduler;
    this.parser = new ProduceRequestParser(json, maxRecordsPerRequest);
    this.json = json;
  }

  /** Answers {@code ResponseEntity<byte[]>}, now or later ({@link Answers#nowIfDone}). */
  @PostMapping("/topics/{topic}")
  Object produceToTopic(
      @PathVariable String topic,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    return Answers.nowIfDone(produce(topic, null, acks, contentType, body, request, response));
  }

  /** Answers {@code ResponseEntity<byte[]>}, now or later ({@link Answers#nowIfDone}). */
  @PostMapping("/topics/{topic}/partitions/{partition}")
  Object produceToPartition(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(defaultValue = "all") String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    return Answers.nowIfDone(produce(topic, partition, acks, contentType, body, request, response));
  }

  private CompletableFuture<ResponseEntity<byte[]>> produce(
      String topic,
      Integer partition,
      String acksText,
      String contentType,
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
    return producer
        .produce(contexts.of(request), topic, partition, records, acks, body.length)
        .thenCompose(
            result -> {
              response.setHeader(THROTTLE_TIME_HEADER, Long.toString(result.throttleTimeMs()));
              return Throttling.delayed(
                  scheduler,
                  result.throttleTimeMs(),
                  ResponseEntity.ok().contentType(V2_JSON).body(answer(result.offsets())));
            });
  }

  /**
   * REST Proxy's answer, {@code
   * {"key_schema_id":null,"value_schema_id":null,"offsets":[{"partition":
   * 0,"offset":41,"error_code":null,"error":null},...]}}, one entry per record in request order.
   * Written with the streaming generator, not by serialising objects: it is the produce path's
   * second-largest cost after reading the body, hundreds of entries per answer.
   */
  private byte[] answer(List<RecordProducer.RecordOffset> offsets) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 64 * offsets.size());
    try (JsonGenerator g = json.createGenerator(out)) {
      g.writeStartObject();
      g.writeNullProperty("key_schema_id");
      g.writeNullProperty("value_schema_id");
      g.writeArrayPropertyStart("offsets");
      for (RecordProducer.RecordOffset offset : offsets) {
        g.writeStartObject();
        g.writeNumberProperty("partition", offset.partition());
        if (offset.error() == null) {
          g.writeNumberProperty("offset", offset.offset());
          g.writeNullProperty("error_code");
          g.writeNullProperty("error");
        } else {
          ErrorResponse error = ApiExceptionHandler.toResponse(offset.error()).getBody();
          g.writeNullProperty("offset");
          g.writeNumberProperty("error_code", error.errorCode());
          g.writeStringProperty("error", error.message());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toByteArray();
  }
}
