package dev.tributary.config;

import dev.tributary.server.BrokerConfig;
import dev.tributary.transport.http.PeerUrls;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Resolves the cluster's TLS from the SSL bundles; see {@link ClusterTls}. */
@Configuration(proxyBeanMethods = false)
class TlsWiring {

  @Bean
  ClusterTls clusterTls(
      @Value("${server.ssl.bundle:}") String serverBundle,
      @Value("${server.ssl.enabled:true}") boolean serverSslEnabled,
      BrokerConfig brokerConfig,
      TlsProperties properties,
      SslBundles sslBundles) {
    return ClusterTls.resolve(
        serverBundle, serverSslEnabled, brokerConfig.clustered(), properties, sslBundles);
  }

  /** The scheme of peer URLs, for the transport, API and dashboard beans. */
  @Bean
  PeerUrls peerUrls(ClusterTls clusterTls) {
    return clusterTls.urls();
  }
}
