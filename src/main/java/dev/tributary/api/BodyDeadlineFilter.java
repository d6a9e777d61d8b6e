package dev.tributary.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request body {@code tributary.request-body-timeout-ms} (30 s by default), from the
 * moment its headers are in, to arrive whole. Reading a body blocks a request thread (Tomcat reads
 * headers without one, but a servlet's body read waits on a worker), and Tomcat's {@code
 * connection-timeout} only bounds the wait for each next byte: a client that trickles a byte every
 * few seconds would hold a thread forever. Past the deadline the next read fails, the request is
 * answered 408 40801 and its connection closed, so a slow body holds a thread for at most the
 * deadline plus one {@code connection-timeout}.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 60)
class BodyDeadlineFilter extends OncePerRequestFilter {
  private final long requestBodyTimeoutMs;

  BodyDeadlineFilter(
      @Value("${tributary.request-body-timeout-ms:30000}") long requestBodyTimeoutMs) {
    this.requestBodyTimeoutMs = requestBodyTimeoutMs;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long deadlineNs = System.nanoTime() + requestBodyTimeoutMs * 1_000_000;
    chain.doFilter(new Deadlined(request, deadlineNs, requestBodyTimeoutMs), response);
  }

  /** Thrown by a body read after the deadline. */
  static final class BodyTimeoutException extends IOException {
    BodyTimeoutException(long requestBodyTimeoutMs) {
      super(
          "The request body did not arrive within tributary.request-body-timeout-ms="
              + requestBodyTimeoutMs
              + " ms of its headers");
    }
  }

  private static final class Deadlined extends HttpServletRequestWrapper {
    private final long deadlineNs;
    private final long requestBodyTimeoutMs;
    private ServletInputStream stream;

    Deadlined(HttpServletRequest request, long deadlineNs, long requestBodyTimeoutMs) {
      super(request);
      this.deadlineNs = deadlineNs;
      this.requestBodyTimeoutMs = requestBodyTimeoutMs;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream =
            new ForwardingServletInputStream(super.getInputStream()) {
              private int check(int n) throws IOException {
                if (System.nanoTime() - deadlineNs > 0 && !in.isFinished()) {
                  throw new BodyTimeoutException(requestBodyTimeoutMs);
                }
                return n;
              }

              @Override
              public int read() throws IOException {
                check(0);
                return check(in.read());
              }

              @Override
              public int read(byte[] buffer, int offset, int length) throws IOException {
                check(0);
                return check(in.read(buffer, offset, length));
              }
            };
      }
      return stream;
    }
  }
}
