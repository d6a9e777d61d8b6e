package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.server.ControllerChannel.Endpoint;
import dev.tributary.server.PartitionForwarder;
import dev.tributary.server.RequestContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Forwards a produce's batches to their leader's internal produce endpoint ({@value
 * InternalApi#PRODUCE}) as batch bytes ({@link ProduceCodec}), with the cluster secret and the
 * client's principal: the leader appends the same bytes and answers per partition with Kafka's
 * error codes, and never forwards again. Asynchronous: no thread waits for the leader's answer.
 */
public final class HttpPartitionForwarder implements PartitionForwarder {
  private final HttpClient http;
  private final PeerUrls urls;
  private final IntFunction<Optional<Endpoint>> endpoints;
  private final Duration extraTimeout;
  private final LongSupplier metadataOffset;
  private final String secret;

  /**
   * @param endpoints where each broker serves
   * @param extraTimeout how much longer than the produce's own timeout to wait for the leader
   * @param metadataOffset this broker's applied metadata offset, sent along so the leader first
   *     catches up to it
   */
  public HttpPartitionForwarder(
      HttpClient http,
      PeerUrls urls,
      IntFunction<Optional<Endpoint>> endpoints,
      Duration extraTimeout,
      LongSupplier metadataOffset,
      String secret) {
    this.http = http;
    this.urls = urls;
    this.endpoints = endpoints;
    this.extraTimeout = extraTimeout;
    this.metadataOffset = metadataOffset;
    this.secret = secret == null ? "" : secret;
  }

  @Override
  public CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forward(
      int leaderId,
      Map<TopicPartition, ByteBuffer> batches,
      Acks acks,
      long timeoutMs,
      RequestContext context) {
    Optional<Endpoint> leader = endpoints.apply(leaderId);
    if (leader.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IOException("broker " + leaderId + "'s address is not known here"));
    }
    byte[] body =
        ProduceCodec.encode(
            new ProduceCodec.Request(
                acks,
                (int) Math.min(Integer.MAX_VALUE, timeoutMs),
                metadataOffset.getAsLong(),
                context.principal(),
                context.clientAddress(),
                batches));
    HttpRequest request;
    try {
      URI uri = urls.uri(leader.get().host(), leader.get().port(), InternalApi.PRODUCE);
      request =
          HttpRequest.newBuilder(uri)
              .timeout(Duration.ofMillis(timeoutMs).plus(extraTimeout))
              .header("Content-Type", InternalApi.PRODUCE_MEDIA_TYPE)
              .header(InternalApi.SECRET_HEADER, secret)
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
    } catch (IllegalArgumentException e) {
      // an address java.net.http will not use (a host name with '_'): this leader's partitions
      // fail, as if it were unreachable; the rest of the request goes on
      return CompletableFuture.failedFuture(
          new IOException("broker " + leaderId + "'s address cannot be used: " + e.getMessage()));
    }
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(response -> results(leaderId, response));
  }

  private static Map<TopicPartition, ProducePartitionResult> results(
      int leaderId, HttpResponse<byte[]> response) {
    if (response.statusCode() != 200) {
      // The leader refused the request as a whole (not serving yet, a bad secret): per partition,
      // the caller reports it as unreachable and the client retries.
      throw new IllegalStateException(
          "broker " + leaderId + " answered HTTP " + response.statusCode());
    }
    return ProduceCodec.decodeResponse(ByteBuffer.wrap(response.body()));
  }
}
