package dev.tributary.metadata;

import static dev.tributary.metadata.ClusterHarness.incarnation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Time;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The controller's check of a registration's listeners (Kafka's INVALID_REGISTRATION): a refused
 * registration computes no record and gives the broker no session.
 */
class ClusterControlListenersTest {
  private final ClusterHarness h = new ClusterHarness(5);

  private static AdvertisedListener plain(String name, String host, int port) {
    return new AdvertisedListener(name, host, port, SecurityProtocol.PLAINTEXT);
  }

  @Test
  void aRegistrationAdvertisesEveryListenerItCarriesSortedByName() {
    AdvertisedListener kafka = plain("KAFKA", "10.0.0.1", 9092);
    AdvertisedListener http =
        new AdvertisedListener("HTTP", "10.0.0.1", 8443, SecurityProtocol.SSL);

    List<MetadataRecord> records =
        h.commit(h.cluster.register(h.image, 1, incarnation(1, 1), List.of(kafka, http), h.nowMs));

    assertThat(records)
        .containsExactly(
            new MetadataRecord.RegisterBroker(1, incarnation(1, 1), List.of(http, kafka)));
    assertThat(h.image.broker(1).orElseThrow().listeners()).containsExactly(http, kafka);
  }

  /**
   * Each row is one registration, listeners as {@code NAME host port} separated by {@code ;}, and
   * the part of the refusal's message that says what is wrong.
   */
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          KAFKA 10.0.0.1 9092                         | registered no HTTP listener
          HTTP 10.0.0.1 8081; HTTP 10.0.0.1 8082      | two listeners are named HTTP
          HTTP 10.0.0.1 8081; KAFKA 10.0.0.1 0        | its port must be 1 to 65535
          HTTP 10.0.0.1 65536                         | its port must be 1 to 65535
          HTTP 10.0.0.1 -1                            | its port must be 1 to 65535
          HTTP _ 8081                                 | its host is empty
          HTTP broker_2 8081                          | not a DNS name
          HTTP broker..2 8081                         | not a DNS name
          HTTP http://broker-2 8081                   | not a DNS name
          HTTP 10.0.0.1 8081; kafka 10.0.0.1 9092     | upper case letters, digits and _
          HTTP 10.0.0.1 8081; KAFKA-1 10.0.0.1 9092   | upper case letters, digits and _
          """)
  void anInvalidRegistrationIsRefusedAndChangesNothing(String listeners, String problem) {
    List<AdvertisedListener> parsed = new ArrayList<>();
    for (String listener : listeners.split(";")) {
      String[] parts = listener.trim().split(" ");
      parsed.add(
          plain(parts[0], parts[1].equals("_") ? " " : parts[1], Integer.parseInt(parts[2])));
    }

    assertThatThrownBy(() -> h.cluster.register(h.image, 1, incarnation(1, 1), parsed, h.nowMs))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessageStartingWith("Broker 1 registered")
        .hasMessageContaining(problem);
    assertThat(h.cluster.heartbeats().tracks(1)).as("no session for a refused broker").isFalse();
  }

  @ParameterizedTest
  @CsvSource({"broker-2", "broker-2.tributary.internal", "10.0.0.1", "::1", "[fe80::1]"})
  void aDnsNameOrAnIpAddressIsAHost(String host) {
    h.commit(
        h.cluster.register(
            h.image, 1, incarnation(1, 1), List.of(plain("HTTP", host, 8081)), h.nowMs));
    assertThat(h.image.broker(1).orElseThrow().host()).isEqualTo(host);
  }

  @Test
  void aHostLongerThanAnyDnsNameIsRefused() {
    String host = "h".repeat(256);

    assertThatThrownBy(
            () ->
                h.cluster.register(
                    h.image, 1, incarnation(1, 1), List.of(plain("HTTP", host, 8081)), h.nowMs))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessageContaining("at most 255 characters");
    h.commit(
        h.cluster.register(
            h.image,
            1,
            incarnation(1, 1),
            List.of(plain("HTTP", host.substring(1), 8081)),
            h.nowMs));
    assertThat(h.image.broker(1).orElseThrow().host()).hasSize(255);
  }

  @Test
  void aRegisteredBrokersNewIncarnationWithInvalidListenersKeepsTheOldRegistration() {
    h.startBrokers(1);
    BrokerImage before = h.image.broker(1).orElseThrow();

    assertThatThrownBy(
            () ->
                h.cluster.register(
                    h.image, 1, incarnation(1, 2), List.of(plain("KAFKA", "h", 1)), h.nowMs))
        .isInstanceOf(InvalidRegistrationException.class);
    assertThat(h.image.broker(1)).contains(before);
  }

  @Test
  void theControllerCommitsNothingForARefusedRegistration(@TempDir Path dir) {
    try (LocalMetadataLog log = LocalMetadataLog.open(dir, 1)) {
      Controller controller =
          new Controller(log, new TopicControl(new Random(1)), 1_000, Time.SYSTEM);
      long before = log.image().lastOffset();

      assertThatThrownBy(
              () -> controller.registerBroker(1, new dev.tributary.common.Uuid(1, 1), List.of(), 0))
          .isInstanceOf(InvalidRegistrationException.class)
          .hasMessageContaining("registered no HTTP listener");
      assertThat(log.image().lastOffset()).isEqualTo(before);
      assertThat(log.image().brokers()).isEmpty();
    }
  }
}
