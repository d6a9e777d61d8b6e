package dev.tributary.kafka.network;

import dev.tributary.common.Time;
import dev.tributary.server.ClientConnections;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The Kafka listener's open connections and what each client said of itself: its client id (from
 * every request header), its software name and version (ApiVersions v3+, KIP-511), who it
 * authenticated as, when it connected and last sent a request, and how many requests it sent per
 * API. The dashboard reads it through {@link ClientConnections}.
 *
 * <p>Lifecycle: a connection is added when its processor registers it ({@link #onOpen}) and removed
 * when the processor closes it or learns it closed ({@link #onClose}); {@link Processor} calls both
 * for every way a connection ends, so nothing here outlives its socket.
 *
 * <p>Cost on the request path ({@link #onRequest}, every produce and fetch goes through it): one
 * map lookup by the connection id (a string whose hash is cached), one atomic increment, one
 * volatile write of the clock, and a string comparison of the client id; no allocation. Everything
 * else (the principal's name, the software) is written once per connection.
 *
 * <p>Concurrency: the processor that owns a connection is its only writer in practice, but every
 * field is safe for any number of writers (atomic counters, volatile references), and {@link
 * #connections} may run on any thread: each row it returns is read field by field while the
 * connection may be counting a request, so a row's total can be one request ahead of its clock.
 */
public final class KafkaConnections implements ClientConnections {
  /** The counters' index is the API key's id; ids are small and dense (0 to about 90). */
  private static final ApiKeys[] API_BY_ID = apisById();

  private final Time time;
  private final Map<String, Connection> open = new ConcurrentHashMap<>();

  public KafkaConnections(Time time) {
    this.time = time;
  }

  /** A connection was accepted and registered under {@code connectionId}. */
  void onOpen(
      String connectionId,
      InetAddress clientAddress,
      int clientPort,
      String listener,
      String securityProtocol) {
    open.put(
        connectionId,
        new Connection(
            connectionId,
            address(clientAddress, clientPort),
            listener,
            securityProtocol,
            time.milliseconds()));
  }

  /**
   * The connection sent {@code request} (before it is handled). Unknown connections (closed
   * meanwhile) are ignored.
   */
  void onRequest(InboundRequest request) {
    Connection connection = open.get(request.connectionId());
    if (connection == null) {
      return;
    }
    RequestHeader header = request.header();
    short apiKey = header.apiKey().id;
    connection.requestCounts.incrementAndGet(apiKey);
    connection.lastRequestMs = time.milliseconds();
    String clientId = header.clientId();
    if (!Objects.equals(clientId, connection.clientId)) {
      connection.clientId = clientId; // Kafka clients keep one id per connection: written once
    }
    if (connection.principal == null) {
      connection.principal = String.valueOf(request.principal());
    }
    if (connection.softwareName == null) {
      maybeLearnSoftware(connection, request);
    }
  }

  /** The connection is closed (by either side, or by the idle timeout). */
  void onClose(String connectionId) {
    open.remove(connectionId);
  }

  /**
   * The client's software: from the channel when the SASL authenticator read it off an ApiVersions
   * before the handshake, else from an ApiVersions v3+ request itself (as Kafka's Processor reads
   * it). A client sends ApiVersions once per connection, so this parses at most a few requests.
   */
  private static void maybeLearnSoftware(Connection connection, InboundRequest request) {
    ClientInformation client = request.client();
    if (client != null
        && !ClientInformation.UNKNOWN_NAME_OR_VERSION.equals(client.softwareName())) {
      connection.software(client.softwareName(), client.softwareVersion());
      return;
    }
    RequestHeader header = request.header();
    if (header.apiKey() != ApiKeys.API_VERSIONS || header.apiVersion() < 3) {
      return;
    }
    try {
      ByteBuffer body = request.body().duplicate(); // the handler reads the original
      ApiVersionsRequest apiVersions =
          ApiVersionsRequest.parse(new ByteBufferAccessor(body), header.apiVersion());
      if (apiVersions.isValid()) {
        connection.software(
            apiVersions.data().clientSoftwareName(), apiVersions.data().clientSoftwareVersion());
      }
    } catch (RuntimeException e) {
      // Unreadable: its handler answers or closes the connection; the software stays unknown.
    }
  }

  @Override
  public List<ClientConnection> connections() {
    List<ClientConnection> rows = new ArrayList<>(open.size());
    for (Connection connection : open.values()) {
      rows.add(connection.row());
    }
    rows.sort(
        Comparator.comparingLong(ClientConnection::connectedSinceMs)
            .thenComparing(ClientConnection::connectionId));
    return rows;
  }

  private static String address(InetAddress address, int port) {
    if (address == null) {
      return "?:" + port;
    }
    String host = address.getHostAddress();
    return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
  }

  private static ApiKeys[] apisById() {
    int maxId = 0;
    for (ApiKeys api : ApiKeys.values()) {
      maxId = Math.max(maxId, api.id);
    }
    ApiKeys[] byId = new ApiKeys[maxId + 1];
    for (ApiKeys api : ApiKeys.values()) {
      byId[api.id] = api;
    }
    return byId;
  }

  /**
   * One open connection. Invariants: the final fields never change; {@code clientId} and {@code
   * principal} are null only before the first request; the software is written once, both parts
   * together (readers see the name only with its version: the version is written first).
   */
  private static final class Connection {
    final String connectionId;
    final String clientAddress;
    final String listener;
    final String securityProtocol;
    final long connectedSinceMs;
    final AtomicLongArray requestCounts = new AtomicLongArray(API_BY_ID.length);
    volatile long lastRequestMs = -1;
    volatile String clientId;
    volatile String principal;
    volatile String softwareVersion;
    volatile String softwareName;

    Connection(
        String connectionId,
        String clientAddress,
        String listener,
        String securityProtocol,
        long connectedSinceMs) {
      this.connectionId = connectionId;
      this.clientAddress = clientAddress;
      this.listener = listener;
      this.securityProtocol = securityProtocol;
      this.connectedSinceMs = connectedSinceMs;
    }

    void software(String name, String version) {
      softwareVersion = version;
      softwareName = name;
    }

    ClientConnection row() {
      Map<String, Long> byApi = new TreeMap<>();
      for (int id = 0; id < API_BY_ID.length; id++) {
        long count = requestCounts.get(id);
        if (count > 0 && API_BY_ID[id] != null) {
          byApi.put(API_BY_ID[id].name, count);
        }
      }
      String name = softwareName; // read before the version: see the class invariant
      return new ClientConnection(
          connectionId,
          listener,
          securityProtocol,
          clientAddress,
          clientId,
          name,
          name == null ? null : softwareVersion,
          principal,
          connectedSinceMs,
          lastRequestMs,
          byApi);
    }
  }
}
