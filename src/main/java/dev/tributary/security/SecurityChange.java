package dev.tributary.security;

import java.util.List;

/**
 * API keys and ACLs to create or delete, in one metadata commit. An admin request becomes one of
 * these on the broker that took it (which also made the key's secret, so the secret never travels
 * to the controller) and is applied by the controller.
 */
public record SecurityChange(
    List<ApiKey> createApiKeys,
    List<String> deleteApiKeys,
    List<AclBinding> createAcls,
    List<AclBinding> deleteAcls) {

  public SecurityChange {
    createApiKeys = List.copyOf(createApiKeys);
    deleteApiKeys = List.copyOf(deleteApiKeys);
    createAcls = List.copyOf(createAcls);
    deleteAcls = List.copyOf(deleteAcls);
  }

  public static SecurityChange createApiKey(ApiKey key) {
    return new SecurityChange(List.of(key), List.of(), List.of(), List.of());
  }

  public static SecurityChange deleteApiKey(String keyId) {
    return new SecurityChange(List.of(), List.of(keyId), List.of(), List.of());
  }

  public static SecurityChange createAcls(List<AclBinding> acls) {
    return new SecurityChange(List.of(), List.of(), acls, List.of());
  }

  public static SecurityChange deleteAcls(List<AclBinding> acls) {
    return new SecurityChange(List.of(), List.of(), List.of(), acls);
  }
}
