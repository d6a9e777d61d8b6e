package dev.tributary.transport.http;

import dev.tributary.server.BrokerLoadReport;
import dev.tributary.server.ControllerChannel.Endpoint;
import dev.tributary.server.PeerLoads;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks a broker for its load at its internal endpoint ({@value InternalApi#BROKER_LOAD}, JSON:
 * {@link BrokerLoadWire}) with the cluster secret, as {@link HttpPartitionForwarder} forwards a
 * produce. Asynchronous: no thread waits for the answer; anything but a 200 with a well-formed
 * answer fails the future.
 */
public final class HttpPeerLoads implements PeerLoads {
  private final HttpClient http;
  private final PeerUrls urls;
  private final IntFunction<Optional<Endpoint>> endpoints;
  private final JsonMapper json;
  private final Duration timeout;
  private final String secret;

  /**
   * @param endpoints where each broker serves
   * @param timeout how long one call may take (the balancer gives up on a broker sooner)
   */
  public HttpPeerLoads(
      HttpClient http,
      PeerUrls urls,
      IntFunction<Optional<Endpoint>> endpoints,
      JsonMapper json,
      Duration timeout,
      String secret) {
    this.http = http;
    this.urls = urls;
    this.endpoints = endpoints;
    this.json = json;
    this.timeout = timeout;
    this.secret = secret == null ? "" : secret;
  }

  @Override
  public CompletableFuture<BrokerLoadReport> load(int brokerId) {
    Optional<Endpoint> peer = endpoints.apply(brokerId);
    if (peer.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IOException("broker " + brokerId + "'s address is not known here"));
    }
    HttpRequest request;
    try {
      request =
          HttpRequest.newBuilder(
                  urls.uri(peer.get().host(), peer.get().port(), InternalApi.BROKER_LOAD))
              .timeout(timeout)
              .header("Accept", "application/json")
              .header(InternalApi.SECRET_HEADER, secret)
              .GET()
              .build();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IOException("broker " + brokerId + "'s address cannot be used: " + e.getMessage()));
    }
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            response -> {
              if (response.statusCode() != 200) {
                throw new IllegalStateException(
                    "broker " + brokerId + " answered HTTP " + response.statusCode());
              }
              return BrokerLoadWire.report(
                  json.readValue(response.body(), BrokerLoadWire.Answer.class));
            });
  }
}
