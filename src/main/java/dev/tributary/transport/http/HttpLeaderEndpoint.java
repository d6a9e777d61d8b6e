package dev.tributary.transport.http;

import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.server.ControllerChannel;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * {@link LeaderEndpoint} over HTTP: binary bodies ({@link ReplicaFetchCodec}) to the leader's
 * {@code /internal/v1/replica} endpoints, with the cluster secret. One HTTP/1.1 connection per
 * fetcher is kept alive by the client's pool, so a follower holds about one connection per leader.
 */
public final class HttpLeaderEndpoint implements LeaderEndpoint {
  private final HttpClient http;
  private final PeerUrls urls;
  private final String secret;
  private final IntFunction<Optional<ControllerChannel.Endpoint>> brokers;

  /**
   * @param brokers where each broker serves HTTP, from the metadata image
   */
  public HttpLeaderEndpoint(
      HttpClient http,
      PeerUrls urls,
      String secret,
      IntFunction<Optional<ControllerChannel.Endpoint>> brokers) {
    this.http = http;
    this.urls = urls;
    this.secret = secret;
    this.brokers = brokers;
  }

  @Override
  public ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request)
      throws IOException {
    byte[] body =
        call(
            leaderId,
            InternalApi.REPLICA_FETCH,
            ReplicaFetchCodec.encode(request),
            Duration.ofMillis(request.maxWaitMs() + 5_000L));
    return decode(() -> ReplicaFetchCodec.decodeResponse(ByteBuffer.wrap(body)));
  }

  @Override
  public ReplicaFetch.EpochResponse epochEndOffsets(int leaderId, ReplicaFetch.EpochRequest request)
      throws IOException {
    byte[] body =
        call(
            leaderId,
            InternalApi.REPLICA_EPOCHS,
            ReplicaFetchCodec.encode(request),
            Duration.ofSeconds(5));
    return decode(() -> ReplicaFetchCodec.decodeEpochResponse(ByteBuffer.wrap(body)));
  }

  private byte[] call(int leaderId, String path, byte[] body, Duration timeout) throws IOException {
    ControllerChannel.Endpoint leader =
        brokers
            .apply(leaderId)
            .orElseThrow(() -> new IOException("broker " + leaderId + " has no known address"));
    HttpRequest request =
        HttpRequest.newBuilder(urls.uri(leader.host(), leader.port(), path))
            .timeout(timeout)
            .header(InternalApi.SECRET_HEADER, secret)
            .header("Content-Type", InternalApi.REPLICA_MEDIA_TYPE)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted fetching from broker " + leaderId, e);
    }
    if (response.statusCode() != 200) {
      throw new IOException(
          "broker "
              + leaderId
              + " answered "
              + path
              + " with HTTP "
              + response.statusCode()
              + ": "
              + new String(response.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
    return response.body();
  }

  private interface Decoder<T> {
    T decode();
  }

  private static <T> T decode(Decoder<T> decoder) throws IOException {
    try {
      return decoder.decode();
    } catch (IllegalArgumentException e) {
      throw new IOException("unreadable replica fetch response: " + e.getMessage(), e);
    }
  }
}
