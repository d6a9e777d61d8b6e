package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.metadata.AdvertisedListener;
import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.replication.ReplicationConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A broker's advertised listeners in its configuration. */
class BrokerConfigTest {
  private static final AdvertisedListener HTTP =
      new AdvertisedListener("HTTP", "10.0.0.1", 0, SecurityProtocol.SSL);
  private static final AdvertisedListener KAFKA =
      new AdvertisedListener("KAFKA", "10.0.0.1", 9092, SecurityProtocol.PLAINTEXT);

  private static BrokerConfig config(List<AdvertisedListener> listeners) {
    return new BrokerConfig(
        1,
        Path.of("data"),
        listeners,
        true,
        1,
        1,
        30_000,
        5_000,
        null,
        null,
        "",
        "",
        500,
        3_000,
        ReplicationConfig.DEFAULTS,
        true,
        300_000,
        1,
        null);
  }

  @Test
  void aHostAndPortAreOnePlaintextHttpListener() {
    BrokerConfig config =
        new BrokerConfig(
            1,
            Path.of("data"),
            "127.0.0.1",
            8081,
            true,
            1,
            1,
            30_000,
            5_000,
            null,
            null,
            "",
            "",
            500,
            3_000);

    assertThat(config.listeners()).containsExactly(AdvertisedListener.http("127.0.0.1", 8081));
    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isEqualTo(8081);
  }

  @Test
  void theBoundPortReplacesOnlyTheHttpListenersPort() {
    BrokerConfig bound = config(List.of(KAFKA, HTTP)).withPort(18_443);

    assertThat(bound.listeners())
        .containsExactly(
            new AdvertisedListener("HTTP", "10.0.0.1", 18_443, SecurityProtocol.SSL), KAFKA);
    assertThat(bound.port()).isEqualTo(18_443);
    assertThat(bound.httpListener().securityProtocol()).isEqualTo(SecurityProtocol.SSL);
  }

  @Test
  void aBrokerWithoutAnHttpListenerOrWithTwoOfOneNameDoesNotStart() {
    assertThatThrownBy(() -> config(List.of(KAFKA)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no HTTP listener");
    assertThatThrownBy(() -> config(List.of(HTTP, KAFKA, KAFKA)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two listeners are named KAFKA");
  }
}
