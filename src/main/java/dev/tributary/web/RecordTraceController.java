package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import dev.tributary.auth.RequestContexts;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.replication.Acks;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.RecordTraceService;
import dev.tributary.server.RequestContext;
import dev.tributary.trace.TraceReport;
import dev.tributary.trace.TraceStep;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * "Follow one record" from the dashboard and {@code ./tributary trace}: {@code POST
 * /dashboard/actions/topics/{topic}/trace} with {@code {"acks": "all"|"1"|"0", "partition": P}}
 * (both optional: acks=all, partition 0) answers the steps of one record's life as its leader
 * measured them ({@link RecordTraceService}). Any broker takes it: a broker that does not lead the
 * partition passes it on to the leader over the internal API (with the cluster secret and the
 * caller's principal) and relays the answer; the leader never passes it on again. Errors are the
 * API's usual {@code {"error_code", "message"}}, and nothing is appended when the request is
 * refused.
 */
@RestController
class RecordTraceController {
  static final String INTERNAL = "/internal/v1/trace";
  private static final Set<String> FIELDS = Set.of("acks", "partition");

  /** What a broker passing a trace on adds: the topic (from the public path) and the principal. */
  private static final Set<String> FORWARDED_FIELDS =
      Set.of("acks", "partition", "topic", "principal");

  private static final Duration FORWARD_EXTRA = Duration.ofSeconds(5);

  private final RecordTraceService traces;
  private final MetadataCache broker;
  private final BrokerConfig config;
  private final InternalRelay relay;
  private final JsonMapper json;
  private final ClusterOrigins origins;
  private final RequestContexts contexts;
  private final long waitMs;

  RecordTraceController(
      RecordTraceService traces,
      MetadataCache broker,
      BrokerConfig config,
      InternalRelay relay,
      JsonMapper json,
      ClusterOrigins origins,
      RequestContexts contexts) {
    this.traces = traces;
    this.broker = broker;
    this.config = config;
    this.relay = relay;
    this.json = json;
    this.origins = origins;
    this.contexts = contexts;
    this.waitMs = traces.waitMs();
  }

  /** What a trace request asks for, once its body is checked. */
  private record Wanted(String topic, Integer partition, Acks acks) {}

  @PostMapping("/dashboard/actions/topics/{topic}/trace")
  CompletableFuture<ResponseEntity<Map<String, Object>>> trace(
      @PathVariable String topic,
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host,
      HttpServletRequest request) {
    // A page of another site may POST here without a CORS preflight; only the cluster's own pages
    // (and clients that are not browsers) may produce through it.
    if (!origins.isAllowed(origin, host)) {
      return CompletableFuture.completedFuture(
          error(
              HttpStatus.FORBIDDEN,
              40302,
              "Dashboard actions are accepted only from the cluster's own dashboard pages, not from "
                  + origin));
    }
    Wanted wanted = parse(topic, body, FIELDS);
    RequestContext context = contexts.of(request);
    try {
      return traces
          .trace(context, wanted.topic(), wanted.partition(), wanted.acks())
          .thenApply(RecordTraceController::ok);
    } catch (NotLeaderOrFollowerException e) {
      Optional<BrokerImage> leader =
          e.leaderId().isPresent()
              ? broker.metadata().broker(e.leaderId().getAsInt())
              : Optional.empty();
      if (leader.isEmpty() || leader.get().brokerId() == config.brokerId()) {
        throw e;
      }
      return forward(leader.get(), wanted, context.principal());
    }
  }

  /** A trace passed on by a broker that does not lead the partition; never passed on again. */
  @PostMapping(INTERNAL)
  CompletableFuture<ResponseEntity<Map<String, Object>>> traceForwarded(
      @RequestBody byte[] body, HttpServletRequest request) {
    JsonNode tree = readTree(body);
    Wanted wanted = parse(tree.path("topic").asString(""), body, FORWARDED_FIELDS);
    String principal = tree.path("principal").isString() ? tree.path("principal").asString() : null;
    RequestContext context = new RequestContext(principal, request.getRemoteAddr(), true);
    return traces
        .trace(context, wanted.topic(), wanted.partition(), wanted.acks())
        .thenApply(RecordTraceController::ok);
  }

  /**
   * @param allowed the fields the body may have: the public endpoint's, or a forwarded trace's
   */
  private Wanted parse(String topic, byte[] body, Set<String> allowed) {
    if (body == null || body.length == 0) {
      return new Wanted(topic, null, Acks.ALL);
    }
    JsonNode tree = readTree(body);
    if (!tree.isObject()) {
      throw new InvalidRequestException(
          "A trace's body is a JSON object: {\"acks\": \"all\"|\"1\"|\"0\", \"partition\": N}");
    }
    for (String name : tree.propertyNames()) {
      if (!allowed.contains(name)) {
        throw new InvalidRequestException(
            "Unknown field \"" + name + "\"; a trace takes acks and partition");
      }
    }
    Acks acks = Acks.ALL;
    JsonNode acksNode = tree.path("acks");
    if (!acksNode.isMissingNode() && !acksNode.isNull()) {
      String spelled = acksNode.isNumber() ? acksNode.asString() : acksNode.asString("");
      try {
        acks = Acks.parse(spelled);
      } catch (IllegalArgumentException e) {
        throw new InvalidRequestException(
            "acks must be \"all\", \"1\" or \"0\" (or -1, the same as all), got " + acksNode);
      }
    }
    Integer partition = null;
    JsonNode partitionNode = tree.path("partition");
    if (!partitionNode.isMissingNode() && !partitionNode.isNull()) {
      if (!partitionNode.isIntegralNumber()
          || !partitionNode.canConvertToInt()
          || partitionNode.asInt() < 0) {
        throw new InvalidRequestException(
            "partition must be a partition number (0 or more), got " + partitionNode);
      }
      partition = partitionNode.asInt();
    }
    return new Wanted(topic, partition, acks);
  }

  private JsonNode readTree(byte[] body) {
    try {
      return json.readTree(body);
    } catch (RuntimeException e) {
      throw new InvalidRequestException(
          "A trace's body is a JSON object: {\"acks\": \"all\"|\"1\"|\"0\", \"partition\": N}");
    }
  }

  private CompletableFuture<ResponseEntity<Map<String, Object>>> forward(
      BrokerImage leader, Wanted wanted, String principal) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("topic", wanted.topic());
    body.put("partition", wanted.partition());
    body.put("acks", TraceReport.acksName(wanted.acks()));
    body.put("principal", principal);
    return relay.post(
        leader,
        INTERNAL,
        json.writeValueAsBytes(body),
        Duration.ofMillis(waitMs).plus(FORWARD_EXTRA),
        e ->
            "Broker "
                + leader.brokerId()
                + " leads "
                + wanted.topic()
                + "-"
                + (wanted.partition() == null ? 0 : wanted.partition())
                + " but did not answer the trace; retry shortly");
  }

  private static ResponseEntity<Map<String, Object>> ok(TraceReport report) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("topic", report.topicPartition().topic());
    body.put("partition", report.topicPartition().partition());
    body.put("offset", report.offset());
    body.put("leader_id", report.leaderId());
    body.put("leader_epoch", report.leaderEpoch());
    body.put("replicas", report.replicas());
    body.put("isr", report.isr());
    body.put("acks", TraceReport.acksName(report.acks()));
    body.put("waited_for", report.waitedFor());
    body.put("wait_ms", report.waitMs());
    body.put("complete", report.complete());
    List<Map<String, Object>> steps =
        report.steps().stream().map(RecordTraceController::step).toList();
    body.put("steps", steps);
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }

  private static Map<String, Object> step(TraceStep step) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("step", step.kind().wireName());
    out.put("broker_id", step.brokerId());
    out.put("log_end_offset", step.logEndOffset() < 0 ? null : step.logEndOffset());
    out.put("high_watermark", step.highWatermark() < 0 ? null : step.highWatermark());
    out.put("at_ms", step.atMs());
    out.put("text", step.text());
    return out;
  }

  private static ResponseEntity<Map<String, Object>> error(
      HttpStatus status, int code, String message) {
    return InternalRelay.error(status, code, message);
  }
}
