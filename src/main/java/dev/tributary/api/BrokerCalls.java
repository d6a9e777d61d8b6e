package dev.tributary.api;

import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Whether a request comes from another broker of the cluster: it carries the cluster secret
 * (compared in constant time). A forwarding header alone proves nothing, since any client can send
 * one; the per-client limits and quotas exempt only what this says came from a broker (the client
 * was counted on the broker it reached first).
 */
final class BrokerCalls {
  private BrokerCalls() {}

  static boolean fromBroker(HttpServletRequest request, String clusterSecret) {
    String presented = request.getHeader(InternalApi.SECRET_HEADER);
    return presented != null
        && clusterSecret != null
        && !clusterSecret.isEmpty()
        && MessageDigest.isEqual(
            clusterSecret.getBytes(StandardCharsets.UTF_8),
            presented.getBytes(StandardCharsets.UTF_8));
  }
}
