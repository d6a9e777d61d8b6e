package dev.tributary.config;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;

/**
 * Tomcat's error report in the API's JSON shape instead of an HTML page. It answers what Tomcat
 * refuses itself, before Spring sees the request: a request line and headers larger than {@code
 * server.max-http-request-header-size} (431 43101), more headers than {@code
 * tributary.max-http-header-count} (431 43102; Tomcat says 400 to both, this valve makes it 431,
 * RFC 6585's status for them), a path whose percent-escapes do not decode to text (400 40007, in
 * {@link PercentEncoding}'s words; Tomcat says a bare 400), or a request line or header that does
 * not parse (400 40005). Errors Spring answers have a body already and pass through untouched.
 */
public class JsonErrorReportValve extends ErrorReportValve {
  private final String maxHeaderSize;
  private final int maxHeaderCount;

  /** For Tomcat, which may build one by class name; the limits then go unnamed in messages. */
  public JsonErrorReportValve() {
    this("the limit", 100);
  }

  JsonErrorReportValve(String maxHeaderSize, int maxHeaderCount) {
    this.maxHeaderSize = maxHeaderSize;
    this.maxHeaderCount = maxHeaderCount;
  }

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(false);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    String reason =
        throwable == null || throwable.getMessage() == null ? "" : throwable.getMessage();
    String body;
    String pathProblem =
        status == 400 ? PercentEncoding.pathProblem(request.getRequestURI()) : null;
    if (status == 400 && reason.contains("header is too large")) {
      status = 431;
      body =
          error(
              43101,
              "The request line and headers are larger than server.max-http-request-header-size="
                  + maxHeaderSize);
    } else if (status == 400 && reason.contains("maximum allowed number of headers")) {
      status = 431;
      body =
          error(
              43102,
              "The request has more than tributary.max-http-header-count="
                  + maxHeaderCount
                  + " headers");
    } else if (pathProblem != null) {
      body = error(40007, pathProblem);
    } else if (status == 400) {
      body = error(40005, "The request line or headers could not be parsed");
    } else {
      body = error(status * 100, "The server refused the request (HTTP " + status + ")");
    }
    try {
      response.setStatus(status);
      response.setContentType("application/json");
      response.setCharacterEncoding("utf-8");
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(body);
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // the client went away, or the response was committed meanwhile: nothing more to say
    }
  }

  private static String error(int errorCode, String message) {
    return "{\"error_code\":" + errorCode + ",\"message\":\"" + jsonEscaped(message) + "\"}";
  }

  /** The message quotes the request; escaped, it cannot break out of its JSON string. */
  private static String jsonEscaped(String text) {
    StringBuilder escaped = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        escaped.append('\\').append(c);
      } else if (c < 0x20) {
        escaped.append(String.format("\\u%04x", (int) c));
      } else {
        escaped.append(c);
      }
    }
    return escaped.toString();
  }
}
