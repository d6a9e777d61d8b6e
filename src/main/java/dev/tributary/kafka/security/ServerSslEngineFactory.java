package dev.tributary.kafka.security;

import java.security.KeyStore;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import org.apache.kafka.common.security.auth.SslEngineFactory;

/**
 * kafka-clients' SSL engines from the {@link ServerTls} the configuration resolved from the HTTP
 * listener's SSL bundle, instead of kafka-clients' own key store files ({@code ssl.keystore.*}):
 * one certificate configuration for both listeners, PEM or key store alike. Server side only, no
 * client certificate asked for; never rebuilt (certificates are read at startup, as for HTTP).
 *
 * <p>Made by class name ({@code ssl.engine.factory.class}); the {@link ServerTls} comes in the
 * configs under {@link ListenerChannels#TLS_CONFIG}.
 */
public final class ServerSslEngineFactory implements SslEngineFactory {
  private ServerTls tls;

  /** For kafka-clients, which makes it by name and then calls {@link #configure}. */
  public ServerSslEngineFactory() {}

  @Override
  public void configure(Map<String, ?> configs) {
    tls = ListenerChannels.serverTls(configs);
  }

  @Override
  public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
    Objects.requireNonNull(tls, "not configured");
    SSLEngine engine = tls.context().createSSLEngine(peerHost, peerPort);
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(false);
    if (!tls.enabledProtocols().isEmpty()) {
      engine.setEnabledProtocols(tls.enabledProtocols().toArray(String[]::new));
    }
    if (!tls.cipherSuites().isEmpty()) {
      engine.setEnabledCipherSuites(tls.cipherSuites().toArray(String[]::new));
    }
    return engine;
  }

  /** The listener accepts connections; it opens none. */
  @Override
  public SSLEngine createClientSslEngine(
      String peerHost, int peerPort, String endpointIdentification) {
    throw new UnsupportedOperationException("the Kafka listener's TLS is server side only");
  }

  @Override
  public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
    return false;
  }

  @Override
  public Set<String> reconfigurableConfigs() {
    return Set.of();
  }

  /** Unknown here: the bundle's stores stay in the configuration; kafka-clients only logs them. */
  @Override
  public KeyStore keystore() {
    return null;
  }

  @Override
  public KeyStore truststore() {
    return null;
  }

  @Override
  public void close() {}
}
