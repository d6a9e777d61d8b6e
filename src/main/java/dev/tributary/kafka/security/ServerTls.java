package dev.tributary.kafka.security;

import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The Kafka listener's TLS as plain JDK values: the context of the HTTP listener's SSL bundle
 * ({@code server.ssl.bundle}, resolved by the configuration), and the bundle's protocol and cipher
 * restrictions. No client certificate is asked for: on the Kafka listener, as on HTTP, clients
 * authenticate with an API key (SASL/PLAIN), not a certificate.
 *
 * @param context holds the listener's certificate and key
 * @param enabledProtocols e.g. {@code TLSv1.3}; empty: the JDK's defaults
 * @param cipherSuites empty: the JDK's defaults
 */
public record ServerTls(
    SSLContext context, List<String> enabledProtocols, List<String> cipherSuites) {
  public ServerTls {
    Objects.requireNonNull(context, "context");
    enabledProtocols = List.copyOf(enabledProtocols);
    cipherSuites = List.copyOf(cipherSuites);
  }
}
