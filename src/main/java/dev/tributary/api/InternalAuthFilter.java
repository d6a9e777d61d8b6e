package dev.tributary.api;

import dev.tributary.auth.RequestPaths;
import dev.tributary.server.BrokerConfig;
import dev.tributary.transport.http.InternalApi;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses every call to the internal broker-to-controller endpoints that does not carry the
 * cluster's shared secret (401, 40101), before any handler runs. Compared in constant time. A
 * broker without a configured secret (single-broker mode) refuses all internal calls.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE - 20) // before MetadataFreshnessFilter: refuse before any wait
class InternalAuthFilter extends OncePerRequestFilter {
  private final BrokerConfig config;

  InternalAuthFilter(BrokerConfig config) {
    this.config = config;
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    return !RequestPaths.isInternal(request);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (!InternalApi.secretMatches(
        config.clusterSecret(), request.getHeader(InternalApi.SECRET_HEADER))) {
      refuse(response);
      return;
    }
    chain.doFilter(request, response);
  }

  /** The answer to an internal call without the cluster secret: 401 40101. */
  static void refuse(HttpServletResponse response) throws IOException {
    response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    response.setContentType("application/json");
    response
        .getWriter()
        .write(
            "{\"error_code\":40101,\"message\":\"internal broker endpoints need the cluster secret\"}");
  }
}
