package dev.tributary.kafka.security;

import dev.tributary.metadata.AdvertisedListener.SecurityProtocol;
import dev.tributary.security.Authorizer;
import java.util.Optional;

/**
 * How the Kafka listener authenticates clients and protects the connection, and so which of Kafka's
 * security protocols it speaks: SASL/PLAIN with the broker's API keys when client authentication is
 * on ({@code tributary.security.enabled}), TLS when the HTTP listener is on TLS ({@code
 * server.ssl.bundle}). The broker registers the same protocol for the listener ({@link
 * #protocolFor}), so clients are told what they must speak.
 *
 * @param apiKeys checks SASL/PLAIN credentials (user name: the key id, password: its secret) and
 *     names each key's principal; empty: no authentication, every client is {@code User:ANONYMOUS}
 * @param tls the listener's TLS; empty: none
 */
public record ListenerSecurity(Optional<Authorizer> apiKeys, Optional<ServerTls> tls) {
  /** No authentication, no TLS: a broker with security off and no SSL bundle. */
  public static final ListenerSecurity PLAINTEXT =
      new ListenerSecurity(Optional.empty(), Optional.empty());

  /**
   * The protocol of a listener that authenticates clients or not, with TLS or not: PLAINTEXT, SSL,
   * SASL_PLAINTEXT or SASL_SSL. The one rule, for the listener and for the registration alike.
   */
  public static SecurityProtocol protocolFor(boolean authenticated, boolean tls) {
    if (authenticated) {
      return tls ? SecurityProtocol.SASL_SSL : SecurityProtocol.SASL_PLAINTEXT;
    }
    return tls ? SecurityProtocol.SSL : SecurityProtocol.PLAINTEXT;
  }

  public SecurityProtocol protocol() {
    return protocolFor(apiKeys.isPresent(), tls.isPresent());
  }
}
