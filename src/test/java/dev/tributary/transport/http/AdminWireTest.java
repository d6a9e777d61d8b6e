package dev.tributary.transport.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.server.ControllerChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Forwarded topic admin requests and election answers between broker and controller, and a
 * controller's refusal coming back with its Kafka code.
 */
class AdminWireTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode roundTrip(Object body) {
    return JSON.readTree(JSON.writeValueAsBytes(body));
  }

  @Test
  void requestsComeOutAsTheyWentIn() {
    NewTopic topic =
        new NewTopic("orders", -1, -1, List.of(List.of(2, 1), List.of(1, 3)), Map.of("a", "1"));
    JsonNode sent = roundTrip(AdminWire.newTopic(topic, true));
    assertThat(AdminWire.newTopic(sent)).isEqualTo(topic);
    assertThat(AdminWire.validateOnly(sent)).isTrue();

    NewPartitions partitions = new NewPartitions("orders", 4, List.of(List.of(3), List.of(1)));
    JsonNode grow = roundTrip(AdminWire.newPartitions(partitions, false));
    assertThat(AdminWire.newPartitions("orders", grow)).isEqualTo(partitions);
    assertThat(AdminWire.validateOnly(grow)).isFalse();

    List<ConfigChange> changes =
        List.of(
            ConfigChange.set("retention.ms", "5"),
            ConfigChange.delete("segment.ms"),
            new ConfigChange("cleanup.policy", ConfigChange.Op.APPEND, "compact"));
    assertThat(AdminWire.configChanges(roundTrip(AdminWire.configChanges(changes, false))))
        .isEqualTo(changes);

    List<TopicPartition> named = List.of(new TopicPartition("orders", 1));
    assertThat(AdminWire.electionPartitions(roundTrip(AdminWire.election(named)))).isEqualTo(named);
    assertThat(AdminWire.electionPartitions(roundTrip(AdminWire.election(null))))
        .as("every partition")
        .isNull();
  }

  @Test
  void anElectionAnswerKeepsEachOutcomeInOrder() {
    Map<TopicPartition, ElectionOutcome> outcomes = new LinkedHashMap<>();
    outcomes.put(new TopicPartition("b", 0), ElectionOutcome.ELECTED);
    outcomes.put(
        new TopicPartition("a", 2),
        new ElectionOutcome(Errors.PREFERRED_LEADER_NOT_AVAILABLE, "not in the ISR"));
    ControllerChannel.ElectionResult result = new ControllerChannel.ElectionResult(41, outcomes);

    ControllerChannel.ElectionResult back =
        AdminWire.electionResult(roundTrip(AdminWire.electionResult(result)));

    assertThat(back).isEqualTo(result);
    assertThat(back.outcomes().keySet()).containsExactlyElementsOf(outcomes.keySet());
  }

  @Test
  void aRefusalComesBackWithItsKafkaCode() throws IOException {
    AtomicReference<String> answer = new AtomicReference<>();
    HttpServer controller =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    controller.createContext(
        InternalApi.TOPICS,
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] body = answer.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(400, body.length);
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
      NewTopic topic = NewTopic.assigned("t", List.of(List.of(9)), Map.of());

      answer.set("{\"error_code\":40000,\"message\":\"no broker 9\",\"kafka_error_code\":39}");
      assertThatThrownBy(() -> channel.createTopic(target, topic, false))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> assertThat(e.error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT))
          .hasMessage("no broker 9");

      answer.set("{\"error_code\":40000,\"message\":\"from an older broker\"}");
      assertThatThrownBy(() -> channel.createTopic(target, topic, false))
          .as("without the Kafka code: passed on as it came")
          .isInstanceOfSatisfying(
              RemoteApiException.class, e -> assertThat(e.errorCode()).isEqualTo(40000));
    } finally {
      controller.stop(0);
    }
  }
}
