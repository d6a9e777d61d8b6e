package dev.tributary.api;

import dev.tributary.server.MetadataCache;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the controllers check first: the v3 cluster id in the path, and a JSON object body (v3 admin
 * and the consumer API alike).
 */
final class ApiRequests {
  private ApiRequests() {}

  /** 404 40404 unless {@code clusterId} is this cluster's. */
  static void requireCluster(MetadataCache broker, String clusterId) {
    if (!broker.clusterId().equals(clusterId)) {
      throw RestException.notFound(
          40404, "Cluster '" + clusterId + "' not found; this is cluster " + broker.clusterId());
    }
  }

  /**
   * The body as a JSON object: 400 40002 if absent or not an object, 40001 if malformed, 40004 past
   * the JSON limits.
   */
  static JsonNode object(JsonMapper json, byte[] body) {
    if (body == null || body.length == 0) {
      throw RestException.badRequest("The request needs a JSON body");
    }
    JsonNode node;
    try {
      node = json.readTree(body);
    } catch (JacksonException e) {
      throw JsonBodyErrors.of(e);
    }
    if (node == null || !node.isObject()) {
      throw RestException.badRequest("The body must be a JSON object");
    }
    return node;
  }
}
