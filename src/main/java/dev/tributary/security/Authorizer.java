package dev.tributary.security;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Decides who a request is and what it may do, from the API keys and ACLs of the current metadata
 * image (plus the keys given in configuration, which bootstrap a cluster that has none yet).
 * Kafka's rules: a super user may do everything; anyone else only what an ACL allows (no ACL, no
 * access: Kafka's {@code allow.everyone.if.no.acl.found=false}).
 *
 * <p>Thread-safe: it holds no state of its own; each call reads the image once.
 */
public final class Authorizer {
  private final Supplier<SecurityImage> image;
  private final Map<String, ApiKey> bootstrapKeys;
  private final Set<String> superUsers;

  /**
   * @param image the current keys and ACLs (the metadata image's)
   * @param bootstrapKeys keys from configuration, by id; they win over a metadata key of the same
   *     id
   * @param superUsers principals allowed everything, as Kafka's {@code super.users}
   */
  public Authorizer(
      Supplier<SecurityImage> image, Map<String, ApiKey> bootstrapKeys, Set<String> superUsers) {
    this.image = image;
    this.bootstrapKeys = Map.copyOf(bootstrapKeys);
    this.superUsers = Set.copyOf(superUsers);
  }

  /** The key {@code keyId} if it exists and {@code secret} is its secret. */
  public Optional<ApiKey> authenticate(String keyId, String secret) {
    ApiKey key = bootstrapKeys.get(keyId);
    if (key == null) {
      key = image.get().apiKeys().get(keyId);
    }
    if (key == null) {
      // Hash anyway, so an unknown id takes as long as a wrong secret.
      ApiKeySecrets.sha256(secret == null ? "" : secret);
      return Optional.empty();
    }
    return key.matches(secret) ? Optional.of(key) : Optional.empty();
  }

  /** The key {@code keyId}, if it still exists (a deleted key's sessions end). */
  public Optional<ApiKey> key(String keyId) {
    ApiKey key = bootstrapKeys.get(keyId);
    if (key == null) {
      key = image.get().apiKeys().get(keyId);
    }
    return Optional.ofNullable(key);
  }

  /** The principal of key {@code keyId}, if it still exists. */
  public Optional<String> principalOfKey(String keyId) {
    return key(keyId).map(ApiKey::principal);
  }

  /** True if {@code principal} may do {@code operation} on the {@code type} named {@code name}. */
  public boolean authorize(
      String principal, AclOperation operation, ResourceType type, String name) {
    if (superUsers.contains(principal)) {
      return true;
    }
    for (AclBinding acl : image.get().acls()) {
      if (acl.allows(principal, operation, type, name)) {
        return true;
      }
    }
    return false;
  }

  /** True if {@code principal} may do {@code operation} on the cluster. */
  public boolean authorizeCluster(String principal, AclOperation operation) {
    return authorize(principal, operation, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
  }

  public boolean isSuperUser(String principal) {
    return superUsers.contains(principal);
  }
}
