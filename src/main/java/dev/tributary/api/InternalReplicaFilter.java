package dev.tributary.api;

import dev.tributary.auth.RequestContexts;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.FetchService;
import dev.tributary.server.RequestContext;
import dev.tributary.transport.http.InternalApi;
import dev.tributary.transport.http.ReplicaFetchCodec;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * The leader's side of replica fetch for other brokers, answered here, ahead of every other filter:
 * binary bodies ({@link ReplicaFetchCodec}) in, the fetch service's answer out. It is the busiest
 * request a leader serves (each follower comes back as soon as its last answer arrived, for every
 * batch appended), and the request path behind it (the observation filter, the rim's parameter
 * checks, Spring Security, Spring MVC's handler lookup and argument resolution) cost about a third
 * of a replicating broker's CPU while the fetch itself cost under 2 % (docs/benchmarks.md). None of
 * it applies: the caller proves it is a broker with the cluster secret (checked first, in constant
 * time, before the body is read), the request takes no parameters, and the replica manager checks
 * the sender's broker epoch.
 *
 * <p>Only exactly {@code POST} to {@link InternalApi#REPLICA_FETCH} or {@link
 * InternalApi#REPLICA_EPOCHS} without a query string is answered here; anything else (another
 * spelling of the path, a query string) takes the ordinary path, where the rim and {@link
 * InternalAuthFilter} answer it and nothing serves it. A fetch that waits for data holds no thread
 * (an asynchronous response completed by the delayed fetch).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class InternalReplicaFilter implements Filter {
  private static final Logger logger = LoggerFactory.getLogger(InternalReplicaFilter.class);

  /** Beyond a fetch's own max wait: a fetch the broker never answers ends as a 503, not a hang. */
  private static final long ASYNC_GRACE_MS = 30_000;

  private final FetchService fetch;
  private final BrokerConfig config;
  private final JsonMapper json;
  private final long maxRequestBytes;

  InternalReplicaFilter(
      FetchService fetch,
      BrokerConfig config,
      JsonMapper json,
      @Value("${tributary.max-request-bytes:33554432}") long maxRequestBytes) {
    this.fetch = fetch;
    this.config = config;
    this.json = json;
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    String path = request.getRequestURI();
    boolean isFetch = InternalApi.REPLICA_FETCH.equals(path);
    if (!(isFetch || InternalApi.REPLICA_EPOCHS.equals(path))
        || request.getDispatcherType() != DispatcherType.REQUEST
        || !"POST".equals(request.getMethod())
        || request.getQueryString() != null) {
      chain.doFilter(request, response);
      return;
    }
    if (!InternalApi.secretMatches(
        config.clusterSecret(), request.getHeader(InternalApi.SECRET_HEADER))) {
      InternalAuthFilter.refuse(response);
      return;
    }
    if (!InternalApi.REPLICA_MEDIA_TYPE.equals(request.getContentType())) {
      error(
          response,
          HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
          41501,
          "replica fetch bodies are " + InternalApi.REPLICA_MEDIA_TYPE);
      return;
    }
    long declared = request.getContentLengthLong();
    byte[] body =
        request
            .getInputStream()
            .readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxRequestBytes + 1));
    if (RequestSizeFilter.maybeRefuse(response, declared, body.length, maxRequestBytes)) {
      return;
    }
    RequestContext broker = RequestContexts.ofProvenBroker(request); // the secret matched above
    try {
      if (isFetch) {
        ReplicaFetch.Request fetchRequest = ReplicaFetchCodec.decodeRequest(ByteBuffer.wrap(body));
        answer(
            request,
            response,
            fetch.replicaFetch(broker, fetchRequest),
            fetchRequest.maxWaitMs() + ASYNC_GRACE_MS);
      } else {
        ReplicaFetch.EpochRequest epochRequest =
            ReplicaFetchCodec.decodeEpochRequest(ByteBuffer.wrap(body));
        binary(
            response, ReplicaFetchCodec.encode(fetch.replicaEpochEndOffsets(broker, epochRequest)));
      }
    } catch (IllegalArgumentException e) {
      error(
          response,
          HttpServletResponse.SC_BAD_REQUEST,
          40002,
          "malformed replica fetch body: " + e.getMessage());
    } catch (RuntimeException e) {
      failure(response, e);
    }
  }

  /**
   * Writes the answer now when it is ready, else when it completes, holding no thread meanwhile.
   */
  private void answer(
      HttpServletRequest request,
      HttpServletResponse response,
      CompletableFuture<ReplicaFetch.Response> answer,
      long timeoutMs)
      throws IOException {
    // A later answer is written on the thread that completes the fetch (an append or a high
    // watermark move): a follower's answer is small and its connection a broker's.
    AsyncAnswers.answer(
        request,
        response,
        answer,
        timeoutMs,
        false,
        r -> write(r, answer),
        r ->
            error(
                r,
                HttpServletResponse.SC_SERVICE_UNAVAILABLE,
                50302,
                "The request took too long and was abandoned"));
  }

  /**
   * The fetch's answer, its batches written straight from the buffers the leader read them into (no
   * copy of the whole body), under a Content-Length computed first.
   */
  private void write(HttpServletResponse response, CompletableFuture<ReplicaFetch.Response> answer)
      throws IOException {
    ReplicaFetch.Response value;
    try {
      value = answer.join();
    } catch (RuntimeException e) {
      failure(response, e);
      return;
    }
    ReplicaFetchCodec.EncodedFetchResponse body = ReplicaFetchCodec.encode(value);
    ok(response, body.sizeInBytes());
    body.writeTo(Channels.newChannel(response.getOutputStream()));
  }

  private static void binary(HttpServletResponse response, byte[] bytes) throws IOException {
    ok(response, bytes.length);
    response.getOutputStream().write(bytes);
  }

  private static void ok(HttpServletResponse response, long contentLength) {
    response.setStatus(HttpServletResponse.SC_OK);
    response.setContentType(InternalApi.REPLICA_MEDIA_TYPE);
    response.setContentLengthLong(contentLength);
  }

  /** A failed fetch as every endpoint answers one ({@link ApiExceptionHandler}'s table). */
  private void failure(HttpServletResponse response, RuntimeException e) throws IOException {
    ResponseEntity<ErrorResponse> mapped = ApiExceptionHandler.toResponse(e);
    ErrorResponse body = mapped.getBody();
    error(response, mapped.getStatusCode().value(), body.errorCode(), body.message());
  }

  private void error(HttpServletResponse response, int status, int code, String message)
      throws IOException {
    if (response.isCommitted()) {
      return;
    }
    response.setStatus(status);
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.getOutputStream().write(json.writeValueAsBytes(new ErrorResponse(code, message)));
  }
}
