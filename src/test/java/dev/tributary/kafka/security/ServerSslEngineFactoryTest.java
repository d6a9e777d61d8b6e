package dev.tributary.kafka.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** kafka-clients' SSL engines from the listener's context, with the bundle's restrictions. */
class ServerSslEngineFactoryTest {

  private static ServerSslEngineFactory factory(ServerTls tls) {
    ServerSslEngineFactory factory = new ServerSslEngineFactory();
    factory.configure(Map.of(ListenerChannels.TLS_CONFIG, tls));
    return factory;
  }

  @Test
  void serverEnginesAskForNoClientCertificateAndKeepTheBundlesProtocolsAndCiphers()
      throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, null, null);
    String cipher = "TLS_AES_128_GCM_SHA256";

    SSLEngine engine =
        factory(new ServerTls(context, List.of("TLSv1.3"), List.of(cipher)))
            .createServerSslEngine("127.0.0.1", 40000);

    assertThat(engine.getUseClientMode()).isFalse();
    assertThat(engine.getNeedClientAuth()).isFalse();
    assertThat(engine.getWantClientAuth()).isFalse();
    assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.3");
    assertThat(engine.getEnabledCipherSuites()).containsExactly(cipher);
    assertThat(engine.getPeerHost()).isEqualTo("127.0.0.1");
  }

  @Test
  void withoutRestrictionsTheContextsDefaultsStay() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, null, null);

    SSLEngine engine =
        factory(new ServerTls(context, List.of(), List.of())).createServerSslEngine("h", 1);

    assertThat(engine.getEnabledProtocols())
        .containsExactlyInAnyOrder(context.getDefaultSSLParameters().getProtocols());
  }

  @Test
  void itMakesNoClientEnginesAndIsNeverRebuilt() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, null, null);
    ServerSslEngineFactory factory = factory(new ServerTls(context, List.of(), List.of()));

    assertThatThrownBy(() -> factory.createClientSslEngine("h", 1, "https"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(factory.shouldBeRebuilt(Map.of())).isFalse();
    assertThat(factory.reconfigurableConfigs()).isEmpty();
  }

  @Test
  void configuringWithoutTheListenersTlsFails() {
    assertThatThrownBy(() -> new ServerSslEngineFactory().configure(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ListenerChannels.TLS_CONFIG);
  }
}
