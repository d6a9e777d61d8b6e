package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import dev.tributary.common.SkewedTime;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A broker's clock skew, a fault for the demo and for tests: {@code GET
 * /dashboard/actions/brokers/{id}/clock} answers {@code {"broker_id", "skew_ms", "wall_clock_ms"}},
 * and {@code POST} with {@code {"skew_ms": N}} sets the offset of that broker's wall clock to N ms
 * (absolute; 0 puts it right; at most ±1 day), as on a host whose clock is wrong or is stepped. Its
 * monotonic clock is untouched, as a real host's is. Any broker takes them and passes them on to
 * the target over the internal API, as the other fault buttons. Setting is off (403 40301) unless
 * {@code tributary.dashboard.fault-actions} is on; reading is not.
 */
@RestController
class ClockSkewController {
  static final String PATH = "/dashboard/actions/brokers/{brokerId}/clock";
  static final String INTERNAL_PATH = DashboardActionsController.INTERNAL_PREFIX + "clock";
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(ClockSkewController.class);

  private final BrokerConfig config;
  private final DashboardProperties properties;
  private final SkewedTime clock;
  private final OneBrokerAction action;
  private final JsonMapper json;
  private final ClusterOrigins origins;

  ClockSkewController(
      MetadataCache broker,
      BrokerConfig config,
      DashboardProperties properties,
      SkewedTime brokerTime,
      InternalRelay relay,
      JsonMapper json,
      ClusterOrigins origins) {
    this.config = config;
    this.properties = properties;
    this.clock = brokerTime;
    this.action = new OneBrokerAction(broker, config, relay, INTERNAL_PATH);
    this.json = json;
    this.origins = origins;
  }

  @GetMapping(PATH)
  CompletableFuture<ResponseEntity<Map<String, Object>>> read(@PathVariable int brokerId) {
    return action.read(
        brokerId,
        () -> ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(reading()));
  }

  @PostMapping(PATH)
  CompletableFuture<ResponseEntity<Map<String, Object>>> skew(
      @PathVariable int brokerId,
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host) {
    if (!origins.isAllowed(origin, host)) {
      return OneBrokerAction.done(FaultActionRefusals.crossSite(origin));
    }
    Optional<ResponseEntity<Map<String, Object>>> refusal = refuse(body);
    if (refusal.isPresent()) {
      return OneBrokerAction.done(refusal.get());
    }
    return action.change(brokerId, body, () -> setLocally(body));
  }

  /** The same, passed on from another broker. */
  @GetMapping(INTERNAL_PATH)
  ResponseEntity<Map<String, Object>> readForwarded() {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(reading());
  }

  @PostMapping(INTERNAL_PATH)
  ResponseEntity<Map<String, Object>> skewForwarded(@RequestBody(required = false) byte[] body) {
    return refuse(body).orElseGet(() -> setLocally(body));
  }

  private Optional<ResponseEntity<Map<String, Object>>> refuse(byte[] body) {
    if (!properties.faultActions()) {
      return Optional.of(FaultActionRefusals.off(config.brokerId()));
    }
    if (skewMs(body).isEmpty()) {
      return Optional.of(
          InternalRelay.error(
              HttpStatus.BAD_REQUEST,
              40002,
              "clock needs a body {\"skew_ms\": N} with N a whole number of ms from -"
                  + SkewedTime.MAX_SKEW_MS
                  + " to "
                  + SkewedTime.MAX_SKEW_MS
                  + " (one day)"));
    }
    return Optional.empty();
  }

  private ResponseEntity<Map<String, Object>> setLocally(byte[] body) {
    long skewMs = skewMs(body).orElseThrow();
    long wasMs = clock.skewMs();
    clock.setSkewMs(skewMs);
    logger.warn(
        "The wall clock of broker {} is now skewed by {} ms (was {} ms), as asked through the"
            + " dashboard's fault actions; its monotonic clock is unchanged",
        config.brokerId(),
        skewMs,
        wasMs);
    Map<String, Object> answer = reading();
    answer.put(
        "message",
        "Broker "
            + config.brokerId()
            + "'s wall clock jumped by "
            + (skewMs - wasMs)
            + " ms: it is now "
            + skewMs
            + " ms off (was "
            + wasMs
            + " ms); its monotonic clock is unchanged");
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(answer);
  }

  private Map<String, Object> reading() {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("broker_id", config.brokerId());
    answer.put("skew_ms", clock.skewMs());
    answer.put("wall_clock_ms", clock.milliseconds());
    return answer;
  }

  private Optional<Long> skewMs(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode skew = json.readTree(body).path("skew_ms");
      if (!skew.isIntegralNumber() || !skew.canConvertToLong()) {
        return Optional.empty();
      }
      long ms = skew.asLong();
      return ms < -SkewedTime.MAX_SKEW_MS || ms > SkewedTime.MAX_SKEW_MS
          ? Optional.empty()
          : Optional.of(ms);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
