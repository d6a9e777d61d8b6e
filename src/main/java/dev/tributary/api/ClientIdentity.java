package dev.tributary.api;

import dev.tributary.auth.RequestPrincipal;
import dev.tributary.server.RequestContext;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Who a request comes from, for per-client limits (in-flight requests, consumer instances, produce
 * quotas): the authenticated principal ({@link RequestPrincipal}, e.g. {@code User:alice}) when
 * there is one. Without it (authentication off, or before authentication ran) every client is
 * anonymous and is told apart by its remote address, {@code Anonymous:127.0.0.1}, so that one host
 * cannot use up a limit for every other.
 */
public final class ClientIdentity {
  private ClientIdentity() {}

  /** The principal's name, or {@code "Anonymous:<remote address>"} when none is authenticated. */
  public static String of(HttpServletRequest request) {
    return new RequestContext(RequestPrincipal.of(request), request.getRemoteAddr(), false)
        .clientIdentity();
  }
}
