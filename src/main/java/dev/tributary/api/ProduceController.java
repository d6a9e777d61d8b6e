package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.common.Scheduler;
import dev.tributary.replication.Acks;
import dev.tributary.server.ProduceRecord;
import dev.tributary.server.RecordProducer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
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

  /** {@code acks} when the request does not say (REST Proxy's default). */
  static final String DEFAULT_ACKS = "all";

  /** How long this answer was held back by the principal's produce quota, in milliseconds. */
  static final String THROTTLE_TIME_HEADER = "X-Tributary-Throttle-Time-Ms";

  // The fixed parts of the answer (see answer()).
  private static final byte[] ANSWER_START =
      JsonOutput.ascii("{\"key_schema_id\":null,\"value_schema_id\":null,\"offsets\":[");
  private static final byte[] ENTRY_START = JsonOutput.ascii("{\"partition\":");
  private static final byte[] NEXT_ENTRY_START = JsonOutput.ascii(",{\"partition\":");
  private static final byte[] OFFSET = JsonOutput.ascii(",\"offset\":");
  private static final byte[] NO_ERROR_END =
      JsonOutput.ascii(",\"error_code\":null,\"error\":null}");
  private static final byte[] ERROR_CODE = JsonOutput.ascii(",\"offset\":null,\"error_code\":");
  private static final byte[] ERROR = JsonOutput.ascii(",\"error\":");
  private static final byte[] ANSWER_END = JsonOutput.ascii("]}");

  private final RecordProducer producer;
  private final ProduceRequestParser parser;
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
  }

  /** Answers {@code ResponseEntity<RenderedJson>}, now or later ({@link Answers#nowIfDone}). */
  @PostMapping("/topics/{topic}")
  Object produceToTopic(
      @PathVariable String topic,
      @RequestParam(defaultValue = DEFAULT_ACKS) String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    return Answers.nowIfDone(produce(topic, null, acks, contentType, body, request, response));
  }

  /** Answers {@code ResponseEntity<RenderedJson>}, now or later ({@link Answers#nowIfDone}). */
  @PostMapping("/topics/{topic}/partitions/{partition}")
  Object produceToPartition(
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestParam(defaultValue = DEFAULT_ACKS) String acks,
      @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest request,
      HttpServletResponse response) {
    return Answers.nowIfDone(produce(topic, partition, acks, contentType, body, request, response));
  }

  /**
   * The produce both paths answer with: this controller's (Spring MVC) and {@link
   * RecordEndpointsFilter}'s. Throws on a bad request (the caller maps it as {@link
   * ApiExceptionHandler} does).
   */
  CompletableFuture<ResponseEntity<RenderedJson>> produce(
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
   * Written token by token ({@link JsonOutput}), not by serialising objects: hundreds of entries
   * per answer, and the generator's overhead per entry was a visible share of a produce.
   */
  static RenderedJson answer(List<RecordProducer.RecordOffset> offsets) {
    JsonOutput out = new JsonOutput(64 + 64 * offsets.size());
    out.write(ANSWER_START);
    boolean first = true;
    for (RecordProducer.RecordOffset offset : offsets) {
      out.write(first ? ENTRY_START : NEXT_ENTRY_START);
      first = false;
      out.writeNumber(offset.partition());
      if (offset.error() == null) {
        out.write(OFFSET);
        out.writeNumber(offset.offset());
        out.write(NO_ERROR_END);
      } else {
        ErrorResponse error = ApiExceptionHandler.toResponse(offset.error()).getBody();
        out.write(ERROR_CODE);
        out.writeNumber(error.errorCode());
        out.write(ERROR);
        out.write(JsonOutput.quoted(error.message()));
        out.write((byte) '}');
      }
    }
    out.write(ANSWER_END);
    return out.rendered();
  }
}
