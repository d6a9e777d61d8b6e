package dev.tributary.security;

import java.util.Objects;

/**
 * One grant, in the manner of a Kafka ACL: {@code principal} may do {@code operation} on the
 * resources of {@code resourceType} that {@code resourceName} matches under {@code patternType}.
 * Tributary's ACLs only allow (no DENY) and match any host.
 *
 * <p>Invariants (checked here, so the metadata log never holds a malformed grant): principal is
 * {@code Type:name} with both parts non-empty; resourceName is 1 to {@value #MAX_NAME_LENGTH}
 * characters and, for the cluster, {@link #CLUSTER_NAME} with a literal pattern; a prefixed pattern
 * is not the wildcard.
 */
public record AclBinding(
    String principal,
    AclOperation operation,
    ResourceType resourceType,
    PatternType patternType,
    String resourceName) {
  /** The literal name that matches every resource of a type. */
  public static final String WILDCARD = "*";

  /** Longer than any topic (249) or group id this API accepts. */
  public static final int MAX_NAME_LENGTH = 255;

  /** The cluster's resource name, as Kafka's {@code kafka-cluster}. */
  public static final String CLUSTER_NAME = "kafka-cluster";

  public AclBinding {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(resourceType, "resource_type");
    Objects.requireNonNull(patternType, "pattern_type");
    Principals.requireValid(principal);
    if (resourceName == null || resourceName.isEmpty() || resourceName.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "resource_name must be 1 to " + MAX_NAME_LENGTH + " characters");
    }
    if (resourceType == ResourceType.CLUSTER
        && !(patternType == PatternType.LITERAL && resourceName.equals(CLUSTER_NAME))) {
      throw new IllegalArgumentException(
          "a CLUSTER ACL names the resource \"" + CLUSTER_NAME + "\" with pattern_type LITERAL");
    }
    if (patternType == PatternType.PREFIXED && resourceName.equals(WILDCARD)) {
      throw new IllegalArgumentException(
          "a PREFIXED pattern cannot be \"*\"; use LITERAL \"*\" for every resource");
    }
  }

  /** True if this grant lets {@code who} do {@code requested} on {@code type} {@code name}. */
  public boolean allows(String who, AclOperation requested, ResourceType type, String name) {
    return principal.equals(who)
        && resourceType == type
        && operation.implies(requested)
        && patternType.matches(resourceName, name);
  }
}
