package dev.tributary.server;

import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.Authorizer;
import dev.tributary.security.ResourceType;
import java.util.Locale;

/**
 * The services' authorisation checks (Kafka's AuthHelper): may this request's principal do this
 * operation on this resource? Every protocol adapter reaches the same rules through here, with a
 * {@link RequestContext}, never a protocol's request object. With security off it allows
 * everything.
 *
 * <p>A refusal is an {@link AuthorizationException} naming the principal, the operation and the
 * resource (TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED or
 * CLUSTER_AUTHORIZATION_FAILED); each is counted through {@code onDenied}.
 *
 * <p>Thread-safe: the {@link Authorizer} reads the current metadata image on each call.
 */
public final class AccessControl {
  /** Allows everything: a broker with security off, and tests. */
  public static final AccessControl ALLOW_ALL = new AccessControl(null, false, () -> {});

  private final Authorizer authorizer;
  private final boolean enabled;
  private final Runnable onDenied;

  /**
   * @param enabled {@code tributary.security.enabled}: when false every check passes
   * @param onDenied told of each refusal (the denial counter)
   */
  public AccessControl(Authorizer authorizer, boolean enabled, Runnable onDenied) {
    this.authorizer = authorizer;
    this.enabled = enabled;
    this.onDenied = onDenied;
  }

  public boolean enabled() {
    return enabled;
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

  public boolean allows(
      RequestContext context, AclOperation operation, ResourceType type, String name) {
    return allows(context.principal(), operation, type, name);
  }

  /** Throws {@link AuthorizationException} unless {@link #allows}. */
  public void require(
      RequestContext context, AclOperation operation, ResourceType type, String name) {
    if (!allows(context, operation, type, name)) {
      throw denied(context.principal(), operation, type, name);
    }
  }

  /** The refusal for {@code principal}, counted; for checks made elsewhere (a path rule). */
  public AuthorizationException denied(
      String principal, AclOperation operation, ResourceType type, String name) {
    onDenied.run();
    return new AuthorizationException(errorFor(type), message(principal, operation, type, name));
  }

  /** Kafka's authorisation error for a refused resource of {@code type}. */
  public static Errors errorFor(ResourceType type) {
    return switch (type) {
      case TOPIC -> Errors.TOPIC_AUTHORIZATION_FAILED;
      case GROUP -> Errors.GROUP_AUTHORIZATION_FAILED;
      case CLUSTER -> Errors.CLUSTER_AUTHORIZATION_FAILED;
    };
  }

  /** The sentence a refusal carries, the same from every protocol. */
  public static String message(
      String principal, AclOperation operation, ResourceType type, String name) {
    String what =
        type == ResourceType.CLUSTER
            ? "the cluster"
            : type.name().toLowerCase(Locale.ROOT) + " '" + name + "'";
    return principal
        + " is not authorized to "
        + operation.name()
        + " "
        + what
        + " (no ACL allows it; an admin can add one at /v3/clusters/{cluster_id}/acls)";
  }

  /** The resource name of the cluster, for {@link ResourceType#CLUSTER} checks. */
  public static String clusterName() {
    return AclBinding.CLUSTER_NAME;
  }
}
