package dev.tributary.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * HTTP to the brokers, as any user would: the JDK's client, with the admin API key as a bearer
 * token when client authentication is on. The key comes from {@code TRIBUTARY_TOKEN} (as for {@code
 * ./tributary bench}), else from {@code DATA/admin-api-key}, the file {@code ./tributary start
 * --secure} writes.
 */
final class DemoHttp {
  static final JsonMapper JSON = JsonMapper.builder().build();
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);

  /** One answer: status, body text, and the headers the demos read. */
  record Response(int status, String body, HttpResponseHeaders headers) {
    JsonNode json() {
      return JSON.readTree(body.isEmpty() ? "null" : body);
    }

    boolean ok() {
      return status / 100 == 2;
    }

    /** The body abbreviated, for an error message. */
    String brief() {
      String oneLine = body.replaceAll("\\s+", " ").trim();
      return "HTTP "
          + status
          + " "
          + (oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300));
    }
  }

  /** The response headers, by lower-case name. */
  record HttpResponseHeaders(Map<String, java.util.List<String>> map) {
    Optional<String> first(String name) {
      return map.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .flatMap(e -> e.getValue().stream())
          .findFirst();
    }
  }

  private final HttpClient client;
  private final String token;

  DemoHttp(String token) {
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    this.token = token == null || token.isBlank() ? null : token.trim();
  }

  /**
   * The API key to send: {@code TRIBUTARY_TOKEN}, else {@code dataDir/admin-api-key}, else none.
   */
  static String token(Map<String, String> env, Path dataDir) {
    String fromEnv = env.get("TRIBUTARY_TOKEN");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv.trim();
    }
    if (dataDir != null) {
      Path file = dataDir.resolve("admin-api-key");
      try {
        return Files.isReadable(file) ? Files.readString(file).trim() : null;
      } catch (IOException e) {
        throw new DemoException("cannot read the admin API key " + file + ": " + e.getMessage());
      }
    }
    return null;
  }

  Response get(URI uri, String accept) throws IOException, InterruptedException {
    return send("GET", uri, null, null, accept, DEFAULT_TIMEOUT);
  }

  Response send(
      String method, URI uri, String contentType, String body, String accept, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (accept != null) {
      request.header("Accept", accept);
    }
    if (body != null) {
      request.header("Content-Type", contentType);
      request.method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response =
        client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(
        response.statusCode(), response.body(), new HttpResponseHeaders(response.headers().map()));
  }
}
