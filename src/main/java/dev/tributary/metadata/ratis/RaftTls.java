package dev.tributary.metadata.ratis;

import java.util.Objects;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * Mutual TLS for the Raft (gRPC) port: this broker's certificate chain and private key, and the
 * cluster CA it trusts. Both ends of every Raft connection must present a certificate the other's
 * trust manager accepts, so a host without a certificate signed by the cluster CA can neither vote,
 * nor receive the log, nor submit a batch (docs/adr/0016-tls.md). Plain JDK types, so the wiring
 * can take them from any source (a Spring SSL bundle in the application, a key store in tests).
 *
 * @param keyManager presents this broker's certificate, to peers it calls and to peers that call it
 * @param trustManager decides which peers' certificates to accept (the cluster CA)
 */
public record RaftTls(X509KeyManager keyManager, X509TrustManager trustManager) {
  public RaftTls {
    Objects.requireNonNull(keyManager, "keyManager");
    Objects.requireNonNull(trustManager, "trustManager");
  }
}
