package dev.tributary.api;

import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Whether a request comes from another broker of the cluster: it carries the cluster secret
 * (compared in constant time). A forwarding header alone proves nothing, since any client can send
 * one; the per-client limits and quotas exempt only what this says came from a broker (the client
 * was counted on the broker it reached first).
 */
final class BrokerCalls {
  private BrokerCalls() {}

  static boolean fromBroker(HttpServletRequest request, String clusterSecret) {
    return InternalApi.secretMatches(clusterSecret, request.getHeader(InternalApi.SECRET_HEADER));
  }
}
