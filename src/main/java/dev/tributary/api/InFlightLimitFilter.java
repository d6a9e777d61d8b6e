package dev.tributary.api;

import dev.tributary.auth.RequestPaths;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Caps the requests one client ({@link ClientIdentity}) has in flight at {@code
 * tributary.max-in-flight-requests-per-client} (32 by default; Kafka's {@code
 * max.in.flight.requests.per.connection} is the client-side cousin): one more is refused with 429
 * 42902 and {@code Retry-After: 1} before its body is read, so one client cannot hold every request
 * thread (Tomcat has {@code server.tomcat.threads.max=64}) with slow bodies, or pile up unbounded
 * asynchronous work. A request counts from the moment its headers are in until its answer is
 * written: asynchronous ones (produce waiting for acks, long polls) count until they complete.
 *
 * <p>Not counted: {@code /internal/**} (brokers, behind the cluster secret) and requests another
 * broker forwarded with the cluster secret ({@link BrokerCalls}): the client was counted on the
 * broker it reached first, which holds its request in flight for as long as the forward takes.
 *
 * <p>Invariant: a client's counter equals its requests that passed this filter and have not ended;
 * a client with none has no entry (so the map stays as small as the set of active clients).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 50)
class InFlightLimitFilter extends OncePerRequestFilter {
  static final int RETRY_AFTER_SECONDS = 1;

  private final int maxInFlightRequestsPerClient;
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final String clusterSecret;

  InFlightLimitFilter(
      @Value("${tributary.max-in-flight-requests-per-client:32}") int maxInFlightRequestsPerClient,
      @Value("${tributary.cluster-secret:}") String clusterSecret) {
    this.maxInFlightRequestsPerClient = maxInFlightRequestsPerClient;
    this.clusterSecret = clusterSecret;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return RequestPaths.isInternal(request) || BrokerCalls.fromBroker(request, clusterSecret);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String client = ClientIdentity.of(request);
    if (!tryAcquire(client)) {
      refuse(response, client);
      return;
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            this.release(client);
          }
        };
    try {
      chain.doFilter(request, response);
    } finally {
      if (request.isAsyncStarted()) {
        request.getAsyncContext().addListener(new ReleaseOnEnd(release));
      } else {
        release.run();
      }
    }
  }

  /** The requests {@code client} has in flight now (0 when none). */
  int inFlight(String client) {
    AtomicInteger count = inFlight.get(client);
    return count == null ? 0 : count.get();
  }

  private boolean tryAcquire(String client) {
    boolean[] acquired = {false};
    inFlight.compute(
        client,
        (c, count) -> {
          AtomicInteger current = count == null ? new AtomicInteger() : count;
          if (current.get() < maxInFlightRequestsPerClient) {
            current.incrementAndGet();
            acquired[0] = true;
          }
          return current.get() == 0 ? null : current;
        });
    return acquired[0];
  }

  private void release(String client) {
    inFlight.computeIfPresent(client, (c, count) -> count.decrementAndGet() <= 0 ? null : count);
  }

  private void refuse(HttpServletResponse response, String client) throws IOException {
    response.setStatus(429);
    response.setHeader(HttpHeaders.RETRY_AFTER, Integer.toString(RETRY_AFTER_SECONDS));
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response
        .getWriter()
        .write(
            "{\"error_code\":42902,\"message\":\""
                + jsonText(client)
                + " has "
                + maxInFlightRequestsPerClient
                + " requests in flight, as many as tributary.max-in-flight-requests-per-client"
                + " allows; wait for an answer before sending more\"}");
  }

  /** A client name (a principal or an address) made safe inside a JSON string. */
  private static String jsonText(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", "?");
  }

  /** Releases the slot when an asynchronous request ends, however it ends. */
  private record ReleaseOnEnd(Runnable release) implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      release.run();
    }

    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {
      release.run();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      event.getAsyncContext().addListener(this);
    }
  }
}
