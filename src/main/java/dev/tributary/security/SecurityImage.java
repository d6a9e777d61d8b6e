package dev.tributary.security;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The API keys and ACLs as of a point in the metadata log: part of the replayed metadata image, so
 * every broker authenticates and authorises against the same set. Immutable; each change makes a
 * new one.
 *
 * <p>Invariants: key ids are unique; an ACL is held at most once (creating it again is a no-op, as
 * in Kafka).
 */
public record SecurityImage(Map<String, ApiKey> apiKeys, Set<AclBinding> acls) {
  public static final SecurityImage EMPTY = new SecurityImage(Map.of(), Set.of());

  public SecurityImage {
    apiKeys = Collections.unmodifiableMap(new TreeMap<>(apiKeys));
    acls = Collections.unmodifiableSet(new LinkedHashSet<>(acls));
  }

  public SecurityImage withApiKey(ApiKey key) {
    TreeMap<String, ApiKey> next = new TreeMap<>(apiKeys);
    next.put(key.keyId(), key);
    return new SecurityImage(next, acls);
  }

  public SecurityImage withoutApiKey(String keyId) {
    TreeMap<String, ApiKey> next = new TreeMap<>(apiKeys);
    next.remove(keyId);
    return new SecurityImage(next, acls);
  }

  public SecurityImage withAcl(AclBinding acl) {
    LinkedHashSet<AclBinding> next = new LinkedHashSet<>(acls);
    next.add(acl);
    return new SecurityImage(apiKeys, next);
  }

  public SecurityImage withoutAcl(AclBinding acl) {
    LinkedHashSet<AclBinding> next = new LinkedHashSet<>(acls);
    next.remove(acl);
    return new SecurityImage(apiKeys, next);
  }
}
