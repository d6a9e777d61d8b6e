package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.server.ControllerChannel;
import dev.tributary.server.ControllerChannel.BrokerRegistration;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The registration's JSON between broker and controller: the listeners, plus the host and port the
 * previous release reads; and the previous release's shape, without listeners, read as one HTTP
 * listener during a rolling upgrade.
 */
class RegistrationWireTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final AdvertisedListener HTTP =
      new AdvertisedListener("HTTP", "10.0.0.2", 8443, SecurityProtocol.SSL);
  private static final AdvertisedListener KAFKA =
      new AdvertisedListener("KAFKA", "10.0.0.2", 9093, SecurityProtocol.PLAINTEXT);
  private static final BrokerRegistration REGISTRATION =
      new BrokerRegistration(2, "incarnation-7", List.of(HTTP, KAFKA));

  private static JsonNode parse(String json) {
    return JSON.readTree(json);
  }

  @Test
  void aRegistrationCarriesItsListenersAndTheHttpListenersHostAndPortForTheOldReader() {
    JsonNode body = JSON.valueToTree(RegistrationWire.toJson(REGISTRATION));

    assertThat(body)
        .isEqualTo(
            parse(
                """
                {"broker_id":2,"incarnation_id":"incarnation-7","host":"10.0.0.2","port":8443,
                 "listeners":[
                   {"name":"HTTP","host":"10.0.0.2","port":8443,"security_protocol":"SSL"},
                   {"name":"KAFKA","host":"10.0.0.2","port":9093,"security_protocol":"PLAINTEXT"}]}
                """));
    assertThat(RegistrationWire.fromJson(body, SecurityProtocol.PLAINTEXT)).isEqualTo(REGISTRATION);
  }

  @Test
  void thePreviousReleasesShapeIsOneHttpListenerWithTheReceiversProtocol() {
    JsonNode old =
        parse(
            """
            {"broker_id":3,"incarnation_id":"incarnation-1","host":"10.0.0.3","port":8083}
            """);

    assertThat(RegistrationWire.fromJson(old, SecurityProtocol.SSL))
        .isEqualTo(
            new BrokerRegistration(
                3,
                "incarnation-1",
                List.of(new AdvertisedListener("HTTP", "10.0.0.3", 8083, SecurityProtocol.SSL))));
    assertThat(RegistrationWire.fromJson(old, SecurityProtocol.PLAINTEXT).listeners())
        .containsExactly(AdvertisedListener.http("10.0.0.3", 8083));
  }

  @Test
  void aRackTravelsOnlyWhenTheBrokerHasOne() {
    BrokerRegistration onRack = new BrokerRegistration(2, "incarnation-7", List.of(HTTP), "rack-a");

    JsonNode body = JSON.valueToTree(RegistrationWire.toJson(onRack));

    assertThat(body.get("rack").stringValue()).isEqualTo("rack-a");
    assertThat(RegistrationWire.fromJson(body, SecurityProtocol.PLAINTEXT)).isEqualTo(onRack);
    assertThat(JSON.valueToTree(RegistrationWire.toJson(REGISTRATION)).has("rack"))
        .as("a body without a rack is as the previous release sent it")
        .isFalse();
    JsonNode nullRack =
        parse(
            """
            {"broker_id":3,"incarnation_id":"i","host":"10.0.0.3","port":8083,"rack":null}
            """);
    assertThat(RegistrationWire.fromJson(nullRack, SecurityProtocol.PLAINTEXT).rack()).isNull();
    JsonNode numberRack =
        parse(
            """
            {"broker_id":3,"incarnation_id":"i","host":"10.0.0.3","port":8083,"rack":7}
            """);
    assertThatThrownBy(() -> RegistrationWire.fromJson(numberRack, SecurityProtocol.PLAINTEXT))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("rack must be a string");
  }

  @Test
  void malformedListenersAreABadRequestAndAnUnknownProtocolAnInvalidRegistration() {
    for (String listeners :
        List.of(
            "{}",
            "[{\"name\":\"HTTP\",\"host\":\"h\",\"port\":\"80\",\"security_protocol\":\"SSL\"}]",
            "[{\"name\":\"HTTP\",\"host\":\"h\",\"port\":80}]",
            "[{\"name\":1,\"host\":\"h\",\"port\":80,\"security_protocol\":\"SSL\"}]",
            "[\"HTTP://h:80\"]")) {
      JsonNode body =
          parse("{\"broker_id\":1,\"incarnation_id\":\"i\",\"listeners\":" + listeners + "}");
      assertThatThrownBy(() -> RegistrationWire.fromJson(body, SecurityProtocol.PLAINTEXT))
          .as(listeners)
          .isInstanceOf(InvalidRequestException.class);
    }
    JsonNode unknown =
        parse(
            """
            {"broker_id":1,"incarnation_id":"i","listeners":[
              {"name":"HTTP","host":"h","port":80,"security_protocol":"QUIC"}]}
            """);
    assertThatThrownBy(() -> RegistrationWire.fromJson(unknown, SecurityProtocol.PLAINTEXT))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessageContaining("unknown security protocol QUIC");
  }

  @Test
  void theHttpChannelSendsTheListenersAndMapsARefusalBackToInvalidRegistration()
      throws IOException {
    AtomicReference<JsonNode> received = new AtomicReference<>();
    AtomicReference<String> answer = new AtomicReference<>();
    HttpServer controller =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controller.createContext(
        InternalApi.REGISTER,
        exchange -> {
          received.set(JSON.readTree(exchange.getRequestBody().readAllBytes()));
          byte[] body = answer.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(
              answer.get().contains("error_code") ? 400 : 200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    controller.start();
    try {
      HttpControllerChannel channel =
          new HttpControllerChannel(
              HttpClient.newHttpClient(), PeerUrls.PLAIN, JSON, "secret", Duration.ofSeconds(5));
      ControllerChannel.Endpoint target =
          new ControllerChannel.Endpoint(1, "127.0.0.1", controller.getAddress().getPort());

      answer.set("{\"broker_epoch\":12,\"metadata_offset\":40}");
      assertThat(channel.register(target, REGISTRATION))
          .isEqualTo(new ControllerChannel.RegistrationResult(12, 40));
      assertThat(RegistrationWire.fromJson(received.get(), SecurityProtocol.PLAINTEXT))
          .isEqualTo(REGISTRATION);

      answer.set("{\"error_code\":40008,\"message\":\"Broker 2 registered no HTTP listener\"}");
      assertThatThrownBy(() -> channel.register(target, REGISTRATION))
          .isInstanceOf(InvalidRegistrationException.class)
          .hasMessage("Broker 2 registered no HTTP listener");
    } finally {
      controller.stop(0);
    }
  }
}
