package dev.tributary.transport.http;

import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.server.ControllerChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntFunction;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;

/**
 * {@link LeaderEndpoint} over HTTP: binary bodies ({@link ReplicaFetchCodec}) to the leader's
 * {@code /internal/v1/replica} endpoints, with the cluster secret.
 *
 * <p>The JDK's blocking {@link HttpURLConnection}, not the {@code java.net.http} client the other
 * inter-broker calls use: a fetcher thread makes one call at a time and waits for it anyway, and
 * the blocking client does the socket I/O on that thread, where {@code HttpClient.send} hands every
 * request and answer between the caller, its selector thread and an executor. Replica fetch is the
 * busiest inter-broker call (a follower comes back as soon as its last answer arrived), and those
 * hand-offs cost a replicating broker about a tenth of its CPU (docs/benchmarks.md). Connections
 * are kept alive by the JDK's pool, so a follower holds about one connection per leader.
 */
public final class HttpLeaderEndpoint implements LeaderEndpoint {
  private static final int CONNECT_TIMEOUT_MS = 2_000;

  private final PeerUrls urls;
  private final Optional<SSLSocketFactory> tls;
  private final String secret;
  private final IntFunction<Optional<ControllerChannel.Endpoint>> brokers;

  /**
   * @param tls the context that trusts the cluster's certificates when {@code urls} are https
   * @param brokers where each broker serves HTTP, from the metadata image
   */
  public HttpLeaderEndpoint(
      PeerUrls urls,
      Optional<SSLContext> tls,
      String secret,
      IntFunction<Optional<ControllerChannel.Endpoint>> brokers) {
    this.urls = urls;
    this.tls = tls.map(SSLContext::getSocketFactory);
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
    HttpURLConnection connection =
        (HttpURLConnection) urls.uri(leader.host(), leader.port(), path).toURL().openConnection();
    if (connection instanceof HttpsURLConnection https && tls.isPresent()) {
      https.setSSLSocketFactory(tls.get());
    }
    connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
    connection.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    connection.setUseCaches(false);
    connection.setDoOutput(true);
    connection.setRequestMethod("POST");
    connection.setRequestProperty(InternalApi.SECRET_HEADER, secret);
    connection.setRequestProperty("Content-Type", InternalApi.REPLICA_MEDIA_TYPE);
    connection.setFixedLengthStreamingMode(body.length);
    try {
      try (OutputStream out = connection.getOutputStream()) {
        out.write(body);
      }
      int status = connection.getResponseCode();
      if (status != HttpURLConnection.HTTP_OK) {
        throw new IOException(
            "broker "
                + leaderId
                + " answered "
                + path
                + " with HTTP "
                + status
                + ": "
                + new String(readAll(connection.getErrorStream()), StandardCharsets.UTF_8));
      }
      // Read to the end, so the connection goes back to the pool for the next fetch.
      return readAll(connection.getInputStream());
    } catch (IOException e) {
      connection.disconnect(); // a half-read connection must not be reused
      throw e;
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    if (in == null) {
      return new byte[0];
    }
    try (in) {
      return in.readAllBytes();
    }
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
