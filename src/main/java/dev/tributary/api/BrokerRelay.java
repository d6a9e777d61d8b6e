package dev.tributary.api;

import dev.tributary.auth.RequestPrincipal;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.Forwarding;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.PeerUrls;
import jakarta.servlet.http.HttpServletRequest;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * Sends a public API request on to another broker and relays its answer as it is: the one hop
 * behind reads that reached a non-leader ({@link LeaderProxy}) and calls for a consumer instance
 * that lives elsewhere ({@link ConsumerInstanceProxy}). The request keeps its method, path, query,
 * {@code Accept}, {@code Content-Type} and body, and is marked forwarded (the other broker never
 * sends it on again) with this broker's metadata offset. The answer keeps its status, body, {@code
 * Content-Type} and the headers the caller names, plus {@code X-Tributary-Served-By}. Asynchronous:
 * no thread waits on the other broker.
 */
@Component
class BrokerRelay {
  private final MetadataCache broker;
  private final BrokerConfig config;
  private final HttpClient http;
  private final PeerUrls urls;

  BrokerRelay(
      MetadataCache broker, BrokerConfig config, HttpClient tributaryHttpClient, PeerUrls urls) {
    this.config = config;
    this.urls = urls;
    this.broker = broker;
    this.http = tributaryHttpClient;
  }

  /**
   * @param answerHeaders headers of the other broker's answer to pass on, beside Content-Type
   * @param unreachable the message of the 503 50306 answered when the other broker does not answer
   */
  CompletableFuture<ResponseEntity<byte[]>> relay(
      HttpServletRequest request,
      BrokerImage target,
      byte[] body,
      List<String> answerHeaders,
      String unreachable) {
    String query = request.getQueryString() == null ? "" : "?" + request.getQueryString();
    HttpRequest.Builder out =
        HttpRequest.newBuilder(
                urls.uri(target.host(), target.port(), request.getRequestURI() + query))
            .timeout(Duration.ofSeconds(90))
            .header(Forwarding.FORWARDED_HEADER, Integer.toString(config.brokerId()))
            .header(
                Forwarding.METADATA_OFFSET_HEADER, Long.toString(broker.metadata().lastOffset()))
            .method(
                request.getMethod(),
                body == null || body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    // The other broker trusts the cluster secret and acts for the principal this broker
    // authenticated (dev.tributary.auth.CredentialsFilter); the client's own credentials stay here.
    String secret = config.clusterSecret();
    if (secret != null && !secret.isEmpty()) {
      out.header(InternalApi.SECRET_HEADER, secret);
      out.header(RequestPrincipal.ON_BEHALF_OF_HEADER, RequestPrincipal.of(request));
    }
    for (String header : List.of(HttpHeaders.ACCEPT, HttpHeaders.CONTENT_TYPE)) {
      String value = request.getHeader(header);
      if (value != null) {
        out.header(header, value);
      }
    }
    return http.sendAsync(out.build(), HttpResponse.BodyHandlers.ofByteArray())
        .exceptionally(
            failure -> {
              // Connection refused or timed out: the broker is down but not yet fenced. Retriable.
              throw new RemoteApiException(503, 50306, unreachable);
            })
        .thenApply(
            response -> {
              ResponseEntity.BodyBuilder relayed =
                  ResponseEntity.status(response.statusCode())
                      .header("X-Tributary-Served-By", Integer.toString(target.brokerId()));
              response
                  .headers()
                  .firstValue(HttpHeaders.CONTENT_TYPE)
                  .ifPresent(v -> relayed.header(HttpHeaders.CONTENT_TYPE, v));
              for (String header : answerHeaders) {
                response.headers().firstValue(header).ifPresent(v -> relayed.header(header, v));
              }
              return relayed.body(response.body());
            });
  }
}
