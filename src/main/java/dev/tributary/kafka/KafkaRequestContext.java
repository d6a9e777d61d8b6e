package dev.tributary.kafka;

import dev.tributary.server.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What a handler knows of a Kafka request: its header (api, version, client id), the connection's
 * listener and the services' {@link RequestContext} (the authenticated principal, the client's
 * address). Requests on the Kafka listener come from clients, never relayed by a broker.
 */
record KafkaRequestContext(
    RequestHeader header, String connectionId, String listenerName, RequestContext request) {
  short apiVersion() {
    return header.apiVersion();
  }

  String clientId() {
    return header.clientId();
  }
}
