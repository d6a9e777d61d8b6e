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
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Caps every request body at {@code tributary.max-request-bytes} (32 MiB by default; Kafka's {@code
 * socket.request.max.bytes} plays this part): a declared {@code Content-Length} over the cap is
 * refused with 413 41302 before a byte is read, and a body without one (chunked) fails with the
 * same error once it passes the cap, before any handler has acted on it, so nothing is appended.
 * Protects the heap from one huge request; {@code max.message.bytes} still bounds each record.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
class RequestSizeFilter extends OncePerRequestFilter {
  private final long maxRequestBytes;

  RequestSizeFilter(@Value("${tributary.max-request-bytes:33554432}") long maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long declared = request.getContentLengthLong();
    if (maybeRefuse(response, declared, 0, maxRequestBytes)) {
      return;
    }
    chain.doFilter(declared >= 0 ? request : new Capped(request, maxRequestBytes), response);
  }

  /**
   * Refuses a body over the cap with 413 41302 and says whether it did; a body within the cap gets
   * no answer here. The one place that decides "too large" and words the answer, for this filter
   * and for {@link InternalReplicaFilter}, which runs ahead of it and reads its bodies whole.
   *
   * @param declaredBytes the body's declared {@code Content-Length}; -1 when it declared none
   * @param readBytes how much of the body the caller has read (0 before reading)
   */
  static boolean maybeRefuse(
      HttpServletResponse response, long declaredBytes, long readBytes, long maxRequestBytes)
      throws IOException {
    if (declaredBytes <= maxRequestBytes && readBytes <= maxRequestBytes) {
      return false;
    }
    response.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.setHeader("Connection", "close"); // do not read the rest of a body we refused
    response
        .getWriter()
        .write(
            "{\"error_code\":41302,\"message\":\""
                + tooLargeMessage(declaredBytes, maxRequestBytes)
                + "\"}");
    return true;
  }

  /** 41302's message: with the body's size when it declared one over the cap. */
  private static String tooLargeMessage(long declaredBytes, long maxRequestBytes) {
    return "The request body "
        + (declaredBytes > maxRequestBytes
            ? "has " + declaredBytes + " bytes, more than"
            : "is larger than")
        + " tributary.max-request-bytes="
        + maxRequestBytes
        + "; send fewer records per request";
  }

  /** Thrown when a body without a declared length runs past the cap. */
  static final class RequestTooLargeException extends IOException {
    RequestTooLargeException(long maxRequestBytes) {
      super(tooLargeMessage(-1, maxRequestBytes));
    }
  }

  /** A request whose body stream fails once more than the cap has been read. */
  private static final class Capped extends HttpServletRequestWrapper {
    private final long maxRequestBytes;
    private ServletInputStream stream;

    Capped(HttpServletRequest request, long maxRequestBytes) {
      super(request);
      this.maxRequestBytes = maxRequestBytes;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream =
            new ForwardingServletInputStream(super.getInputStream()) {
              private long read;

              private int count(int n) throws IOException {
                if (n > 0) {
                  read += n;
                  if (read > maxRequestBytes) {
                    throw new RequestTooLargeException(maxRequestBytes);
                  }
                }
                return n;
              }

              @Override
              public int read() throws IOException {
                int b = in.read();
                if (b >= 0) {
                  count(1);
                }
                return b;
              }

              @Override
              public int read(byte[] buffer, int offset, int length) throws IOException {
                return count(in.read(buffer, offset, length));
              }
            };
      }
      return stream;
    }
  }
}
