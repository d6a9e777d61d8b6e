package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import dev.tributary.log.SlowDisk;
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
 * A broker's slow disk, a fault for the demo and for tests: {@code POST
 * /dashboard/actions/brokers/{id}/disk} with {@code {"delay_ms": N}} makes every segment write and
 * fsync of that broker's logs take N ms longer (absolute; 0 heals; at most {@link
 * SlowDisk#MAX_DELAY_MS}), as on a host whose device is saturated or failing; it answers {@code
 * {"broker_id", "delay_ms", "previous_delay_ms", "message"}}. {@code GET} answers {@code
 * {"broker_id", "delay_ms"}}. Any broker takes them and passes them on to the target over the
 * internal API, as the clock skew does ({@link ClockSkewController}). Setting is off (403 40301)
 * unless {@code tributary.dashboard.fault-actions} is on; reading is not.
 */
@RestController
class SlowDiskController {
  static final String PATH = "/dashboard/actions/brokers/{brokerId}/disk";
  static final String INTERNAL_PATH = DashboardActionsController.INTERNAL_PREFIX + "disk";
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(SlowDiskController.class);

  private final BrokerConfig config;
  private final DashboardProperties properties;
  private final SlowDisk disk;
  private final OneBrokerAction action;
  private final JsonMapper json;
  private final ClusterOrigins origins;

  SlowDiskController(
      MetadataCache broker,
      BrokerConfig config,
      DashboardProperties properties,
      SlowDisk brokerDisk,
      InternalRelay relay,
      JsonMapper json,
      ClusterOrigins origins) {
    this.config = config;
    this.properties = properties;
    this.disk = brokerDisk;
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
  CompletableFuture<ResponseEntity<Map<String, Object>>> slow(
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
  ResponseEntity<Map<String, Object>> slowForwarded(@RequestBody(required = false) byte[] body) {
    return refuse(body).orElseGet(() -> setLocally(body));
  }

  /**
   * Checked on the broker that takes the request and again on the target: either may have the fault
   * actions off.
   */
  private Optional<ResponseEntity<Map<String, Object>>> refuse(byte[] body) {
    if (!properties.faultActions()) {
      return Optional.of(FaultActionRefusals.off(config.brokerId()));
    }
    if (delayMs(body).isEmpty()) {
      return Optional.of(
          InternalRelay.error(
              HttpStatus.BAD_REQUEST,
              40002,
              "disk needs a body {\"delay_ms\": N} with N a whole number of ms from 0 (healthy) to "
                  + SlowDisk.MAX_DELAY_MS));
    }
    return Optional.empty();
  }

  private ResponseEntity<Map<String, Object>> setLocally(byte[] body) {
    long delayMs = delayMs(body).orElseThrow();
    long wasMs = disk.setDelayMs(delayMs);
    logger.warn(
        "The disk of broker {} now takes {} ms more per log write and fsync (was {} ms), as asked"
            + " through the dashboard's fault actions",
        config.brokerId(),
        delayMs,
        wasMs);
    Map<String, Object> answer = reading();
    answer.put("previous_delay_ms", wasMs);
    answer.put(
        "message",
        "Broker "
            + config.brokerId()
            + (delayMs == 0
                ? "'s disk is healthy again"
                : "'s disk now takes " + delayMs + " ms more per log write and fsync")
            + " (was "
            + wasMs
            + " ms)");
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(answer);
  }

  private Map<String, Object> reading() {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("broker_id", config.brokerId());
    answer.put("delay_ms", disk.delayMs());
    return answer;
  }

  private Optional<Long> delayMs(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode delay = json.readTree(body).path("delay_ms");
      if (!delay.isIntegralNumber() || !delay.canConvertToLong()) {
        return Optional.empty();
      }
      long ms = delay.asLong();
      return ms < 0 || ms > SlowDisk.MAX_DELAY_MS ? Optional.empty() : Optional.of(ms);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
