package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.transport.http.PeerUrls;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fan-out against fake brokers on loopback (JDK HttpServer, ephemeral ports): one answers, one
 * refuses connections, one hangs, one answers for another broker id, one answers 503. Only the
 * first counts, and the hanging one is cut off at the timeout.
 */
class LeaderSnapshotFetcherTest {
  /**
   * Long enough that the answering fake always makes it, even on a cold JVM; the hanging one is
   * released only after the test, so the fetch returning at all proves the timeout cut it off.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final JsonMapper json = JsonMapper.builder().build();
  private final List<HttpServer> servers = new ArrayList<>();
  private final CountDownLatch releaseHanging = new CountDownLatch(1);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @AfterEach
  void stopServers() {
    releaseHanging.countDown();
    servers.forEach(s -> s.stop(0));
  }

  private static LocalSnapshot snapshotOf(int brokerId) {
    return new LocalSnapshot(
        "local",
        brokerId,
        List.of(
            new LocalSnapshot.LocalPartition(
                "orders",
                brokerId,
                true,
                3,
                new LocalSnapshot.Offsets(0, 7, 9, 900, 1, "b" + brokerId, List.of()))));
  }

  private BrokerImage serve(int brokerId, int status, String body, boolean hang)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/dashboard/state",
        exchange -> {
          if (hang) {
            try {
              releaseHanging.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          assertThat(exchange.getRequestURI().getQuery())
              .isEqualTo("scope=local&leading_only=true");
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
    servers.add(server);
    return broker(brokerId, server.getAddress().getPort());
  }

  private static BrokerImage broker(int brokerId, int port) {
    return new BrokerImage(brokerId, new Uuid(0, brokerId), "127.0.0.1", port, 1, false);
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void keepsAnswersThatArriveInTimeAndDropsEveryOtherBroker() throws IOException {
    BrokerImage answers = serve(2, 200, json.writeValueAsString(snapshotOf(2)), false);
    BrokerImage refuses = broker(3, closedPort());
    BrokerImage hangs = serve(4, 200, json.writeValueAsString(snapshotOf(4)), true);
    BrokerImage impostor = serve(5, 200, json.writeValueAsString(snapshotOf(9)), false);
    BrokerImage starting = serve(6, 503, "{\"error_code\":50301,\"message\":\"starting\"}", false);
    BrokerImage garbage = serve(7, 200, "<html>not json</html>", false);
    LeaderSnapshotFetcher fetcher = new LeaderSnapshotFetcher(http, PeerUrls.PLAIN, json, TIMEOUT);

    Map<Integer, LocalSnapshot> result =
        fetcher.fetch(List.of(answers, refuses, hangs, impostor, starting, garbage));

    assertThat(releaseHanging.getCount())
        .as("the fetch returned while broker 4 still hangs: the timeout cut it off")
        .isEqualTo(1);
    assertThat(result).containsOnlyKeys(2);
    assertThat(result.get(2)).isEqualTo(snapshotOf(2));
  }

  @Test
  void asksNobodyWhenThereAreNoRemoteLeaders() {
    assertThat(new LeaderSnapshotFetcher(http, PeerUrls.PLAIN, json, TIMEOUT).fetch(List.of()))
        .isEmpty();
  }
}
