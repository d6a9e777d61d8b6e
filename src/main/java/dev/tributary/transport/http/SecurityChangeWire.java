package dev.tributary.transport.http;

import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The internal API's JSON for a {@link SecurityChange} (broker to controller). Carries key hashes,
 * never secrets.
 */
public final class SecurityChangeWire {
  private SecurityChangeWire() {}

  public static Map<String, Object> toJson(SecurityChange change) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(
        "create_api_keys", change.createApiKeys().stream().map(SecurityChangeWire::key).toList());
    body.put("delete_api_keys", change.deleteApiKeys());
    body.put("create_acls", change.createAcls().stream().map(SecurityChangeWire::acl).toList());
    body.put("delete_acls", change.deleteAcls().stream().map(SecurityChangeWire::acl).toList());
    return body;
  }

  /** Throws IllegalArgumentException on a malformed body. */
  public static SecurityChange fromJson(JsonNode body) {
    List<ApiKey> createKeys = new ArrayList<>();
    body.path("create_api_keys")
        .forEach(
            k ->
                createKeys.add(
                    new ApiKey(
                        k.path("key_id").asString(),
                        k.path("principal").asString(),
                        k.path("secret_sha256").asString(),
                        k.path("description").asString(""),
                        k.path("created_ms").asLong())));
    List<String> deleteKeys = new ArrayList<>();
    body.path("delete_api_keys").forEach(k -> deleteKeys.add(k.asString()));
    List<AclBinding> createAcls = new ArrayList<>();
    body.path("create_acls").forEach(a -> createAcls.add(acl(a)));
    List<AclBinding> deleteAcls = new ArrayList<>();
    body.path("delete_acls").forEach(a -> deleteAcls.add(acl(a)));
    return new SecurityChange(createKeys, deleteKeys, createAcls, deleteAcls);
  }

  private static Map<String, Object> key(ApiKey key) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("key_id", key.keyId());
    out.put("principal", key.principal());
    out.put("secret_sha256", key.secretSha256());
    out.put("description", key.description());
    out.put("created_ms", key.createdMs());
    return out;
  }

  private static Map<String, Object> acl(AclBinding acl) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("principal", acl.principal());
    out.put("operation", acl.operation().name());
    out.put("resource_type", acl.resourceType().name());
    out.put("pattern_type", acl.patternType().name());
    out.put("resource_name", acl.resourceName());
    return out;
  }

  private static AclBinding acl(JsonNode a) {
    return new AclBinding(
        a.path("principal").asString(),
        AclOperation.valueOf(a.path("operation").asString()),
        ResourceType.valueOf(a.path("resource_type").asString()),
        PatternType.valueOf(a.path("pattern_type").asString()),
        a.path("resource_name").asString());
  }
}
