package dev.tributary.api;

import dev.tributary.server.MetadataCache;
import dev.tributary.server.MetadataWaiters;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Before a request another broker forwarded here is handled, waits (at most {@value #MAX_WAIT_MS}
 * ms) until this broker's metadata has reached the offset the forwarder had ({@link
 * Forwarding#METADATA_OFFSET_HEADER}). Without it, a produce right after a topic was created could
 * reach a partition's leader before that leader knew the topic, and be refused with
 * UNKNOWN_TOPIC_OR_PARTITION although the topic exists. Only forwarded requests carry the header,
 * and the wait ends as soon as the image catches up (normally a few ms, often zero).
 */
@Component
@Order(
    Ordered.LOWEST_PRECEDENCE - 10) // before RecordEndpointsFilter, which answers forwarded reads
class MetadataFreshnessFilter extends OncePerRequestFilter {
  static final long MAX_WAIT_MS = 2_000;
  private final MetadataCache broker;
  private final MetadataWaiters metadata;

  MetadataFreshnessFilter(MetadataCache broker, MetadataWaiters metadata) {
    this.broker = broker;
    this.metadata = metadata;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return request.getHeader(Forwarding.METADATA_OFFSET_HEADER) == null || !broker.isReady();
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try {
      long offset = Long.parseLong(request.getHeader(Forwarding.METADATA_OFFSET_HEADER));
      // Bounded and rare (only when this broker is behind the one that relayed): wait on the
      // future, then handle the request whatever happened.
      metadata.awaitOffset(offset, MAX_WAIT_MS).get();
    } catch (NumberFormatException | ExecutionException e) {
      // not a number, or not caught up in time: the request is handled as it is
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    chain.doFilter(request, response);
  }
}
