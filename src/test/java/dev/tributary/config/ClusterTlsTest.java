package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.transport.http.PeerUrls;
import java.security.KeyStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslStoreBundle;

/** Which settings turn the cluster's TLS on, and which bundles it refuses. */
class ClusterTlsTest {
  private static final TlsProperties DEFAULTS = new TlsProperties("");

  @Test
  void withoutAServerBundleEverythingStaysPlaintext() {
    ClusterTls tls = ClusterTls.resolve("", true, true, DEFAULTS, new DefaultSslBundleRegistry());
    assertThat(tls).isEqualTo(ClusterTls.OFF);
    assertThat(tls.urls()).isEqualTo(PeerUrls.PLAIN);
  }

  @Test
  void serverSslDisabledKeepsEverythingPlaintextWhateverTheBundle() {
    assertThat(ClusterTls.resolve("cluster", false, true, DEFAULTS, new DefaultSslBundleRegistry()))
        .isEqualTo(ClusterTls.OFF);
  }

  @Test
  void aBundleWithoutATrustStoreIsRefusedRatherThanTrustingThePublicCas() throws Exception {
    DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry();
    bundles.registerBundle("cluster", keyStoreOnly());
    assertThatThrownBy(() -> ClusterTls.resolve("cluster", true, true, DEFAULTS, bundles))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'cluster' has no trust store")
        .hasMessageContaining("spring.ssl.bundle.pem.cluster.truststore.certificate");
  }

  @Test
  void thePeerBundleWhenSetIsTheOneBrokersUseTowardsEachOther() throws Exception {
    DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry();
    bundles.registerBundle("web", keyStoreOnly());
    bundles.registerBundle("peers", keyStoreOnly());
    assertThatThrownBy(
            () -> ClusterTls.resolve("web", true, true, new TlsProperties("peers"), bundles))
        .hasMessageContaining("'peers' has no trust store");
  }

  @Test
  void aSingleBrokerOnTlsNeedsNoTrustStoreAndHasNoRaftPort() throws Exception {
    DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry();
    bundles.registerBundle("public", keyStoreOnly());
    ClusterTls tls = ClusterTls.resolve("public", true, false, DEFAULTS, bundles);
    assertThat(tls.urls()).isEqualTo(PeerUrls.TLS);
    assertThat(tls.peerSslContext()).isPresent();
    assertThat(tls.raftTls()).isEmpty();
  }

  private static SslBundle keyStoreOnly() throws Exception {
    KeyStore empty = KeyStore.getInstance("PKCS12");
    empty.load(null, null);
    return SslBundle.of(SslStoreBundle.of(empty, "", null));
  }
}
