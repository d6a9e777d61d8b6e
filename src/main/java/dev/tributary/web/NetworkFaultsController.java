package dev.tributary.web;

import dev.tributary.auth.ClusterOrigins;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.FaultReports;
import dev.tributary.server.MetadataCache;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * The dashboard's network buttons on a cluster of separate hosts: {@code POST
 * /dashboard/actions/brokers/{id}/isolate} with {@code {"from": "everyone" | "brokers" |
 * "controller"}} cuts a broker's links (with everyone, clients included; with the other brokers
 * only, so that clients still reach it; or with the active controller only), and {@code POST
 * /dashboard/actions/network/heal} restores every link. Any broker takes them and runs the launcher
 * itself: the launcher made the network and acts on every host. Off (403 40301) without {@code
 * tributary.dashboard.fault-actions}; 409 40912 on a cluster that is not on separate hosts.
 */
@RestController
class NetworkFaultsController {
  private final MetadataCache broker;
  private final BrokerConfig config;
  private final DashboardProperties properties;
  private final NetworkFaults network;
  private final JsonMapper json;
  private final ClusterOrigins origins;
  private final FaultReports faults;

  NetworkFaultsController(
      MetadataCache broker,
      BrokerConfig config,
      DashboardProperties properties,
      NetworkFaults network,
      JsonMapper json,
      ClusterOrigins origins,
      FaultReports faults) {
    this.broker = broker;
    this.config = config;
    this.properties = properties;
    this.network = network;
    this.json = json;
    this.origins = origins;
    this.faults = faults;
  }

  @PostMapping("/dashboard/actions/brokers/{brokerId}/isolate")
  ResponseEntity<Map<String, Object>> isolate(
      @PathVariable int brokerId,
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host) {
    Optional<ResponseEntity<Map<String, Object>>> refusal = refuse(origin, host);
    if (refusal.isPresent()) {
      return refusal.get();
    }
    Optional<String> from = from(body);
    if (from.isEmpty()) {
      return error(
          HttpStatus.BAD_REQUEST,
          40002,
          "isolate needs a body {\"from\": \"everyone\" | \"brokers\" | \"controller\"}");
    }
    if (broker.metadata().broker(brokerId).isEmpty()) {
      return error(
          HttpStatus.NOT_FOUND, 40406, "Broker " + brokerId + " is not registered in this cluster");
    }
    List<Integer> peers;
    switch (from.get()) {
      case "everyone" -> {
        if (brokerId == config.brokerId()) {
          // This broker's own answer would be dropped on its way out: answer, then cut.
          faults.dashboardAction(brokerId, cutText(brokerId, "everyone", List.of()));
          network.isolateSoon(brokerId);
          return accepted(
              "Broker "
                  + brokerId
                  + " (this page's broker) is being cut off from everyone; the page moves to"
                  + " another broker");
        }
        peers = List.of();
      }
      case "controller" -> {
        int controller = broker.activeControllerId();
        if (controller < 0 || controller == brokerId) {
          return error(
              HttpStatus.CONFLICT,
              40913,
              controller < 0
                  ? "There is no active controller to cut broker " + brokerId + " off from"
                  : "Broker "
                      + brokerId
                      + " is the active controller; cut it off from everyone or from the other"
                      + " brokers instead");
        }
        peers = List.of(controller);
      }
      default -> {
        peers = broker.metadata().brokers().keySet().stream().filter(id -> id != brokerId).toList();
        if (peers.isEmpty()) {
          return error(
              HttpStatus.CONFLICT, 40913, "Broker " + brokerId + " has no other broker to lose");
        }
      }
    }
    // On the timeline first: once cut, the controller may not hear of it. Should the cut then
    // fail, the timeline says so too, rather than keep a cut that never happened.
    faults.dashboardAction(brokerId, cutText(brokerId, from.get(), peers));
    try {
      return accepted(network.isolate(brokerId, peers));
    } catch (NetworkFaults.LauncherFailed e) {
      faults.dashboardAction(
          brokerId, "cutting broker " + brokerId + " off failed; its links are as they were");
      return error(
          HttpStatus.INTERNAL_SERVER_ERROR,
          50001,
          "Could not cut broker " + brokerId + " off: " + e.getMessage());
    }
  }

  @PostMapping("/dashboard/actions/network/heal")
  ResponseEntity<Map<String, Object>> heal(
      @RequestHeader(name = "Origin", required = false) String origin,
      @RequestHeader(name = "Host", required = false) String host) {
    Optional<ResponseEntity<Map<String, Object>>> refusal = refuse(origin, host);
    if (refusal.isPresent()) {
      return refusal.get();
    }
    try {
      String healed = network.heal();
      faults.dashboardAction(-1, "every link restored");
      return accepted(healed);
    } catch (NetworkFaults.LauncherFailed e) {
      return error(
          HttpStatus.INTERNAL_SERVER_ERROR, 50001, "Could not heal the links: " + e.getMessage());
    }
  }

  /** "broker 3 cut off from ..." for the timeline, naming the peers it loses. */
  private static String cutText(int brokerId, String from, List<Integer> peers) {
    String cut = "broker " + brokerId + " cut off from ";
    return switch (from) {
      case "everyone" -> cut + "every broker and client";
      case "controller" -> cut + "the controller (broker " + peers.get(0) + ")";
      default -> cut + "the other brokers " + peers + "; clients still reach it";
    };
  }

  private Optional<ResponseEntity<Map<String, Object>>> refuse(String origin, String host) {
    if (!origins.isAllowed(origin, host)) {
      return Optional.of(FaultActionRefusals.crossSite(origin));
    }
    if (!properties.faultActions()) {
      return Optional.of(FaultActionRefusals.off(config.brokerId()));
    }
    if (!network.available()) {
      return Optional.of(
          error(
              HttpStatus.CONFLICT,
              40912,
              "The brokers of this cluster are not separate hosts; start it with"
                  + " ./tributary start --hosts to cut and heal links"));
    }
    return Optional.empty();
  }

  private Optional<String> from(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode from = json.readTree(body).path("from");
      if (!from.isString()) {
        return Optional.empty();
      }
      return switch (from.asString()) {
        case "everyone", "brokers", "controller" -> Optional.of(from.asString());
        default -> Optional.empty();
      };
    } catch (RuntimeException e) {
      return Optional.empty();
    }
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
