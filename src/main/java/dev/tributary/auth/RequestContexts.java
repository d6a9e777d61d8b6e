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
    return new RequestContext(
        RequestPrincipal.of(request),
        request.getRemoteAddr(),
        InternalApi.secretMatches(
            clusterSecret.get(), request.getHeader(InternalApi.SECRET_HEADER)));
  }
}
