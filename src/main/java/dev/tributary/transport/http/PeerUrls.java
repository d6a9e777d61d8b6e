package dev.tributary.transport.http;

import java.net.URI;

/**
 * How a broker addresses another broker's HTTP listener: the one place that knows the scheme. Every
 * call to a peer (controller calls, replica fetch, forwarding, group coordinator, dashboard
 * fan-out) and every URL handed to a client that points at a broker is built here, so turning TLS
 * on changes them all at once. Brokers register only host and port in the metadata; the scheme is
 * the same cluster-wide because every broker's listener is configured alike (docs/adr/0016-tls.md).
 *
 * @param scheme {@code http} or {@code https}
 */
public record PeerUrls(String scheme) {
  /** Plain HTTP, the default. */
  public static final PeerUrls PLAIN = new PeerUrls("http");

  /** HTTPS: the listener is on TLS ({@code server.ssl.bundle}). */
  public static final PeerUrls TLS = new PeerUrls("https");

  public PeerUrls {
    if (!"http".equals(scheme) && !"https".equals(scheme)) {
      throw new IllegalArgumentException("scheme must be http or https: " + scheme);
    }
  }

  public static PeerUrls of(boolean tls) {
    return tls ? TLS : PLAIN;
  }

  public boolean tls() {
    return "https".equals(scheme);
  }

  /** The port a browser or client assumes when a URL of this scheme names none. */
  public int defaultPort() {
    return tls() ? 443 : 80;
  }

  /** {@code scheme://host:port}, no trailing slash. */
  public String base(String host, int port) {
    return scheme + "://" + host + ":" + port;
  }

  /**
   * {@code scheme://host:port} followed by {@code pathAndQuery}, which starts with {@code /} and is
   * already encoded.
   */
  public URI uri(String host, int port, String pathAndQuery) {
    return URI.create(base(host, port) + pathAndQuery);
  }
}
