package dev.tributary.config;

import dev.tributary.kafka.security.ListenerSecurity;
import dev.tributary.kafka.security.ServerTls;
import dev.tributary.security.Authorizer;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Kafka listener's security, from the broker's own settings (no {@code tributary.kafka.*} of
 * its own): SASL/PLAIN with the broker's API keys when {@code tributary.security.enabled}, and TLS
 * from the HTTP listener's SSL bundle ({@code server.ssl.bundle}) when HTTP is on TLS. So the
 * listener is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, and the registration says the same
 * ({@link BrokerWiring#advertisedListeners}).
 */
@Configuration(proxyBeanMethods = false)
class KafkaSecurityWiring {

  @Bean
  ListenerSecurity kafkaListenerSecurity(
      @Value("${tributary.security.enabled:true}") boolean securityEnabled,
      @Value("${server.ssl.bundle:}") String serverBundle,
      @Value("${server.ssl.enabled:true}") boolean serverSslEnabled,
      Authorizer authorizer,
      SslBundles sslBundles) {
    Optional<ServerTls> tls =
        ClusterTls.listenerOnTls(serverBundle, serverSslEnabled)
            ? Optional.of(serverTls(sslBundles.getBundle(serverBundle)))
            : Optional.empty();
    return new ListenerSecurity(securityEnabled ? Optional.of(authorizer) : Optional.empty(), tls);
  }

  /** The bundle as the Kafka listener takes it: its context, protocols and ciphers. */
  static ServerTls serverTls(SslBundle bundle) {
    SslOptions options = bundle.getOptions();
    return new ServerTls(
        bundle.createSslContext(),
        listOf(options.getEnabledProtocols()),
        listOf(options.getCiphers()));
  }

  private static List<String> listOf(String[] values) {
    return values == null ? List.of() : List.of(values);
  }
}
