package dev.tributary.auth;

import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.server.BrokerServer;
import dev.tributary.transport.http.PeerUrls;
import java.net.URI;
import java.util.Locale;
import org.springframework.stereotype.Component;

/**
 * Which browser origins may open the live view's socket and call the API from a page: the cluster's
 * own brokers ({@code http://host:port}, or {@code https://} with TLS on, of every registered
 * broker), because a page served by one broker reconnects to another when its broker dies. Any
 * other site's page is refused, so it cannot drive this cluster from a visitor's browser. Used for
 * the socket, CORS, the fault actions, and every change a dashboard session cookie makes ({@link
 * CredentialsFilter}).
 */
@Component
public class ClusterOrigins {
  private final BrokerServer broker;
  private final PeerUrls urls;

  ClusterOrigins(BrokerServer broker, PeerUrls urls) {
    this.broker = broker;
    this.urls = urls;
  }

  /**
   * True if {@code origin} (an Origin header value) is the page's own {@code requestHost} (the Host
   * header), or one of the cluster's brokers. Loopback names count as one host: a page opened at
   * localhost:8081 may reconnect to the broker registered as 127.0.0.1:8082.
   */
  public boolean isAllowed(String origin, String requestHost) {
    if (origin == null) {
      return true; // not a browser page (curl, another broker): nothing cross-site to guard against
    }
    URI uri;
    try {
      uri = URI.create(origin);
    } catch (IllegalArgumentException e) {
      return false;
    }
    // The cluster's own pages come over the cluster's scheme: an http page is not ours when TLS is
    // on.
    if (uri.getHost() == null || !urls.scheme().equals(uri.getScheme())) {
      return false;
    }
    String host = canonical(uri.getHost());
    int port = uri.getPort() < 0 ? urls.defaultPort() : uri.getPort();
    String requestHostPort = requestHost == null ? null : canonicalHostPort(requestHost);
    if ((host + ":" + port).equals(requestHostPort)) {
      return true;
    }
    // The page reached this broker by the same host name as its own broker, on another broker's
    // port: in Docker
    // the brokers register as broker1..3 but the browser knows them all as 127.0.0.1:808N.
    boolean sameHostAsRequest = requestHostPort != null && requestHostPort.startsWith(host + ":");
    if (port == broker.config().port() && host.equals(canonical(broker.config().host()))) {
      return true;
    }
    try {
      return broker.metadata().brokers().values().stream()
          .anyMatch(
              b -> b.port() == port && (sameHostAsRequest || canonical(b.host()).equals(host)));
    } catch (BrokerNotAvailableException e) {
      return false;
    }
  }

  private String canonicalHostPort(String hostHeader) {
    int colon = hostHeader.lastIndexOf(':');
    if (colon < 0 || hostHeader.endsWith("]")) {
      return canonical(hostHeader) + ":" + urls.defaultPort();
    }
    return canonical(hostHeader.substring(0, colon)) + ":" + hostHeader.substring(colon + 1);
  }

  private static String canonical(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.equals("localhost") || h.equals("::1") || h.startsWith("127.") ? "loopback" : h;
  }
}
