package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class ListenerAddressesTest {

  private static final String HOSTS_VOTERS =
      "1@198.18.0.1:9191,2@198.18.0.2:9192,3@198.18.0.3:9193";

  private static TributaryProperties properties(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put("tributary." + keyValues[i], keyValues[i + 1]);
    }
    return new Binder(new MapConfigurationPropertySource(map))
        .bindOrCreate("tributary", TributaryProperties.class);
  }

  @Test
  void aBrokerOnLoopbackAdvertisesAndBindsLoopback() {
    ListenerAddresses addresses = ListenerAddresses.resolve(properties(), "127.0.0.1");

    assertThat(addresses.advertisedHost()).isEqualTo("127.0.0.1");
    assertThat(addresses.kafkaBindHost()).isEqualTo("127.0.0.1");
  }

  @Test
  void aBrokerOnItsOwnAddressAdvertisesAndBindsItsKafkaListenerThere() {
    ListenerAddresses addresses =
        ListenerAddresses.resolve(
            properties("broker-id", "2", "controller.quorum-voters", HOSTS_VOTERS), "198.18.0.2");

    assertThat(addresses.advertisedHost()).isEqualTo("198.18.0.2");
    assertThat(addresses.kafkaBindHost()).isEqualTo("198.18.0.2");
  }

  @Test
  void explicitSettingsWinOverServerAddress() {
    ListenerAddresses addresses =
        ListenerAddresses.resolve(
            properties("advertised-host", "broker1", "kafka.host", "0.0.0.0"), "0.0.0.0");

    assertThat(addresses.advertisedHost()).isEqualTo("broker1");
    assertThat(addresses.kafkaBindHost()).isEqualTo("0.0.0.0");
  }

  @Test
  void aWildcardServerAddressLeavesTheAdvertisedHostOnLoopbackForAOneHostCluster() {
    ListenerAddresses addresses =
        ListenerAddresses.resolve(
            properties("controller.quorum-voters", "1@127.0.0.1:9191,2@localhost:9192"), "0.0.0.0");

    assertThat(addresses.advertisedHost()).isEqualTo("127.0.0.1");
    assertThat(addresses.kafkaBindHost()).isEqualTo("0.0.0.0");
  }

  @Test
  void aLoopbackAdvertisedHostInAQuorumOnOtherHostsIsRefusedNamingTheSetting() {
    assertThatThrownBy(
            () ->
                ListenerAddresses.resolve(
                    properties("broker-id", "1", "controller.quorum-voters", HOSTS_VOTERS),
                    "127.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tributary.advertised-host is 127.0.0.1 (loopback)")
        .hasMessageContaining("broker 2")
        .hasMessageContaining("198.18.0.2");
  }

  @Test
  void aLoopbackAdvertisedHostIsRefusedWhenOnlyANonVotingListenerIsElsewhere() {
    assertThatThrownBy(
            () ->
                ListenerAddresses.resolve(
                    properties(
                        "broker-id", "1",
                        "controller.quorum-voters", "1@127.0.0.1:9191",
                        "controller.quorum-listeners", "4@[fd00::4]:9194"),
                    ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("broker 4")
        .hasMessageContaining("fd00::4");
  }

  @Test
  void aWildcardAdvertisedHostIsRefused() {
    assertThatThrownBy(
            () -> ListenerAddresses.resolve(properties("advertised-host", "0.0.0.0"), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tributary.advertised-host is 0.0.0.0");
  }

  @Test
  void loopbackAndWildcardAreToldByTheirWrittenForm() {
    assertThat(ListenerAddresses.isLoopback("127.0.0.2")).isTrue();
    assertThat(ListenerAddresses.isLoopback("LOCALHOST")).isTrue();
    assertThat(ListenerAddresses.isLoopback("[::1]")).isTrue();
    assertThat(ListenerAddresses.isLoopback("198.18.0.1")).isFalse();
    assertThat(ListenerAddresses.isLoopback("broker1")).isFalse();
    assertThat(ListenerAddresses.isWildcard("[::]")).isTrue();
    assertThat(ListenerAddresses.isWildcard("127.0.0.1")).isFalse();
  }
}
