package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
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
 * The dashboard's fault buttons: {@code POST
 * /dashboard/actions/brokers/{id}/{crash|shutdown|pause-fetching|start|decommission}}, and {@code
 * POST /dashboard/actions/cluster/add-broker}. Any broker takes them: an action on another broker
 * is passed to it over the internal API (with the cluster secret), except those this broker runs
 * through the launcher ({@link LauncherRuns}): {@code start}, because the target is down, {@code
 * decommission}, because the target is stopped at the end, and adding a broker, which is no broker
 * yet. Off unless {@code tributary.dashboard.fault-actions} is on: 403 40301.
 */
@RestController
class DashboardActionsController {
  static final String INTERNAL_PREFIX = "/internal/v1/dashboard/";
  private static final int MAX_PAUSE_SECONDS = 600;
  private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(2);

  /** A rack name as {@code ./tributary add-broker --rack} takes it, within a sane length. */
  private static final Pattern RACK = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private static final String ADD_BROKER_BODY =
      "add-broker takes no body, {} or {\"rack\": NAME} with NAME 1 to 64 letters, digits,"
          + " '.', '_' or '-'";

  private final MetadataCache broker;
  private final BrokerConfig config;
  private final DashboardProperties properties;
  private final FaultActions faults;
  private final InternalRelay relay;
  private final JsonMapper json;
  private final ClusterOrigins origins;

  DashboardActionsController(
      MetadataCache broker,
      BrokerConfig config,
      DashboardProperties properties,
      FaultActions faults,
      InternalRelay relay,
      JsonMapper json,
      ClusterOrigins origins) {
    this.origins = origins;
    this.relay = relay;
    this.broker = broker;
    this.config = config;
    this.properties = properties;
    this.faults = faults;
    this.json = json;
  }

  @PostMapping("/dashboard/actions/brokers/{brokerId}/{action}")
  CompletableFuture<ResponseEntity<Map<String, Object>>> act(
      @PathVariable int brokerId,
      @PathVariable String action,
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host) {
    // A page of another site can POST a plain form here without a CORS preflight; the browser still
    // says whose
    // page it is. Only the cluster's own pages may press these buttons.
    if (!origins.isAllowed(origin, host)) {
      return done(FaultActionRefusals.crossSite(origin));
    }
    Optional<ResponseEntity<Map<String, Object>>> refusal = refuse(action, body);
    if (refusal.isPresent()) {
      return CompletableFuture.completedFuture(refusal.get());
    }
    Optional<BrokerImage> target = broker.metadata().broker(brokerId);
    if (target.isEmpty()) {
      return done(
          error(
              HttpStatus.NOT_FOUND,
              40406,
              "Broker " + brokerId + " is not registered in this cluster"));
    }
    if (action.equals("start")) {
      return done(start(target.get()));
    }
    if (action.equals("decommission")) {
      return done(decommission(target.get()));
    }
    if (brokerId == config.brokerId()) {
      return done(actLocally(action, body));
    }
    return forward(target.get(), action, body);
  }

  /**
   * Adds a broker to the cluster: {@code launcher add-broker [--rack RACK]}, run by this broker.
   * The optional body {@code {"rack": "a"}} gives the new broker's rack.
   */
  @PostMapping("/dashboard/actions/cluster/add-broker")
  ResponseEntity<Map<String, Object>> addBroker(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host) {
    if (!origins.isAllowed(origin, host)) {
      return FaultActionRefusals.crossSite(origin);
    }
    if (!properties.faultActions()) {
      return FaultActionRefusals.off(config.brokerId());
    }
    Optional<String> rack;
    try {
      rack = rack(body);
    } catch (RuntimeException e) {
      return error(HttpStatus.BAD_REQUEST, 40002, ADD_BROKER_BODY);
    }
    if (!faults.canRunLauncher()) {
      return noLauncher("add brokers");
    }
    return launch(
        () -> faults.addBroker(rack),
        "Adding a broker"
            + rack.map(r -> " on rack " + r).orElse("")
            + ": it joins the cluster within seconds, holding no partitions until a balance moves"
            + " some onto it",
        "A broker is being added from the dashboard already");
  }

  /** The same actions, passed on from another broker's dashboard. */
  @PostMapping(INTERNAL_PREFIX + "{action}")
  ResponseEntity<Map<String, Object>> actForwarded(
      @PathVariable String action, @RequestBody(required = false) byte[] body) {
    return refuse(action, body).orElseGet(() -> actLocally(action, body));
  }

  private Optional<ResponseEntity<Map<String, Object>>> refuse(String action, byte[] body) {
    if (!properties.faultActions()) {
      return Optional.of(FaultActionRefusals.off(config.brokerId()));
    }
    return switch (action) {
      case "crash", "shutdown", "start", "decommission" -> Optional.empty();
      case "pause-fetching" ->
          pauseSeconds(body).isPresent()
              ? Optional.empty()
              : Optional.of(
                  error(
                      HttpStatus.BAD_REQUEST,
                      40002,
                      "pause-fetching needs a body {\"seconds\": N} with N from 1 to "
                          + MAX_PAUSE_SECONDS));
      default ->
          Optional.of(
              error(
                  HttpStatus.NOT_FOUND,
                  40400,
                  "No such action '"
                      + action
                      + "'; use crash, shutdown, pause-fetching, start or decommission"));
    };
  }

  private ResponseEntity<Map<String, Object>> actLocally(String action, byte[] body) {
    int self = config.brokerId();
    return switch (action) {
      case "crash" -> {
        faults.crashSoon();
        yield accepted(
            "Broker " + self + " crashes now (halted like SIGKILL, no controlled shutdown)");
      }
      case "shutdown" -> {
        faults.shutDownSoon();
        yield accepted("Broker " + self + " shuts down cleanly (its leaderships move first)");
      }
      case "pause-fetching" -> {
        int seconds = pauseSeconds(body).orElseThrow();
        faults.pauseFetching(seconds * 1000L);
        yield accepted("Broker " + self + " pauses replica fetching for " + seconds + " s");
      }
      default -> error(HttpStatus.NOT_FOUND, 40400, "No such action '" + action + "'");
    };
  }

  private ResponseEntity<Map<String, Object>> start(BrokerImage target) {
    if (!faults.canRunLauncher()) {
      return noLauncher("start brokers");
    }
    int id = target.brokerId();
    if (id == config.brokerId() || !target.fenced()) {
      return error(
          HttpStatus.CONFLICT,
          40908,
          "Broker " + id + " is running (not fenced); crash or shut it down first");
    }
    return launch(
        () -> faults.startBroker(id),
        "Starting broker " + id + " on its data",
        "Broker " + id + " is being started from the dashboard already");
  }

  private ResponseEntity<Map<String, Object>> decommission(BrokerImage target) {
    if (!faults.canRunLauncher()) {
      return noLauncher("decommission brokers");
    }
    int id = target.brokerId();
    return launch(
        () -> faults.decommission(id),
        "Decommissioning broker "
            + id
            + ": its replicas move to the other brokers, then it stops and leaves the cluster",
        "Broker " + id + " is being decommissioned from the dashboard already");
  }

  /**
   * Runs the launcher for a button: 202 with {@code message} and where the launcher's output goes,
   * or 409 40915 ({@code busy}) while the run the same button started before still goes.
   */
  private ResponseEntity<Map<String, Object>> launch(
      LauncherCall call, String message, String busy) {
    try {
      LauncherRuns.Run run = call.run();
      if (!run.started()) {
        return error(
            HttpStatus.CONFLICT,
            40915,
            busy + " (launcher output: " + run.log() + "); wait for it to finish");
      }
      return accepted(message + " (launcher output: " + run.log() + ")");
    } catch (IOException e) {
      return error(
          HttpStatus.INTERNAL_SERVER_ERROR, 50001, "Could not run the launcher: " + e.getMessage());
    }
  }

  /** One of {@link FaultActions}' launcher runs. */
  @FunctionalInterface
  private interface LauncherCall {
    LauncherRuns.Run run() throws IOException;
  }

  /** 409 40909: this broker knows no launcher to run. */
  private ResponseEntity<Map<String, Object>> noLauncher(String what) {
    return error(
        HttpStatus.CONFLICT,
        40909,
        "Broker " + config.brokerId() + " cannot " + what + ": it was not started by ./tributary");
  }

  /**
   * The rack an add-broker body names: none for no body or {@code {}}; throws for anything but a
   * JSON object whose only field is a {@code rack} that is {@link #RACK} or null.
   */
  private Optional<String> rack(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    JsonNode request = json.readTree(body);
    if (!request.isObject()) {
      throw new IllegalArgumentException("not an object");
    }
    for (String field : request.propertyNames()) {
      if (!field.equals("rack")) {
        throw new IllegalArgumentException("unknown field " + field);
      }
    }
    JsonNode rack = request.path("rack");
    if (rack.isMissingNode() || rack.isNull()) {
      return Optional.empty();
    }
    if (!rack.isString() || !RACK.matcher(rack.asString()).matches()) {
      throw new IllegalArgumentException("bad rack");
    }
    return Optional.of(rack.asString());
  }

  private CompletableFuture<ResponseEntity<Map<String, Object>>> forward(
      BrokerImage target, String action, byte[] body) {
    return relay.post(
        target,
        INTERNAL_PREFIX + action,
        body,
        FORWARD_TIMEOUT,
        e ->
            "Broker "
                + target.brokerId()
                + " did not answer ("
                + dev.tributary.common.NetworkFailures.describe(e)
                + "); is it down already?");
  }

  private Optional<Integer> pauseSeconds(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode seconds = json.readTree(body).path("seconds");
      if (!seconds.isIntegralNumber()
          || seconds.asInt() < 1
          || seconds.asInt() > MAX_PAUSE_SECONDS) {
        return Optional.empty();
      }
      return Optional.of(seconds.asInt());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static CompletableFuture<ResponseEntity<Map<String, Object>>> done(
      ResponseEntity<Map<String, Object>> r) {
    return CompletableFuture.completedFuture(r);
  }

  private static ResponseEntity<Map<String, Object>> accepted(String message) {
    return ResponseEntity.accepted()
        .contentType(MediaType.APPLICATION_JSON)
        .body(Map.of("message", message));
  }

  private static ResponseEntity<Map<String, Object>> error(
      HttpStatus status, int code, String message) {
    return InternalRelay.error(status, code, message);
  }
}
