package dev.tributary.auth;

import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.ResourceType;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Access checks for the controllers, where the path alone does not name the resource (a topic named
 * in a body, the topics a consumer subscribes to) or a list must show only what the caller may see
 * (Kafka lists only the topics a principal may describe). With security off it allows everything.
 */
public final class AccessGuard {
  private final Authorizer authorizer;
  private final boolean enabled;
  private final Runnable onDenied;

  AccessGuard(Authorizer authorizer, boolean enabled, Runnable onDenied) {
    this.authorizer = authorizer;
    this.enabled = enabled;
    this.onDenied = onDenied;
  }

  public boolean enabled() {
    return enabled;
  }

  /** True if the request's principal may do {@code operation} on {@code type} {@code name}. */
  public boolean allows(
      HttpServletRequest request, AclOperation operation, ResourceType type, String name) {
    return allows(RequestPrincipal.of(request), operation, type, name);
  }

  /** True if {@code principal} may do {@code operation} on {@code type} {@code name}. */
  public boolean allows(String principal, AclOperation operation, ResourceType type, String name) {
    if (!enabled) {
      return true;
    }
    return type == ResourceType.CLUSTER
        ? authorizer.authorizeCluster(principal, operation)
        : authorizer.authorize(principal, operation, type, name);
  }

  /** Throws {@link AccessDeniedException} (403) unless {@link #allows}. */
  public void require(
      HttpServletRequest request, AclOperation operation, ResourceType type, String name) {
    if (!allows(request, operation, type, name)) {
      onDenied.run();
      SecurityErrors.Denial denial =
          AccessRules.denial(RequestPrincipal.of(request), operation, type, name);
      throw new AccessDeniedException(denial.code(), denial.message());
    }
  }

  /** A refusal from a controller's check: 403 with a code per resource type. */
  public static final class AccessDeniedException extends RuntimeException {
    private final int errorCode;

    AccessDeniedException(int errorCode, String message) {
      super(message);
      this.errorCode = errorCode;
    }

    public int errorCode() {
      return errorCode;
    }
  }
}
