package dev.tributary.metadata.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuorumVotersTest {
  @Test
  void parsesKafkaStyleVotersSortedById() {
    Map<Integer, InetSocketAddress> voters =
        QuorumVoters.parse("3@127.0.0.1:9193, 1@127.0.0.1:9191,2@broker-2.example:9192");
    assertThat(voters.keySet()).containsExactly(1, 2, 3);
    assertThat(voters.get(1).getHostString()).isEqualTo("127.0.0.1");
    assertThat(voters.get(1).getPort()).isEqualTo(9191);
    assertThat(voters.get(2).getHostString()).isEqualTo("broker-2.example");
    assertThat(voters.get(2).isUnresolved()).as("parsing does no DNS lookup").isTrue();
  }

  @Test
  void parsesBracketedIpv6Hosts() {
    Map<Integer, InetSocketAddress> voters = QuorumVoters.parse("1@[::1]:9191");
    assertThat(voters.get(1).getHostString()).isEqualTo("::1");
    assertThat(voters.get(1).getPort()).isEqualTo(9191);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''                              | must not be empty",
        "'1@127.0.0.1:9191,'             | expected id@host:port",
        "127.0.0.1:9191                  | expected id@host:port",
        "x@127.0.0.1:9191                | id 'x' is not a number",
        "-1@127.0.0.1:9191               | must not be negative",
        "1@127.0.0.1                     | missing :port",
        "1@:9191                         | missing host",
        "1@127.0.0.1:http                | port 'http' is not a number",
        "1@127.0.0.1:0                   | outside 1-65535",
        "1@127.0.0.1:70000               | outside 1-65535",
        "1@::1:9191                      | in brackets",
        "'1@[::1:9191'                   | expected [ipv6-host]:port",
        "'1@a:1,1@b:2'                   | duplicate id 1",
        "'1@a:1,2@a:1'                   | also used by id 1",
      })
  void rejectsMalformedVotersNamingTheEntry(String text, String reason) {
    assertThatThrownBy(() -> QuorumVoters.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(reason);
  }
}
