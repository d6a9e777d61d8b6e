package dev.tributary.api;

import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.RemoteApiException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerServer;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/**
 * Sends a read that reached a broker which does not lead the partition on to the leader, and relays
 * the answer as it is (status, content type, body, plus {@code X-Tributary-Served-By}). Only one
 * hop: a request that was already forwarded gets the NOT_LEADER error instead, so a stale view on
 * two brokers cannot make a loop.
 */
@Component
class LeaderProxy {
  private final BrokerServer broker;
  private final HttpClient http;

  LeaderProxy(BrokerServer broker, HttpClient tributaryHttpClient) {
    this.broker = broker;
    this.http = tributaryHttpClient;
  }

  CompletableFuture<ResponseEntity<byte[]>> forward(
      HttpServletRequest request, NotLeaderOrFollowerException notLeader) {
    if (request.getHeader(Forwarding.FORWARDED_HEADER) != null || notLeader.leaderId().isEmpty()) {
      throw notLeader;
    }
    BrokerImage leader = broker.metadata().brokers().get(notLeader.leaderId().getAsInt());
    if (leader == null) {
      throw notLeader;
    }
    String query = request.getQueryString() == null ? "" : "?" + request.getQueryString();
    HttpRequest.Builder out =
        HttpRequest.newBuilder(
                URI.create(
                    "http://"
                        + leader.host()
                        + ":"
                        + leader.port()
                        + request.getRequestURI()
                        + query))
            .timeout(Duration.ofSeconds(90))
            .header(Forwarding.FORWARDED_HEADER, Integer.toString(broker.config().brokerId()))
            .header(
                Forwarding.METADATA_OFFSET_HEADER,
                Long.toString(broker.replicaManager().metadataOffset()))
            .GET();
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    if (accept != null) {
      out.header(HttpHeaders.ACCEPT, accept);
    }
    return http.sendAsync(out.build(), HttpResponse.BodyHandlers.ofByteArray())
        .exceptionally(
            failure -> {
              // Connection refused or timed out: the leader is down but not yet fenced. Retriable.
              throw new RemoteApiException(
                  503,
                  50306,
                  "Broker "
                      + leader.brokerId()
                      + " leads this partition but did not answer; retry shortly");
            })
        .thenApply(
            response -> {
              ResponseEntity.BodyBuilder relayed =
                  ResponseEntity.status(response.statusCode())
                      .header("X-Tributary-Served-By", Integer.toString(leader.brokerId()));
              response
                  .headers()
                  .firstValue(HttpHeaders.CONTENT_TYPE)
                  .ifPresent(t -> relayed.header(HttpHeaders.CONTENT_TYPE, t));
              response
                  .headers()
                  .firstValue("X-Tributary-High-Watermark")
                  .ifPresent(hw -> relayed.header("X-Tributary-High-Watermark", hw));
              return relayed.body(response.body());
            });
  }
}
