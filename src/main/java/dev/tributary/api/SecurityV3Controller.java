package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeySecrets;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import dev.tributary.server.AdminService;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * ACLs (in the shape of REST Proxy v3's {@code /acls}) and API keys, for admins (the path rules in
 * {@code dev.tributary.auth.SecurityConfiguration} require ADMIN on the cluster). Both live in the
 * metadata log, so every broker enforces the same set. A new key's secret is made here, shown once
 * in the answer, and only its hash goes to the controller.
 */
@RestController
class SecurityV3Controller {
  private static final String ACLS = "/v3/clusters/{clusterId}/acls";
  private static final String API_KEYS = "/v3/clusters/{clusterId}/api-keys";
  private static final Set<String> ACL_FIELDS =
      Set.of(
          "resource_type",
          "resource_name",
          "pattern_type",
          "principal",
          "host",
          "operation",
          "permission");
  private final MetadataCache broker;
  private final AdminService admin;
  private final RequestContexts contexts;
  private final JsonMapper json;
  private final SecureRandom random = new SecureRandom();

  SecurityV3Controller(
      MetadataCache broker, AdminService admin, RequestContexts contexts, JsonMapper json) {
    this.broker = broker;
    this.admin = admin;
    this.contexts = contexts;
    this.json = json;
  }

  @GetMapping(ACLS)
  ResponseEntity<Map<String, Object>> listAcls(
      @PathVariable String clusterId, @RequestParam Map<String, String> filter) {
    requireCluster(clusterId);
    List<Map<String, Object>> data = new ArrayList<>();
    for (AclBinding acl : matching(filter)) {
      data.add(aclResource(acl));
    }
    return ok(list("KafkaAclList", "/acls", data));
  }

  /**
   * Creates one ACL: {@code {resource_type, resource_name, pattern_type, principal, operation}}.
   */
  @PostMapping(ACLS)
  CompletableFuture<ResponseEntity<Void>> createAcl(
      @PathVariable String clusterId,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    requireCluster(clusterId);
    JsonNode request = object(body);
    for (String field : request.propertyNames()) {
      if (!ACL_FIELDS.contains(field)) {
        throw RestException.badRequest(
            "unknown field \"" + field + "\"; an ACL has " + new java.util.TreeSet<>(ACL_FIELDS));
      }
    }
    checkHostAndPermission(text(request, "host", "*"), text(request, "permission", "ALLOW"));
    AclBinding acl =
        acl(
            text(request, "principal", null),
            text(request, "operation", null),
            text(request, "resource_type", null),
            text(request, "pattern_type", "LITERAL"),
            text(request, "resource_name", null));
    return admin
        .alterSecurity(contexts.of(http), SecurityChange.createAcls(List.of(acl)))
        .thenApply(done -> ResponseEntity.status(HttpStatus.CREATED).<Void>build());
  }

  /** Deletes every ACL the query matches (as REST Proxy v3); answers the deleted ones. */
  @DeleteMapping(ACLS)
  CompletableFuture<ResponseEntity<Map<String, Object>>> deleteAcls(
      @PathVariable String clusterId,
      @RequestParam Map<String, String> filter,
      HttpServletRequest http) {
    requireCluster(clusterId);
    if (!filter.containsKey("resource_type")) {
      throw RestException.badParameter(
          "resource_type is required to delete ACLs (TOPIC, GROUP, CLUSTER or ANY)");
    }
    List<AclBinding> deleted = matching(filter);
    List<Map<String, Object>> data = new ArrayList<>();
    for (AclBinding acl : deleted) {
      data.add(aclResource(acl));
    }
    if (deleted.isEmpty()) {
      return CompletableFuture.completedFuture(ok(Map.of("data", data)));
    }
    return admin
        .alterSecurity(contexts.of(http), SecurityChange.deleteAcls(deleted))
        .thenApply(done -> ok(Map.of("data", data)));
  }

  /** Makes an API key: {@code {"principal": "User:alice", "description": "..."}}. */
  @PostMapping(API_KEYS)
  CompletableFuture<ResponseEntity<Map<String, Object>>> createApiKey(
      @PathVariable String clusterId,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    requireCluster(clusterId);
    JsonNode request = object(body);
    for (String field : request.propertyNames()) {
      if (!field.equals("principal") && !field.equals("description")) {
        throw RestException.badRequest(
            "unknown field \"" + field + "\"; an API key has principal and description");
      }
    }
    String secret = ApiKeySecrets.newSecret(random);
    ApiKey key;
    try {
      key =
          new ApiKey(
              ApiKeySecrets.newKeyId(random),
              text(request, "principal", null),
              ApiKeySecrets.sha256(secret),
              text(request, "description", ""),
              System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest(e.getMessage());
    }
    Map<String, Object> answer = keyResource(key);
    answer.put("secret", secret);
    answer.put("token", key.keyId() + "." + secret);
    return admin
        .alterSecurity(contexts.of(http), SecurityChange.createApiKey(key))
        .thenApply(
            done ->
                ResponseEntity.status(HttpStatus.CREATED)
                    .location(
                        java.net.URI.create(
                            (String) ((Map<?, ?>) answer.get("metadata")).get("self")))
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(answer));
  }

  @GetMapping(API_KEYS)
  ResponseEntity<Map<String, Object>> listApiKeys(@PathVariable String clusterId) {
    requireCluster(clusterId);
    List<Map<String, Object>> data = new ArrayList<>();
    for (ApiKey key : broker.metadata().security().apiKeys().values()) {
      data.add(keyResource(key));
    }
    return ok(list("TributaryApiKeyList", "/api-keys", data));
  }

  @DeleteMapping(API_KEYS + "/{keyId}")
  CompletableFuture<ResponseEntity<Void>> deleteApiKey(
      @PathVariable String clusterId, @PathVariable String keyId, HttpServletRequest http) {
    requireCluster(clusterId);
    if (!broker.metadata().security().apiKeys().containsKey(keyId)) {
      throw RestException.notFound(40410, "API key '" + keyId + "' does not exist");
    }
    return admin
        .alterSecurity(contexts.of(http), SecurityChange.deleteApiKey(keyId))
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  private List<AclBinding> matching(Map<String, String> filter) {
    for (String name : filter.keySet()) {
      if (!ACL_FIELDS.contains(name)) {
        throw RestException.badParameter(
            "unknown ACL filter '" + name + "'; filter by " + new java.util.TreeSet<>(ACL_FIELDS));
      }
    }
    checkHostAndPermission(
        filter.getOrDefault("host", "*"), filter.getOrDefault("permission", "ANY"));
    String principal = filter.get("principal");
    String name = filter.get("resource_name");
    AclOperation operation = anyOr(filter.get("operation"), SecurityV3Controller::operation);
    ResourceType type =
        anyOr(filter.get("resource_type"), v -> enumValue(ResourceType.class, v, "resource_type"));
    PatternType pattern =
        anyOr(filter.get("pattern_type"), v -> enumValue(PatternType.class, v, "pattern_type"));
    List<AclBinding> out = new ArrayList<>();
    for (AclBinding acl : broker.metadata().security().acls()) {
      if ((principal == null || principal.equals(acl.principal()))
          && (name == null || name.equals(acl.resourceName()))
          && (operation == null || operation == acl.operation())
          && (type == null || type == acl.resourceType())
          && (pattern == null || pattern == acl.patternType())) {
        out.add(acl);
      }
    }
    return out;
  }

  private static <T> T anyOr(String value, java.util.function.Function<String, T> parse) {
    return value == null || value.equalsIgnoreCase("ANY") ? null : parse.apply(value);
  }

  private static AclBinding acl(
      String principal, String operation, String type, String pattern, String name) {
    if (principal == null || operation == null || type == null || name == null) {
      throw RestException.badRequest(
          "an ACL needs principal, operation, resource_type and resource_name (pattern_type"
              + " LITERAL or PREFIXED, LITERAL by default)");
    }
    try {
      return new AclBinding(
          principal,
          operation(operation),
          enumValue(ResourceType.class, type, "resource_type"),
          enumValue(PatternType.class, pattern, "pattern_type"),
          name);
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest(e.getMessage());
    }
  }

  /** Tributary's roles; Kafka's ALL is taken as ADMIN. */
  private static AclOperation operation(String value) {
    if (value.equalsIgnoreCase("ALL")) {
      return AclOperation.ADMIN;
    }
    return enumValue(AclOperation.class, value, "operation");
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String value, String field) {
    try {
      return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw RestException.badRequest(
          field
              + " must be one of "
              + java.util.Arrays.toString(type.getEnumConstants())
              + ", got '"
              + value
              + "'");
    }
  }

  private static void checkHostAndPermission(String host, String permission) {
    if (!host.equals("*")) {
      throw RestException.badRequest("host must be \"*\": Tributary's ACLs apply from any host");
    }
    if (!permission.equalsIgnoreCase("ALLOW") && !permission.equalsIgnoreCase("ANY")) {
      throw RestException.badRequest(
          "permission must be ALLOW: Tributary's ACLs only allow (no DENY ACLs)");
    }
  }

  private Map<String, Object> aclResource(AclBinding acl) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("kind", "KafkaAcl");
    out.put("metadata", Map.of("self", url(clusterPath() + "/acls")));
    out.put("cluster_id", broker.clusterId());
    out.put("resource_type", acl.resourceType().name());
    out.put("resource_name", acl.resourceName());
    out.put("pattern_type", acl.patternType().name());
    out.put("principal", acl.principal());
    out.put("host", "*");
    out.put("operation", acl.operation().name());
    out.put("permission", "ALLOW");
    return out;
  }

  private Map<String, Object> keyResource(ApiKey key) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("kind", "TributaryApiKey");
    out.put("metadata", Map.of("self", url(clusterPath() + "/api-keys/" + key.keyId())));
    out.put("key_id", key.keyId());
    out.put("principal", key.principal());
    out.put("description", key.description());
    out.put("created_at", Instant.ofEpochMilli(key.createdMs()).toString());
    return out;
  }

  private Map<String, Object> list(String kind, String suffix, List<Map<String, Object>> data) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("kind", kind);
    out.put("metadata", Map.of("self", url(clusterPath() + suffix)));
    out.put("data", data);
    return out;
  }

  private static String text(JsonNode request, String field, String fallback) {
    JsonNode node = request.get(field);
    if (node == null || node.isNull()) {
      return fallback;
    }
    if (!node.isString()) {
      throw RestException.badRequest("\"" + field + "\" must be a string");
    }
    return node.stringValue();
  }

  private JsonNode object(byte[] body) {
    return ApiRequests.object(json, body);
  }

  private void requireCluster(String clusterId) {
    ApiRequests.requireCluster(broker, clusterId);
  }

  private String clusterPath() {
    return "/v3/clusters/" + broker.clusterId();
  }

  private static String url(String path) {
    return ServletUriComponentsBuilder.fromCurrentContextPath().path(path).toUriString();
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
