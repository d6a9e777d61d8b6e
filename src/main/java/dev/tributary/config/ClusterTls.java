package dev.tributary.config;

import dev.tributary.metadata.ratis.RaftTls;
import dev.tributary.transport.http.PeerUrls;
import java.util.Arrays;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * The cluster's TLS, resolved once at startup from the Spring SSL bundles and handed to the core as
 * plain JDK values. Off unless the HTTP listener is on TLS; then all three parts are on together (a
 * single broker, outside any quorum, has no Raft port to protect).
 *
 * @param urls the scheme of every URL that points at a broker ({@code https} with TLS)
 * @param peerSslContext for the HTTP client that calls other brokers: trusts the peer bundle's
 *     trust store
 * @param raftTls mutual TLS for the Raft port, from the peer bundle's key and trust stores
 */
record ClusterTls(PeerUrls urls, Optional<SSLContext> peerSslContext, Optional<RaftTls> raftTls) {
  static final ClusterTls OFF = new ClusterTls(PeerUrls.PLAIN, Optional.empty(), Optional.empty());

  /**
   * @param serverBundle {@code server.ssl.bundle}, empty if unset
   * @param serverSslEnabled {@code server.ssl.enabled} (Spring's default: true)
   * @param clustered whether this broker is a member of a metadata quorum (has peers and a Raft
   *     port)
   */
  static ClusterTls resolve(
      String serverBundle,
      boolean serverSslEnabled,
      boolean clustered,
      TlsProperties properties,
      SslBundles bundles) {
    if (!listenerOnTls(serverBundle, serverSslEnabled)) {
      return OFF;
    }
    String peerBundleName =
        properties.peerBundle().isBlank() ? serverBundle : properties.peerBundle();
    SslBundle peer = bundles.getBundle(peerBundleName);
    if (!clustered) {
      // A single broker has no peers and no Raft port: only the scheme of the URLs it hands out
      // matters, and a listener certificate from a public CA needs no trust store.
      return new ClusterTls(PeerUrls.TLS, Optional.of(peer.createSslContext()), Optional.empty());
    }
    if (peer.getStores().getTrustStore() == null) {
      // Without one, the JDK's public CAs would be trusted: anyone with any public certificate
      // could join the quorum.
      throw new IllegalStateException(
          "SSL bundle '"
              + peerBundleName
              + "' has no trust store: brokers need the cluster CA to trust each other (set"
              + " spring.ssl.bundle.pem."
              + peerBundleName
              + ".truststore.certificate, or tributary.tls.peer-bundle)");
    }
    if (peer.getStores().getKeyStore() == null) {
      throw new IllegalStateException(
          "SSL bundle '"
              + peerBundleName
              + "' has no key store: a broker presents its certificate on the Raft port");
    }
    return new ClusterTls(
        PeerUrls.TLS,
        Optional.of(peer.createSslContext()),
        Optional.of(
            new RaftTls(
                only(X509KeyManager.class, peer.getManagers().getKeyManagers()),
                only(X509TrustManager.class, peer.getManagers().getTrustManagers()))));
  }

  /**
   * True when the HTTP listener is on TLS: {@code server.ssl.bundle} is set and {@code
   * server.ssl.enabled} is not false (the one switch, docs/adr/0016-tls.md).
   */
  static boolean listenerOnTls(String serverBundle, boolean serverSslEnabled) {
    return !serverBundle.isBlank() && serverSslEnabled;
  }

  private static <T> T only(Class<T> type, Object[] managers) {
    return Arrays.stream(managers)
        .filter(type::isInstance)
        .map(type::cast)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the SSL bundle has no " + type.getName()));
  }
}
