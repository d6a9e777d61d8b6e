package dev.tributary.auth;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes refusals in the API's error shape, {@code {"error_code": ..., "message": ...}}, and counts
 * each in {@code tributary.security.denials} tagged with its reason. A page navigation without a
 * sign-in is sent to the sign-in page instead.
 */
final class SecurityErrors {
  static final String DENIAL_ATTRIBUTE = "dev.tributary.denial";
  private final JsonMapper json;
  private final MeterRegistry meters;

  SecurityErrors(JsonMapper json, MeterRegistry meters) {
    this.json = json;
    this.meters = meters;
  }

  /** No credentials (or none that hold) for something that needs them: 401. */
  void unauthenticated(
      HttpServletRequest request, HttpServletResponse response, int code, String why)
      throws IOException {
    count("unauthenticated");
    if (wantsPage(request)) {
      response.sendRedirect("/login");
      return;
    }
    response.setHeader("WWW-Authenticate", "Bearer realm=\"tributary\"");
    write(response, HttpServletResponse.SC_UNAUTHORIZED, code, why);
  }

  /** Authenticated, but no ACL allows it: 403 with the code and message {@link AccessRules} set. */
  void forbidden(HttpServletRequest request, HttpServletResponse response) throws IOException {
    count("forbidden");
    Object denial = request.getAttribute(DENIAL_ATTRIBUTE);
    Denial d =
        denial instanceof Denial given
            ? given
            : new Denial(40305, RequestPrincipal.of(request) + " is not authorized for this");
    write(response, HttpServletResponse.SC_FORBIDDEN, d.code(), d.message());
  }

  /** A request refused before any handler runs (Spring Security's firewall): 400. */
  void badRequest(HttpServletResponse response, int code, String message) throws IOException {
    write(response, HttpServletResponse.SC_BAD_REQUEST, code, message);
  }

  /** A change sent with a dashboard cookie by a page that is not the cluster's own: 403 40306. */
  void forbiddenChange(HttpServletResponse response) throws IOException {
    count("forbidden");
    write(
        response,
        HttpServletResponse.SC_FORBIDDEN,
        40306,
        "A dashboard sign-in may change things only from the cluster's own pages (the request's"
            + " Origin is missing or another site's); API clients send their key instead");
  }

  /** An internal endpoint without the right cluster secret: 401 40101, as InternalAuthFilter. */
  void noClusterSecret(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    count("unauthenticated");
    write(
        response,
        HttpServletResponse.SC_UNAUTHORIZED,
        40101,
        "internal broker endpoints need the cluster secret");
  }

  void count(String reason) {
    meters.counter("tributary.security.denials", "reason", reason).increment();
  }

  private void write(HttpServletResponse response, int status, int code, String message)
      throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("error_code", code);
    body.put("message", message);
    response
        .getOutputStream()
        .write(json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
  }

  /** A browser loading the dashboard page itself (not its API calls or socket). */
  private static boolean wantsPage(HttpServletRequest request) {
    String accept = request.getHeader("Accept");
    return "GET".equals(request.getMethod())
        && "/".equals(request.getRequestURI())
        && accept != null
        && accept.contains("text/html");
  }

  /** Why access was refused, for the 403 body. */
  record Denial(int code, String message) {}
}
