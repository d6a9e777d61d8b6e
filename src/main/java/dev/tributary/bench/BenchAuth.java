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
  private static final String TOKEN = System.getenv("TRIBUTARY_TOKEN");

  private BenchAuth() {}

  static HttpRequest.Builder apply(HttpRequest.Builder request) {
    return TOKEN == null || TOKEN.isBlank()
        ? request
        : request.header("Authorization", "Bearer " + TOKEN.trim());
  }

  static void apply(URLConnection connection) {
    if (TOKEN != null && !TOKEN.isBlank()) {
      connection.setRequestProperty("Authorization", "Bearer " + TOKEN.trim());
    }
  }
}
