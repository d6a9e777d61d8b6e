package dev.tributary.kafka.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.server.ClientConnections.ClientConnection;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/** The Kafka listener's connection registry, fed by hand as its processors feed it. */
class KafkaConnectionsTest {
  private final ManualClock clock = new ManualClock();
  private final KafkaConnections connections = new KafkaConnections(clock);
  private final InetAddress loopback = InetAddress.getLoopbackAddress();

  @Test
  void aConnectionShowsFromItsOpeningWithNoClientUntilItsFirstRequest() {
    long openedMs = clock.milliseconds();
    connections.onOpen("c-1", loopback, 50_000, "KAFKA", "PLAINTEXT");

    assertThat(connections.connections())
        .containsExactly(
            new ClientConnection(
                "c-1",
                "KAFKA",
                "PLAINTEXT",
                "127.0.0.1:50000",
                null,
                null,
                null,
                null,
                openedMs,
                -1,
                Map.of()));
  }

  @Test
  void requestsTeachTheClientIdSoftwareAndPrincipalAndAreCountedByApi() {
    long openedMs = clock.milliseconds();
    connections.onOpen("c-1", loopback, 50_000, "KAFKA", "PLAINTEXT");
    clock.advance(10);
    connections.onRequest(
        apiVersions("c-1", "producer-7", (short) 3, "apache-kafka-java", "4.4.0"));
    connections.onRequest(metadata("c-1", "producer-7"));
    clock.advance(5);
    for (int i = 0; i < 3; i++) {
      connections.onRequest(request("c-1", ApiKeys.PRODUCE, (short) 9, "producer-7"));
    }

    ClientConnection row = connections.connections().get(0);
    assertThat(row.clientId()).isEqualTo("producer-7");
    assertThat(row.softwareName()).isEqualTo("apache-kafka-java");
    assertThat(row.softwareVersion()).isEqualTo("4.4.0");
    assertThat(row.principal()).isEqualTo("User:ANONYMOUS");
    assertThat(row.connectedSinceMs()).isEqualTo(openedMs);
    assertThat(row.lastRequestMs()).isEqualTo(openedMs + 15);
    assertThat(row.requestsByApi())
        .containsExactly(
            Map.entry("ApiVersions", 1L), Map.entry("Metadata", 1L), Map.entry("Produce", 3L));
    assertThat(row.requestCount()).isEqualTo(5);
  }

  @Test
  void learningTheSoftwareLeavesTheApiVersionsBodyForItsHandler() {
    connections.onOpen("c-1", loopback, 50_000, "KAFKA", "PLAINTEXT");
    InboundRequest request = apiVersions("c-1", "kcat", (short) 3, "librdkafka", "2.0.2");
    int position = request.body().position();

    connections.onRequest(request);

    assertThat(request.body().position()).isEqualTo(position);
    assertThat(ApiVersionsRequest.parse(accessor(request.body()), (short) 3).data())
        .extracting(ApiVersionsRequestData::clientSoftwareName)
        .isEqualTo("librdkafka");
    assertThat(connections.connections().get(0).softwareName()).isEqualTo("librdkafka");
  }

  @Test
  void anApiVersionsBeforeVersion3SaysNoSoftwareAndAnUnreadableOneIsStillCounted() {
    connections.onOpen("old", loopback, 1, "KAFKA", "PLAINTEXT");
    connections.onOpen("garbled", loopback, 2, "KAFKA", "PLAINTEXT");
    connections.onRequest(apiVersions("old", "old-client", (short) 2, null, null));
    connections.onRequest(
        inbound(
            "garbled",
            new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "x", 1),
            ByteBuffer.wrap(new byte[] {1, 2, 3}),
            ClientInformation.EMPTY));

    assertThat(connections.connections())
        .allSatisfy(
            row -> {
              assertThat(row.softwareName()).isNull();
              assertThat(row.softwareVersion()).isNull();
              assertThat(row.requestsByApi()).containsExactly(Map.entry("ApiVersions", 1L));
            });
  }

  @Test
  void theSoftwareTheSaslAuthenticatorReadIsTakenFromTheChannel() {
    connections.onOpen("c-1", loopback, 50_000, "KAFKA", "SASL_PLAINTEXT");
    connections.onRequest(
        inbound(
            "c-1",
            new RequestHeader(ApiKeys.METADATA, (short) 12, "sasl-client", 1),
            metadataBody(),
            new ClientInformation("confluent-kafka-python", "2.6.0")));

    ClientConnection row = connections.connections().get(0);
    assertThat(row.softwareName()).isEqualTo("confluent-kafka-python");
    assertThat(row.softwareVersion()).isEqualTo("2.6.0");
    assertThat(row.securityProtocol()).isEqualTo("SASL_PLAINTEXT");
  }

  @Test
  void aClientThatChangesItsClientIdShowsTheLatest() {
    connections.onOpen("c-1", loopback, 50_000, "KAFKA", "PLAINTEXT");
    connections.onRequest(metadata("c-1", "first"));
    connections.onRequest(metadata("c-1", "second"));

    assertThat(connections.connections().get(0).clientId()).isEqualTo("second");
  }

  @Test
  void aClosedConnectionIsGoneAndItsLateRequestsAreIgnored() {
    connections.onOpen("c-1", loopback, 1, "KAFKA", "PLAINTEXT");
    connections.onOpen("c-2", loopback, 2, "KAFKA", "PLAINTEXT");
    connections.onClose("c-1");
    connections.onRequest(metadata("c-1", "late"));
    connections.onClose("c-1"); // a second notice of the same close changes nothing

    assertThat(connections.connections())
        .extracting(ClientConnection::connectionId)
        .containsExactly("c-2");
  }

  @Test
  void connectionsAreListedOldestFirstThenById() throws Exception {
    connections.onOpen("b", loopback, 2, "KAFKA", "PLAINTEXT");
    connections.onOpen("a", loopback, 1, "KAFKA", "PLAINTEXT");
    clock.advance(1);
    connections.onOpen("0-newest", loopback, 3, "KAFKA", "PLAINTEXT");
    connections.onOpen("v6", InetAddress.getByName("::1"), 4, "KAFKA", "PLAINTEXT");

    assertThat(connections.connections())
        .extracting(ClientConnection::connectionId)
        .containsExactly("a", "b", "0-newest", "v6");
    assertThat(connections.connections().get(3).clientAddress()).isEqualTo("[0:0:0:0:0:0:0:1]:4");
  }

  /**
   * Processors open, count and close connections on their own threads while the dashboard reads:
   * every count lands, a row's count never goes backwards between two reads, and a closed
   * connection never shows again.
   */
  @Test
  void concurrentProcessorsAndReadersSeeExactCountsAndNoClosedConnection() throws Exception {
    int processors = 4;
    int connectionsEach = 25;
    int requestsEach = 200;
    ExecutorService pool = Executors.newFixedThreadPool(processors + 1);
    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean writing = new AtomicBoolean(true);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int p = 0; p < processors; p++) {
        int processor = p;
        writers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int c = 0; c < connectionsEach; c++) {
                    String id = "p" + processor + "-c" + c;
                    connections.onOpen(id, loopback, c, "KAFKA", "PLAINTEXT");
                    for (int r = 0; r < requestsEach; r++) {
                      connections.onRequest(
                          request(id, r % 2 == 0 ? ApiKeys.PRODUCE : ApiKeys.FETCH, (short) 9, id));
                    }
                    if (c % 2 == 1) {
                      connections.onClose(id); // every odd connection closes
                    }
                  }
                  return null;
                }));
      }
      Future<List<String>> reader =
          pool.submit(
              () -> {
                start.await();
                List<String> problems = new ArrayList<>();
                Map<String, Long> lastSeen = new java.util.HashMap<>();
                java.util.Set<String> closedSeen = new java.util.HashSet<>();
                while (writing.get()) {
                  java.util.Set<String> present = new java.util.HashSet<>();
                  for (ClientConnection row : connections.connections()) {
                    present.add(row.connectionId());
                    if (closedSeen.contains(row.connectionId())) {
                      problems.add(row.connectionId() + " came back after closing");
                    }
                    long before = lastSeen.getOrDefault(row.connectionId(), 0L);
                    if (row.requestCount() < before) {
                      problems.add(row.connectionId() + " went from " + before);
                    }
                    lastSeen.put(row.connectionId(), row.requestCount());
                  }
                  for (String id : lastSeen.keySet()) {
                    if (!present.contains(id)) {
                      closedSeen.add(id);
                    }
                  }
                }
                return problems;
              });
      start.countDown();
      for (Future<?> writer : writers) {
        writer.get(60, TimeUnit.SECONDS);
      }
      writing.set(false);
      assertThat(reader.get(60, TimeUnit.SECONDS)).isEmpty();
    } finally {
      pool.shutdownNow();
    }

    List<ClientConnection> rows = connections.connections();
    assertThat(rows).hasSize(processors * ((connectionsEach + 1) / 2)); // the even ones
    assertThat(rows)
        .allSatisfy(
            row -> {
              assertThat(row.connectionId()).matches("p\\d-c\\d*[02468]");
              assertThat(row.requestsByApi())
                  .containsExactly(
                      Map.entry("Fetch", (long) requestsEach / 2),
                      Map.entry("Produce", (long) requestsEach / 2));
              assertThat(row.clientId()).isEqualTo(row.connectionId());
            });
  }

  /** Several threads counting on one connection (not how processors work, but allowed). */
  @Test
  void concurrentRequestsOnOneConnectionAreAllCounted() throws Exception {
    connections.onOpen("shared", loopback, 1, "KAFKA", "PLAINTEXT");
    int threads = 4;
    int requestsEach = 5_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < requestsEach; r++) {
                    connections.onRequest(request("shared", ApiKeys.PRODUCE, (short) 9, "x"));
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(connections.connections().get(0).requestsByApi())
        .containsExactly(Map.entry("Produce", (long) threads * requestsEach));
  }

  private InboundRequest request(String connectionId, ApiKeys api, short version, String clientId) {
    return inbound(
        connectionId,
        new RequestHeader(api, version, clientId, 1),
        ByteBuffer.allocate(0),
        ClientInformation.EMPTY);
  }

  private InboundRequest metadata(String connectionId, String clientId) {
    return inbound(
        connectionId,
        new RequestHeader(ApiKeys.METADATA, (short) 12, clientId, 1),
        metadataBody(),
        ClientInformation.EMPTY);
  }

  private static ByteBuffer metadataBody() {
    return new MetadataRequest(new MetadataRequestData().setTopics(null), (short) 12)
        .serialize()
        .buffer();
  }

  private InboundRequest apiVersions(
      String connectionId,
      String clientId,
      short version,
      String software,
      String softwareVersion) {
    ApiVersionsRequestData data = new ApiVersionsRequestData();
    if (software != null) {
      data.setClientSoftwareName(software).setClientSoftwareVersion(softwareVersion);
    }
    ByteBuffer body = new ApiVersionsRequest(data, version).serialize().buffer();
    return inbound(
        connectionId,
        new RequestHeader(ApiKeys.API_VERSIONS, version, clientId, 1),
        body,
        ClientInformation.EMPTY);
  }

  private InboundRequest inbound(
      String connectionId, RequestHeader header, ByteBuffer body, ClientInformation client) {
    return new InboundRequest(
        null,
        connectionId,
        header,
        body,
        body.remaining(),
        KafkaPrincipal.ANONYMOUS,
        loopback,
        new ListenerName("KAFKA"),
        SecurityProtocol.PLAINTEXT,
        client);
  }

  private static org.apache.kafka.common.protocol.ByteBufferAccessor accessor(ByteBuffer buffer) {
    return new org.apache.kafka.common.protocol.ByteBufferAccessor(buffer.duplicate());
  }
}
