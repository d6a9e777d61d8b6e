package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.server.ControllerChannel;
import dev.tributary.server.ControllerUnreachableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * AllocateProducerIds over the internal HTTP API, against a JDK HTTP server on loopback that plays
 * the controller: the request's body and secret, the block read back, refusals mapped to the core's
 * exceptions.
 */
class HttpControllerChannelProducerIdsTest {
  final JsonMapper json = JsonMapper.builder().build();
  final List<JsonNode> received = new ArrayList<>();
  final List<String> secrets = new ArrayList<>();
  HttpServer server;
  int status;
  String answer;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        InternalApi.ALLOCATE_PRODUCER_IDS,
        exchange -> {
          received.add(json.readTree(exchange.getRequestBody().readAllBytes()));
          secrets.add(exchange.getRequestHeaders().getFirst(InternalApi.SECRET_HEADER));
          byte[] body = answer.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  ProducerIdsBlock allocate(int brokerId, long brokerEpoch) {
    HttpControllerChannel channel =
        new HttpControllerChannel(
            HttpClient.newHttpClient(), PeerUrls.PLAIN, json, "s3cret", Duration.ofSeconds(5));
    ControllerChannel.Endpoint controller =
        new ControllerChannel.Endpoint(
            3, server.getAddress().getHostString(), server.getAddress().getPort());
    return channel.allocateProducerIds(controller, brokerId, brokerEpoch);
  }

  @Test
  void askingForABlockSendsTheRegistrationAndReadsTheBlock() {
    status = 200;
    answer = "{\"producer_id_start\":7000,\"producer_id_len\":1000}";

    ProducerIdsBlock block = allocate(2, 41);

    assertThat(block).isEqualTo(new ProducerIdsBlock(2, 7000, 1000));
    assertThat(received).hasSize(1);
    assertThat(received.get(0).path("broker_id").asInt()).isEqualTo(2);
    assertThat(received.get(0).path("broker_epoch").asLong()).isEqualTo(41);
    assertThat(secrets).containsExactly("s3cret");
  }

  @Test
  void theControllersRefusalsComeBackAsTheCoresExceptions() {
    status = 409;
    answer =
        "{\"error_code\":" + InternalApi.STALE_BROKER_EPOCH + ",\"message\":\"epoch 40 is old\"}";
    assertThatThrownBy(() -> allocate(2, 40))
        .isInstanceOf(StaleBrokerEpochException.class)
        .hasMessage("epoch 40 is old");

    answer = "{\"error_code\":" + InternalApi.BROKER_NOT_REGISTERED + ",\"message\":\"who?\"}";
    assertThatThrownBy(() -> allocate(9, 0)).isInstanceOf(BrokerNotRegisteredException.class);
  }

  @Test
  void anAnswerWithoutAValidBlockIsNoBlock() {
    status = 200;
    answer = "{\"producer_id_start\":-5,\"producer_id_len\":1000}";
    assertThatThrownBy(() -> allocate(2, 41)).isInstanceOf(ControllerUnreachableException.class);
  }
}
