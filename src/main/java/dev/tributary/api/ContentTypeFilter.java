package dev.tributary.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request whose {@code Content-Type} is not a concrete media type (unparseable, or a
 * wildcard such as {@code *}{@code /*}) with 415 41501 before any handler runs: Spring's own header
 * parsing throws an unchecked error on such a header, which would otherwise surface as a 500.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class ContentTypeFilter extends OncePerRequestFilter {
  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String contentType = request.getContentType();
    if (contentType != null && !contentType.isBlank() && !concrete(contentType)) {
      response.setStatus(HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE);
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      response
          .getWriter()
          .write(
              "{\"error_code\":41501,\"message\":\"Unsupported Content-Type: not a concrete media"
                  + " type; use application/vnd.kafka.v2+json, application/vnd.kafka.json.v2+json,"
                  + " application/vnd.kafka.binary.v2+json or application/json\"}");
      return;
    }
    chain.doFilter(request, response);
  }

  private static boolean concrete(String contentType) {
    try {
      MediaType type = MediaType.parseMediaType(contentType);
      return !type.isWildcardType() && !type.isWildcardSubtype();
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }
}
