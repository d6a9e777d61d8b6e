package dev.tributary.server;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The client connections open on this broker's socket listeners (today the Kafka listener; the HTTP
 * API's connections are not tracked here), as the dashboard shows them. Protocol-neutral, so that
 * the views never see the listener's own types; the listener keeps the registry and answers with a
 * copy taken at the time of the call.
 */
public interface ClientConnections {
  /** A broker without such a listener ({@code tributary.kafka.enabled=false}). */
  ClientConnections NONE = List::of;

  /**
   * Every open connection, oldest first (then by connection id). A copy: no field changes after it
   * is returned. Safe from any thread; not a consistent cut across connections (each row is read
   * while its connection may be sending requests).
   */
  List<ClientConnection> connections();

  /**
   * One open connection.
   *
   * @param connectionId the listener's id for it, unique while it is open (Kafka's {@code
   *     local:port-remote:port-index})
   * @param listener the listener's name ({@code KAFKA})
   * @param securityProtocol what the connection speaks under the protocol ({@code PLAINTEXT},
   *     {@code SASL_SSL}, ...)
   * @param clientAddress the client's {@code ip:port} as the broker sees it
   * @param clientId the client id of its last request (Kafka's {@code client.id}); null before its
   *     first request
   * @param softwareName the client library's name, as it said in ApiVersions v3+ (KIP-511), e.g.
   *     {@code apache-kafka-java} or {@code librdkafka}; null when it did not say
   * @param softwareVersion the client library's version; null when it did not say
   * @param principal who the connection authenticated as ({@code User:ANONYMOUS} without
   *     authentication); null before its first request
   * @param connectedSinceMs the broker's clock when the connection was accepted
   * @param lastRequestMs the broker's clock at its last request; -1 before the first
   * @param requestsByApi requests received so far by API name ({@code Produce}, {@code Fetch},
   *     ...), sorted by name, only APIs with at least one
   */
  record ClientConnection(
      String connectionId,
      String listener,
      String securityProtocol,
      String clientAddress,
      String clientId,
      String softwareName,
      String softwareVersion,
      String principal,
      long connectedSinceMs,
      long lastRequestMs,
      Map<String, Long> requestsByApi) {
    public ClientConnection {
      requestsByApi = Collections.unmodifiableMap(new TreeMap<>(requestsByApi));
    }

    /** Every request received so far. */
    public long requestCount() {
      long total = 0;
      for (long count : requestsByApi.values()) {
        total += count;
      }
      return total;
    }
  }
}
