package dev.tributary.api;

import dev.tributary.server.BrokerLoadService;
import dev.tributary.transport.http.BrokerLoadWire;
import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * This broker's load for another broker's balancer ({@value InternalApi#BROKER_LOAD}): its
 * replicas' log sizes and the bytes-in of the partitions it leads ({@link BrokerLoadService}), as
 * JSON ({@link BrokerLoadWire}). {@link InternalAuthFilter} has checked the cluster secret. Takes
 * no parameters: any query is refused (400, the API's error body).
 */
@RestController
class InternalBrokerLoadEndpoint {
  private final BrokerLoadService loads;

  InternalBrokerLoadEndpoint(BrokerLoadService loads) {
    this.loads = loads;
  }

  @GetMapping(value = InternalApi.BROKER_LOAD, produces = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<BrokerLoadWire.Answer> load(HttpServletRequest request) {
    if (!request.getParameterMap().isEmpty()) {
      throw RestException.badRequest(
          InternalApi.BROKER_LOAD
              + " takes no parameters; got "
              + request.getParameterMap().keySet());
    }
    return ResponseEntity.ok(BrokerLoadWire.answer(loads.load()));
  }
}
