package dev.tributary.auth;

import dev.tributary.server.RequestContext;
import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Supplier;

/**
 * Turns an HTTP request into the services' {@link RequestContext}: the principal {@link
 * CredentialsFilter} authenticated, the client's address, and whether another broker relayed it (it
 * carries the cluster secret, compared in constant time; a forwarding header alone proves nothing,
 * since any client can send one).
 */
public final class RequestContexts {
  private final Supplier<String> clusterSecret;

  public RequestContexts(Supplier<String> clusterSecret) {
    this.clusterSecret = clusterSecret;
  }

  public RequestContext of(HttpServletRequest request) {
    return context(
        request,
        InternalApi.secretMatches(
            clusterSecret.get(), request.getHeader(InternalApi.SECRET_HEADER)));
  }

  /**
   * The context of a request whose cluster secret the caller has already compared and found right
   * (the replica fetch filter, which refuses any other): from a broker, without comparing the
   * secret a second time.
   */
  public static RequestContext ofProvenBroker(HttpServletRequest request) {
    return context(request, true);
  }

  private static RequestContext context(HttpServletRequest request, boolean fromBroker) {
    return new RequestContext(RequestPrincipal.of(request), request.getRemoteAddr(), fromBroker);
  }
}
