package dev.tributary.kafka.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.server.ClientConnections.ClientConnection;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The registry on a real socket server: a connection shows from its accept with what its requests
 * said, and leaves on every kind of close (the client's, the broker's, the idle timeout's, the
 * listener's own shutdown). Requests are not handled: ApiVersions is read and let go without an
 * answer, Metadata makes the broker close the connection.
 */
class KafkaConnectionsSocketTest {
  private static final ListenerName LISTENER = new ListenerName("KAFKA");

  private KafkaSocketServer server;
  private final Queue<String> seenAtRequest = new ConcurrentLinkedQueue<>();

  private KafkaSocketServer start(long connectionsMaxIdleMs) throws IOException {
    Consumer<InboundRequest> requests =
        request -> {
          // The registry already holds the connection when its request is handed on.
          server.connections().connections().stream()
              .filter(c -> c.connectionId().equals(request.connectionId()))
              .forEach(c -> seenAtRequest.add(c.clientId()));
          if (request.header().apiKey() == ApiKeys.METADATA) {
            request.close();
          } else {
            request.noResponse();
          }
        };
    server =
        new KafkaSocketServer(
            KafkaSocketServer.bind("127.0.0.1", 0),
            1,
            () ->
                ChannelBuilders.serverChannelBuilder(
                    LISTENER,
                    false,
                    SecurityProtocol.PLAINTEXT,
                    new AbstractConfig(new ConfigDef(), Map.of()),
                    null,
                    null,
                    Time.SYSTEM,
                    new LogContext("[test] "),
                    version -> null),
            LISTENER,
            SecurityProtocol.PLAINTEXT,
            1 << 20,
            connectionsMaxIdleMs,
            requests,
            dev.tributary.common.Time.SYSTEM);
    return server;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aConnectionShowsWithItsClientUntilTheClientClosesIt() throws Exception {
    start(600_000);
    try (Socket socket = connect()) {
      send(
          socket,
          new ApiVersionsRequest(
              new ApiVersionsRequestData()
                  .setClientSoftwareName("test-client")
                  .setClientSoftwareVersion("1.0"),
              (short) 3),
          "reader-1");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !connections().isEmpty() && connections().get(0).clientId() != null);
      ClientConnection row = connections().get(0);
      assertThat(row.clientId()).isEqualTo("reader-1");
      assertThat(row.softwareName()).isEqualTo("test-client");
      assertThat(row.softwareVersion()).isEqualTo("1.0");
      assertThat(row.clientAddress()).isEqualTo("127.0.0.1:" + socket.getLocalPort());
      assertThat(row.listener()).isEqualTo("KAFKA");
      assertThat(row.securityProtocol()).isEqualTo("PLAINTEXT");
      assertThat(row.principal()).isEqualTo("User:ANONYMOUS");
      assertThat(row.requestsByApi()).isEqualTo(Map.of("ApiVersions", 1L));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> connections().isEmpty());
  }

  @Test
  void aConnectionTheBrokerClosesLeaves() throws Exception {
    start(600_000);
    try (Socket socket = connect()) {
      send(socket, new MetadataRequest(new MetadataRequestData(), (short) 12), "refused");
      assertThat(socket.getInputStream().read()).as("the broker closes it").isEqualTo(-1);
      await().atMost(Duration.ofSeconds(10)).until(() -> connections().isEmpty());
      assertThat(seenAtRequest).containsExactly("refused");
    }
  }

  @Test
  void anIdleConnectionTheTimeoutClosesLeaves() throws Exception {
    start(300);
    try (Socket socket = connect()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> connections().size() == 1);
      assertThat(socket.getInputStream().read()).as("closed for idling").isEqualTo(-1);
      await().atMost(Duration.ofSeconds(10)).until(() -> connections().isEmpty());
    }
  }

  @Test
  void theListenersShutdownLeavesNoConnection() throws Exception {
    start(600_000);
    try (Socket socket = connect()) {
      await().atMost(Duration.ofSeconds(10)).until(() -> connections().size() == 1);
      server.close();
      assertThat(connections()).isEmpty();
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", server.port());
    socket.setSoTimeout(20_000);
    return socket;
  }

  private List<ClientConnection> connections() {
    return server.connections().connections();
  }

  private static void send(Socket socket, AbstractRequest request, String clientId)
      throws IOException {
    ByteBuffer payload =
        request.serializeWithHeader(
            new RequestHeader(request.apiKey(), request.version(), clientId, 1));
    ByteBuffer framed = ByteBuffer.allocate(4 + payload.remaining());
    framed.putInt(payload.remaining()).put(payload).flip();
    OutputStream out = socket.getOutputStream();
    out.write(framed.array(), 0, framed.limit());
    out.flush();
  }
}
