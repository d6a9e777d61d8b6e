package dev.tributary.server;

import dev.tributary.security.Principals;

/**
 * Who sent a request, as every protocol adapter tells the services (Kafka's RequestContext): the
 * authenticated principal, the client's address, and whether it came from another broker of the
 * cluster (proved by the cluster secret or the inter-broker listener; such a request was counted
 * against its client's quota where the client sent it, and names that client's principal).
 *
 * @param principal e.g. {@code User:alice}; {@link Principals#ANONYMOUS} when nobody authenticated
 * @param clientAddress the client's IP address as the listener saw it
 * @param fromBroker relayed by another broker on a client's behalf
 */
public record RequestContext(String principal, String clientAddress, boolean fromBroker) {
  /** The prefix of an unauthenticated client's quota identity; its address follows. */
  public static final String ANONYMOUS_PREFIX = "Anonymous:";

  /** The broker itself (its group coordinator, its dashboard actions): trusted, never throttled. */
  public static final RequestContext INTERNAL =
      new RequestContext(Principals.BROKER, "127.0.0.1", true);

  public RequestContext {
    principal = principal == null || principal.isBlank() ? Principals.ANONYMOUS : principal;
  }

  /**
   * The identity that per-client limits and quotas count against: the principal when one
   * authenticated; otherwise {@code Anonymous:<address>}, so one unauthenticated host cannot use up
   * a limit for every other.
   */
  public String clientIdentity() {
    return Principals.ANONYMOUS.equals(principal) ? ANONYMOUS_PREFIX + clientAddress : principal;
  }
}
