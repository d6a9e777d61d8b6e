package dev.tributary.config;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Refuses a request whose path or parameters do not decode before anything reads them: 400 40007
 * for a path, query string or form body that breaks {@link PercentEncoding}'s rule, 413 41302 for a
 * form body over {@code server.tomcat.max-http-form-post-size}. Nothing is logged above DEBUG.
 * (Tomcat refuses a path that is not UTF-8 itself, before any filter; {@link JsonErrorReportValve}
 * words that refusal the same way. A path that is UTF-8 but holds a control character reaches
 * here.)
 *
 * <p>Why here: Tomcat decodes parameters on the first {@code getParameter} call, and in Tomcat 11 a
 * failure throws from that call, wherever it is (a controller's {@code @RequestParam}, Actuator,
 * Spring Security's firewall), as an unexpected exception: a 500 with a stack trace in the log, for
 * anyone, without a key. It also leaves the parameters half-read for every later call. So this
 * filter, which runs before Spring Security and every other reader, checks the raw query string
 * itself (to say exactly what is wrong) and then makes Tomcat read the parameters, here and once,
 * answering any failure it finds (in a form body, which only Tomcat reads). A multipart body is
 * left alone: reading its parts would write uploads to disk before authentication, and no endpoint
 * takes one. Form bodies of other methods than POST are never decoded (Tomcat parses POST bodies
 * only, and Spring's FormContentFilter is off: {@code spring.mvc.formcontent.filter.enabled}).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 70) // after the size, in-flight and body-deadline filters
class ParameterEncodingFilter extends OncePerRequestFilter {
  private static final Logger logger = LoggerFactory.getLogger(ParameterEncodingFilter.class);
  private static final String FORM = MediaType.APPLICATION_FORM_URLENCODED_VALUE;

  private final JsonMapper json;
  private final int maxParameterCount;
  private final long maxFormBytes;

  ParameterEncodingFilter(
      JsonMapper json,
      @Value("${server.tomcat.max-parameter-count:1000}") int maxParameterCount,
      @Value("${server.tomcat.max-http-form-post-size:2MB}") DataSize maxFormSize) {
    this.json = json;
    this.maxParameterCount = maxParameterCount;
    this.maxFormBytes = maxFormSize.toBytes();
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Refusal refusal = check(request);
    if (refusal != null) {
      refuse(request, response, refusal);
      return;
    }
    chain.doFilter(request, response);
  }

  /** Why the request is refused, or null if everything in it decodes to text. */
  private Refusal check(HttpServletRequest request) {
    String problem = PercentEncoding.pathProblem(request.getRequestURI());
    if (problem == null) {
      problem =
          PercentEncoding.parametersProblem(
              "The query string", request.getQueryString(), maxParameterCount);
    }
    if (problem == null && !isMultipart(request)) {
      try {
        Map<String, String[]> parameters = request.getParameterMap(); // Tomcat reads them now
        problem = hasFormBody(request) ? formTextProblem(parameters) : null;
      } catch (IllegalStateException e) { // Tomcat's InvalidParameterException
        return formBodyRefusal(e);
      }
    }
    return problem == null ? null : new Refusal(HttpServletResponse.SC_BAD_REQUEST, 40007, problem);
  }

  /**
   * Tomcat's refusal of the parameters in words. The query string passed the same rule before, so
   * the form body is what failed: too large, not decodable, or it stopped arriving.
   */
  private Refusal formBodyRefusal(IllegalStateException e) {
    if (e instanceof InvalidParameterException invalid && invalid.getErrorCode() == 413) {
      return new Refusal(
          HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
          41302,
          "The form body is larger than server.tomcat.max-http-form-post-size="
              + maxFormBytes
              + " bytes");
    }
    Throwable cause = e.getCause();
    String problem;
    if (cause instanceof CharConversionException) { // Tomcat's UDecoder.DecodeException
      problem =
          "The form body has a '%' that is not a percent-escape: '%' must be followed by two hex"
              + " digits";
    } else if (cause instanceof CharacterCodingException) {
      problem =
          "The form body has percent-escapes that are not UTF-8: they must spell the UTF-8 bytes"
              + " of the text";
    } else if (cause instanceof IOException) { // a timeout, or the client went away
      return new Refusal(
          HttpServletResponse.SC_BAD_REQUEST, 40001, "The request body could not be read");
    } else { // Tomcat gives no cause for the two other refusals
      problem =
          "The form body has a parameter without a name (every value needs a name before its"
              + " '='), or the query string and form body together have more than "
              + maxParameterCount
              + " parameters (server.tomcat.max-parameter-count)";
    }
    return new Refusal(HttpServletResponse.SC_BAD_REQUEST, 40007, problem);
  }

  /** Tomcat decoded the form body; its names and values must be text too. */
  private static String formTextProblem(Map<String, String[]> parameters) {
    for (Map.Entry<String, String[]> entry : parameters.entrySet()) {
      String problem = textProblem(entry.getKey());
      for (String value : entry.getValue()) {
        problem = problem != null ? problem : textProblem(value);
      }
      if (problem != null) {
        return "The form body has a parameter that decodes to "
            + problem
            + "; parameters must be text";
      }
    }
    return null;
  }

  private static String textProblem(String decoded) {
    for (int i = 0; i < decoded.length(); ) {
      int codePoint = decoded.codePointAt(i);
      String problem = PercentEncoding.characterProblem(codePoint);
      if (problem != null) {
        return problem;
      }
      i += Character.charCount(codePoint);
    }
    return null;
  }

  private void refuse(HttpServletRequest request, HttpServletResponse response, Refusal refusal)
      throws IOException {
    // One line at most, and only when asked for: a flood of these must not fill the log.
    logger.debug(
        "Refused {} {}: {}", request.getMethod(), request.getRequestURI(), refusal.message());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error_code", refusal.errorCode());
    body.put("message", refusal.message());
    response.setStatus(refusal.status());
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.setHeader("Connection", "close"); // do not read on through a body we refused
    response
        .getOutputStream()
        .write(json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
  }

  private static boolean hasFormBody(HttpServletRequest request) {
    return "POST".equals(request.getMethod()) && mediaType(request).equals(FORM);
  }

  private static boolean isMultipart(HttpServletRequest request) {
    return mediaType(request).startsWith("multipart/");
  }

  private static String mediaType(HttpServletRequest request) {
    String contentType = request.getContentType();
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
        .trim()
        .toLowerCase(Locale.ROOT);
  }

  private record Refusal(int status, int errorCode, String message) {}
}
