package dev.tributary.api;

import dev.tributary.consumer.ConsumerInstanceNotFoundException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.GroupServices;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.Forwarding;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.PeerUrls;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Sends a call for a consumer instance that lives on another broker to that broker and relays the
 * answer (status, content type, body, plus {@code X-Tributary-Served-By}): a client that lost track
 * of {@code base_uri} (or a load balancer in front of the cluster) still reaches its instance. The
 * owner is found by asking the other live brokers, then remembered. One hop only: a forwarded call
 * for an instance that is not here is 404 40403.
 */
@Component
class ConsumerInstanceProxy {
  static final String WHERE = "/internal/v1/consumer/instances/{group}/{instance}";

  private final MetadataCache broker;
  private final BrokerConfig config;
  private final HttpClient http;
  private final PeerUrls urls;
  private final BrokerRelay relay;

  /** Where instances were last found; bounded (least recently found evicted first). */
  private final Map<String, Integer> owners =
      java.util.Collections.synchronizedMap(
          new java.util.LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
              return size() > 10_000;
            }
          });

  ConsumerInstanceProxy(
      MetadataCache broker,
      BrokerConfig config,
      HttpClient tributaryHttpClient,
      PeerUrls urls,
      BrokerRelay relay) {
    this.broker = broker;
    this.config = config;
    this.urls = urls;
    this.http = tributaryHttpClient;
    this.relay = relay;
  }

  CompletableFuture<ResponseEntity<?>> forward(
      HttpServletRequest request, String group, String instance, byte[] body) {
    ConsumerInstanceNotFoundException notHere =
        new ConsumerInstanceNotFoundException(
            "Consumer instance '"
                + instance
                + "' not found in group '"
                + group
                + "' (on any broker)");
    if (request.getHeader(Forwarding.FORWARDED_HEADER) != null) {
      throw new ConsumerInstanceNotFoundException(
          "Consumer instance '"
              + instance
              + "' not found in group '"
              + group
              + "' on broker "
              + config.brokerId());
    }
    String key = group + "\u0000" + instance;
    Integer cached = owners.get(key);
    if (cached != null) {
      // A remembered owner that is gone (its broker died, and the instance with it) is forgotten,
      // and the instance looked for again: the client gets 404 and knows to create it anew.
      return send(request, cached, body)
          .handle(
              (answer, failure) -> {
                if (failure == null && answer.getStatusCode().value() != 404) {
                  return CompletableFuture.<ResponseEntity<?>>completedFuture(answer);
                }
                owners.remove(key, cached);
                return locateAndSend(request, group, instance, body, key, notHere);
              })
          .thenCompose(f -> f);
    }
    return locateAndSend(request, group, instance, body, key, notHere);
  }

  private CompletableFuture<ResponseEntity<?>> locateAndSend(
      HttpServletRequest request,
      String group,
      String instance,
      byte[] body,
      String key,
      ConsumerInstanceNotFoundException notHere) {
    return locate(group, instance)
        .thenCompose(
            brokerId -> {
              if (brokerId == null) {
                throw notHere;
              }
              owners.put(key, brokerId);
              return send(request, brokerId, body);
            });
  }

  /** Asks every other live broker whether it holds the instance; the first yes wins. */
  private CompletableFuture<Integer> locate(String group, String instance) {
    List<CompletableFuture<Integer>> asks = new ArrayList<>();
    for (BrokerImage b : broker.metadata().brokers().values()) {
      if (b.brokerId() == config.brokerId() || b.fenced()) {
        continue;
      }
      HttpRequest ask =
          HttpRequest.newBuilder(
                  urls.uri(
                      b.host(),
                      b.port(),
                      "/internal/v1/consumer/instances/" + encode(group) + "/" + encode(instance)))
              .timeout(Duration.ofSeconds(2))
              .header(InternalApi.SECRET_HEADER, secret())
              .GET()
              .build();
      asks.add(
          http.sendAsync(ask, HttpResponse.BodyHandlers.discarding())
              .handle((r, e) -> e == null && r.statusCode() == 200 ? b.brokerId() : null));
    }
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored ->
                asks.stream()
                    .map(CompletableFuture::join)
                    .filter(id -> id != null)
                    .findFirst()
                    .orElse(null));
  }

  private CompletableFuture<ResponseEntity<?>> send(
      HttpServletRequest request, int brokerId, byte[] body) {
    BrokerImage target = broker.metadata().brokers().get(brokerId);
    if (target == null) {
      throw new ConsumerInstanceNotFoundException(
          "Broker " + brokerId + " held the instance but is no longer registered");
    }
    return relay
        .relay(
            request,
            target,
            body,
            List.of(ConsumersV2Controller.GENERATION_HEADER),
            "Broker "
                + brokerId
                + " holds this consumer instance but did not answer; retry shortly")
        .thenApply(answer -> answer);
  }

  private String secret() {
    String secret = config.clusterSecret();
    return secret == null ? "" : secret;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The other brokers' question: does this broker hold the instance? */
  @RestController
  static class Where {
    private final GroupServices groups;

    Where(GroupServices groups) {
      this.groups = groups;
    }

    @GetMapping(WHERE)
    ResponseEntity<Void> where(@PathVariable String group, @PathVariable String instance) {
      return groups.consumers().has(group, instance)
          ? ResponseEntity.ok().build()
          : ResponseEntity.notFound().build();
    }
  }
}
