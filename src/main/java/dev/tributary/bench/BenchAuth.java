package dev.tributary.bench;

import java.net.URLConnection;
import java.net.http.HttpRequest;

/**
 * The API key the load generator sends when the cluster has client authentication on: the
 * environment variable {@code TRIBUTARY_TOKEN} ({@code <key_id>.<secret>}), as a bearer token on
 * every request. An environment variable rather than an option, so the secret stays out of {@code
 * ps} and shell history.
 */
final class BenchAuth {
  /** The {@code Authorization} header's value, or {@code null} when no token is set. */
  private static final String AUTHORIZATION = bearer(System.getenv("TRIBUTARY_TOKEN"));

  private BenchAuth() {}

  static HttpRequest.Builder apply(HttpRequest.Builder request) {
    return AUTHORIZATION == null ? request : request.header("Authorization", AUTHORIZATION);
  }

  static void apply(URLConnection connection) {
    if (AUTHORIZATION != null) {
      connection.setRequestProperty("Authorization", AUTHORIZATION);
    }
  }

  private static String bearer(String token) {
    return token == null || token.isBlank() ? null : "Bearer " + token.trim();
  }
}
