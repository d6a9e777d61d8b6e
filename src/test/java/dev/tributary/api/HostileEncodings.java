package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Requests whose path, query string or form body is not percent-encoded UTF-8 text, and the check
 * that a broker refuses each with 400 40007 in the API's error shape, in plain words, while logging
 * no stack trace and at most one line per request. Sent raw ({@link RawHttp}), so no client
 * re-encodes them. Shared by the broker with security off ({@link HostileEncodingApiTest}) and on
 * ({@code auth.HostileEncodingSecuredApiTest}, which has its own broker and so its own package:
 * Spring pauses a cached context, stopping its broker for good, when a test class with another
 * context runs between two of its classes).
 */
public final class HostileEncodings {
  private HostileEncodings() {}

  public static final String FORM = "application/x-www-form-urlencoded";

  /** Each breaks config.PercentEncoding's rule its own way. */
  public static final List<String> ESCAPES =
      List.of(
          "%zz", // not hex
          "%", // bare
          "%f", // one digit
          "%ff%fe", // bytes UTF-8 never uses
          "%c0%af", // '/' overlong, in two bytes
          "%e0%80%af", // '/' overlong, in three
          "%ed%a0%80", // a surrogate (U+D800)
          "%f4%90%80%80", // past U+10FFFF
          "%00", // NUL
          "%1b", // ESC, a control character
          "%cd%b8"); // U+0378, which Unicode does not assign

  /** More parameters than server.tomcat.max-parameter-count (1000) allows. */
  private static final String TOO_MANY = "a&".repeat(1000) + "a";

  /** One request and the part of it the refusal must name. */
  public record Hostile(
      String method,
      String target,
      String contentType,
      String body,
      String subject,
      String... headers) {
    @Override
    public String toString() {
      String shown = target.length() > 80 ? target.substring(0, 80) + "..." : target;
      return method + " " + shown + (body == null ? "" : " [" + abbreviate(body) + "]");
    }
  }

  /**
   * Every escape as a value and as a name in the query string of {@code method path}, a value
   * without a name, and too many parameters; {@code body} (of {@code contentType}) is well formed.
   */
  public static List<Hostile> inQuery(
      String method, String path, String contentType, String body, String... headers) {
    List<String> queries = new ArrayList<>(List.of("=x", "offset=0&=x", TOO_MANY));
    for (String escape : ESCAPES) {
      queries.add("offset=" + escape);
      queries.add(escape + "=1");
    }
    String separator = path.contains("?") ? "&" : "?";
    return queries.stream()
        .map(
            q ->
                new Hostile(
                    method, path + separator + q, contentType, body, "The query string", headers))
        .toList();
  }

  /** Every escape in a form body posted to {@code path}, and the same two shapes. */
  public static List<Hostile> inFormBody(String path, String... headers) {
    List<String> bodies = new ArrayList<>(List.of("key_id=a&=x", TOO_MANY));
    for (String escape : ESCAPES) {
      bodies.add("key_id=a&secret=" + escape);
      bodies.add(escape + "=1");
    }
    return bodies.stream()
        .map(b -> new Hostile("POST", path, FORM, b, "The form body", headers))
        .toList();
  }

  /** Every escape as a path segment: {@code prefix + escape + suffix}. */
  public static List<Hostile> inPath(
      String method, String prefix, String suffix, String... headers) {
    return ESCAPES.stream()
        .map(e -> new Hostile(method, prefix + e + suffix, null, null, "The request path", headers))
        .toList();
  }

  /**
   * Sends each request and checks its refusal; then checks what the broker logged meanwhile: no
   * stack trace, no error, and no more lines than requests.
   */
  public static void assertEachRefusedQuietly(int port, List<Hostile> requests) {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    root.addAppender(log);
    try {
      for (Hostile request : requests) {
        Answer r =
            send(
                port,
                request.method(),
                request.target(),
                request.contentType(),
                request.body(),
                request.headers());
        String what = request + " → " + r.status() + " " + abbreviate(r.body());
        assertThat(r.status()).as(what).isEqualTo(400);
        assertThat(r.contentType()).as(what).startsWith("application/json");
        JsonNode error = r.json();
        assertThat(error.get("error_code").intValue()).as(what).isEqualTo(40007);
        String message = error.get("message").stringValue();
        assertThat(message)
            .as(what)
            .startsWith(request.subject() + " has ")
            .doesNotContainIgnoringCase("exception") // no class names or library internals
            .doesNotContain("org.apache")
            .doesNotContain("java.")
            .doesNotContain("springframework");
      }
    } finally {
      root.detachAppender(log);
      log.stop();
    }
    List<ILoggingEvent> events = List.copyOf(log.list);
    assertThat(events)
        .as("log lines while refusing %d requests", requests.size())
        .noneMatch(e -> e.getThrowableProxy() != null)
        .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
        .hasSizeLessThanOrEqualTo(requests.size());
  }

  /** An answer, for tests outside this package ({@link ApiTestSupport.Response} is not public). */
  public record Answer(int status, String contentType, String body) {
    public JsonNode json() {
      return JsonMapper.builder().build().readTree(body);
    }
  }

  /** One raw request ({@link RawHttp}) from 127.0.0.1; {@code headers} are name, value pairs. */
  public static Answer send(
      int port, String method, String target, String contentType, String body, String... headers) {
    ApiTestSupport.Response r =
        RawHttp.send("127.0.0.1", port, method, target, contentType, body, headers);
    return new Answer(r.status(), r.contentType(), r.body());
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 120) + "…(" + s.length() + " chars)";
  }
}
