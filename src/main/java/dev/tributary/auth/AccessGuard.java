package dev.tributary.auth;

import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AccessControl;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The REST and dashboard face of the services' {@link AccessControl}: the same checks, given an
 * HTTP request instead of a {@link dev.tributary.server.RequestContext}. For what the path alone
 * does not decide (a topic named in a body, the topics a consumer subscribes to) and for lists that
 * must show only what the caller may see (Kafka lists only the topics a principal may describe).
 * With security off it allows everything. A refusal is the core's AuthorizationException (403).
 */
public final class AccessGuard {
  private final AccessControl access;

  AccessGuard(AccessControl access) {
    this.access = access;
  }

  public boolean enabled() {
    return access.enabled();
  }

  /** True if the request's principal may do {@code operation} on {@code type} {@code name}. */
  public boolean allows(
      HttpServletRequest request, AclOperation operation, ResourceType type, String name) {
    return access.allows(RequestPrincipal.of(request), operation, type, name);
  }

  /** True if {@code principal} may do {@code operation} on {@code type} {@code name}. */
  public boolean allows(String principal, AclOperation operation, ResourceType type, String name) {
    return access.allows(principal, operation, type, name);
  }

  /** Throws the core's AuthorizationException (403) unless {@link #allows}. */
  public void require(
      HttpServletRequest request, AclOperation operation, ResourceType type, String name) {
    if (!allows(request, operation, type, name)) {
      throw access.denied(RequestPrincipal.of(request), operation, type, name);
    }
  }
}
