package dev.tributary.web;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.PeerUrls;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Passes a dashboard action on to the broker that must do it (the fault buttons to their target, a
 * trace to the partition's leader): a JSON POST (or a GET, to read) to its internal API with the
 * cluster secret, whose answer (status and JSON body) is relayed as it came. A broker that does not
 * answer in time is 503 50306 with a message the caller words.
 */
@Component
class InternalRelay {
  static final int NOT_ANSWERING = 50306;

  private final HttpClient http;
  private final PeerUrls urls;
  private final JsonMapper json;
  private final String secret;

  InternalRelay(
      HttpClient tributaryHttpClient, PeerUrls urls, JsonMapper json, BrokerConfig config) {
    this.http = tributaryHttpClient;
    this.urls = urls;
    this.json = json;
    this.secret = config.clusterSecret() == null ? "" : config.clusterSecret();
  }

  /**
   * @param silent the message when {@code target} does not answer, from the failure
   */
  CompletableFuture<ResponseEntity<Map<String, Object>>> post(
      BrokerImage target,
      String path,
      byte[] body,
      Duration timeout,
      Function<Throwable, String> silent) {
    return send(
        request(target, path, timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body == null ? new byte[0] : body))
            .build(),
        silent);
  }

  /** The same for a read: a GET of {@code path} on {@code target}. */
  CompletableFuture<ResponseEntity<Map<String, Object>>> get(
      BrokerImage target, String path, Duration timeout, Function<Throwable, String> silent) {
    return send(request(target, path, timeout).GET().build(), silent);
  }

  private HttpRequest.Builder request(BrokerImage target, String path, Duration timeout) {
    return HttpRequest.newBuilder(urls.uri(target.host(), target.port(), path))
        .timeout(timeout)
        .header(InternalApi.SECRET_HEADER, secret);
  }

  private CompletableFuture<ResponseEntity<Map<String, Object>>> send(
      HttpRequest request, Function<Throwable, String> silent) {
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            response -> {
              @SuppressWarnings("unchecked")
              Map<String, Object> answer = json.readValue(response.body(), Map.class);
              return ResponseEntity.status(response.statusCode())
                  .contentType(MediaType.APPLICATION_JSON)
                  .body(answer);
            })
        .exceptionally(e -> error(HttpStatus.SERVICE_UNAVAILABLE, NOT_ANSWERING, silent.apply(e)));
  }

  /** The API's error body. */
  static ResponseEntity<Map<String, Object>> error(HttpStatus status, int code, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error_code", code);
    body.put("message", message);
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
