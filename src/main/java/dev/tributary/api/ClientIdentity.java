package dev.tributary.api;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Who a request comes from, for per-client limits (in-flight requests, consumer instances, produce
 * quotas). The contract with authentication: the authenticated principal's name (Kafka's form,
 * {@code "User:alice"}) is the request attribute {@value #PRINCIPAL_ATTRIBUTE}, set by a filter
 * that runs before the limit filters. Without it (authentication off) every client is anonymous and
 * is told apart by its remote address, {@code "Anonymous:127.0.0.1"}, so that one host cannot use
 * up a limit for every other.
 */
public final class ClientIdentity {
  /** The request attribute that carries the authenticated principal's name. */
  public static final String PRINCIPAL_ATTRIBUTE = "dev.tributary.principal";

  /** The prefix of an unauthenticated client's name; its remote address follows. */
  public static final String ANONYMOUS_PREFIX = "Anonymous:";

  private ClientIdentity() {}

  /** The principal's name, or {@code "Anonymous:<remote address>"} when none is authenticated. */
  public static String of(HttpServletRequest request) {
    Object principal = request.getAttribute(PRINCIPAL_ATTRIBUTE);
    if (principal instanceof String name && !name.isBlank()) {
      return name;
    }
    return ANONYMOUS_PREFIX + request.getRemoteAddr();
  }
}
