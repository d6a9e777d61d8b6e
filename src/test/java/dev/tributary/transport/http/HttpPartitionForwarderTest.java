package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.server.ControllerChannel.Endpoint;
import dev.tributary.server.RequestContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpPartitionForwarder} against a leader played by the JDK's HTTP server on an ephemeral
 * loopback port: what it sends (the batch bytes, the client, the cluster secret, the metadata
 * offset) and how it takes the leader's answers.
 */
class HttpPartitionForwarderTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final TopicPartition ORDERS_3 = new TopicPartition("orders", 3);
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.9", false);

  /** One request the leader received. */
  private record Received(
      String method, String path, String secret, String contentType, byte[] body) {}

  private HttpServer leader;
  private final List<Received> received = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile Function<ProduceCodec.Request, Answer> answers;
  private HttpPartitionForwarder forwarder;

  private record Answer(int status, byte[] body) {}

  @BeforeEach
  void setUp() throws IOException {
    leader = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    leader.createContext(InternalApi.PRODUCE, this::handle);
    leader.start();
    int port = leader.getAddress().getPort();
    forwarder =
        new HttpPartitionForwarder(
            HttpClient.newHttpClient(),
            PeerUrls.PLAIN,
            id -> id == 2 ? Optional.of(new Endpoint(2, "127.0.0.1", port)) : Optional.empty(),
            Duration.ofSeconds(5),
            () -> 77L,
            "s3cret");
  }

  @AfterEach
  void tearDown() {
    leader.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    received.add(
        new Received(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders().getFirst(InternalApi.SECRET_HEADER),
            exchange.getRequestHeaders().getFirst("Content-Type"),
            body));
    Answer answer = answers.apply(ProduceCodec.decodeRequest(ByteBuffer.wrap(body)));
    exchange.sendResponseHeaders(answer.status(), answer.body().length);
    exchange.getResponseBody().write(answer.body());
    exchange.close();
  }

  private static Map<TopicPartition, ByteBuffer> batches() {
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    batches.put(ORDERS_3, ByteBuffer.wrap(new byte[] {1, 2, 3}));
    batches.put(ORDERS_0, ByteBuffer.wrap(new byte[] {4, 5}));
    return batches;
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(30, TimeUnit.SECONDS);
  }

  private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
    try {
      await(future);
      throw new AssertionError("not failed");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void theBatchesGoToTheLeaderAsBytesWithTheClientAndTheSecretAndItsAnswerComesBack()
      throws Exception {
    Map<TopicPartition, ProducePartitionResult> leaderSays = new LinkedHashMap<>();
    leaderSays.put(ORDERS_3, new ProducePartitionResult(Errors.NONE, null, 10, 10, -1, 0, 1));
    leaderSays.put(
        ORDERS_0, ProducePartitionResult.failed(Errors.NOT_ENOUGH_REPLICAS, "too few in sync"));
    answers = request -> new Answer(200, ProduceCodec.encode(leaderSays));

    Map<TopicPartition, ProducePartitionResult> results =
        await(forwarder.forward(2, batches(), Acks.ALL, 4_000, ALICE));

    assertThat(results).isEqualTo(leaderSays);
    assertThat(received).hasSize(1);
    Received request = received.get(0);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(request.path()).isEqualTo(InternalApi.PRODUCE);
    assertThat(request.secret()).isEqualTo("s3cret");
    assertThat(request.contentType()).isEqualTo(InternalApi.PRODUCE_MEDIA_TYPE);
    ProduceCodec.Request decoded = ProduceCodec.decodeRequest(ByteBuffer.wrap(request.body()));
    assertThat(decoded)
        .isEqualTo(
            new ProduceCodec.Request(Acks.ALL, 4_000, 77, "User:alice", "10.0.0.9", batches()));
    assertThat(List.copyOf(decoded.batches().keySet())).containsExactly(ORDERS_3, ORDERS_0);
  }

  @Test
  void aLeaderWhoseAddressIsNotKnownFailsWithoutARequest() throws Exception {
    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forwarded =
        forwarder.forward(3, batches(), Acks.LEADER, 4_000, ALICE);

    assertThat(failureOf(forwarded))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("broker 3");
    assertThat(received).isEmpty();
  }

  @Test
  void aLeaderAtAnAddressTheHttpClientCannotUseFailsTheForwardInsteadOfThrowing() throws Exception {
    HttpPartitionForwarder toUnderscoreHost =
        new HttpPartitionForwarder(
            HttpClient.newHttpClient(),
            PeerUrls.PLAIN,
            id -> Optional.of(new Endpoint(id, "broker_2", 9002)),
            Duration.ofSeconds(5),
            () -> 77L,
            "s3cret");

    CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forwarded =
        toUnderscoreHost.forward(2, batches(), Acks.LEADER, 4_000, ALICE);

    assertThat(failureOf(forwarded))
        .as("as an unreachable leader: its partitions answer NETWORK_EXCEPTION")
        .isInstanceOf(IOException.class)
        .hasMessageContaining("broker 2");
  }

  @Test
  void aLeaderThatRefusesTheRequestAsAWholeFailsTheForward() throws Exception {
    answers = request -> new Answer(503, new byte[0]);

    assertThat(failureOf(forwarder.forward(2, batches(), Acks.LEADER, 4_000, ALICE)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broker 2 answered HTTP 503");
  }

  @Test
  void anAnswerThatDoesNotDecodeFailsTheForward() throws Exception {
    answers = request -> new Answer(200, new byte[] {0, 0, 0, 0, 0, 9});

    assertThat(failureOf(forwarder.forward(2, batches(), Acks.LEADER, 4_000, ALICE)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aLeaderThatIsNotListeningFailsTheForward() throws Exception {
    leader.stop(0);

    assertThatThrownBy(() -> await(forwarder.forward(2, batches(), Acks.LEADER, 4_000, ALICE)))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(IOException.class);
  }
}
