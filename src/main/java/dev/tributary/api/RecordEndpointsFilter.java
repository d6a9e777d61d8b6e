package dev.tributary.api;

import dev.tributary.common.TopicName;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Enumeration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.filter.ServerHttpObservationFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Answers the requests that carry records, {@code POST /topics/{t}}, {@code POST
 * /topics/{t}/partitions/{p}} and {@code GET /topics/{t}/partitions/{p}/records}, without Spring
 * MVC's per-request machinery (handler lookup, argument binding, message converters, return-value
 * handling, and for an answer that waits, a second pass through the whole chain): profiled, that
 * machinery cost about a tenth of a broker's CPU under produce and under consume, and kept the JIT
 * compiling long after a start (docs/benchmarks.md). Everything else about the request is
 * unchanged: it is the last filter, so the rim's checks, the size and in-flight limits, Spring
 * Security, CORS and the metrics observation (named with the same URI pattern) have all run; the
 * answer is built by the same controller methods MVC calls ({@link ProduceController#produce},
 * {@link RecordsController#recordsAnswer}) and failures are mapped by {@link ApiExceptionHandler}'s
 * table.
 *
 * <p>Only a request of exactly the usual shape is answered here: the path spelled plainly (topic of
 * Kafka's legal characters, partition in decimal digits), only the endpoint's own query parameters,
 * each at most once and numeric where it must be, one Content-Type (for produce, one the endpoint
 * takes) or Accept line. Anything else goes on to Spring MVC, which answers it as before (its error
 * for a malformed parameter, its 415, ...), so the two paths cannot disagree on an unusual request.
 *
 * <p>An answer that is not ready (acks=all waiting for followers, a long poll) holds no thread: the
 * request turns asynchronous and the answer is written on a container thread when it completes, or
 * 503 after {@code spring.mvc.async.request-timeout}, as MVC would.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class RecordEndpointsFilter implements Filter {
  static final String PRODUCE_TO_TOPIC_PATTERN = "/topics/{topic}";
  static final String PRODUCE_PATTERN = "/topics/{topic}/partitions/{partition}";
  static final String RECORDS_PATTERN = "/topics/{topic}/partitions/{partition}/records";

  private static final Logger logger = LoggerFactory.getLogger(RecordEndpointsFilter.class);
  private static final String TOPICS = "/topics/";
  private static final String PARTITIONS = "/partitions/";
  private static final String RECORDS = "/records";
  private static final Set<String> PRODUCE_PARAMETERS = Set.of("acks");
  private static final Set<String> RECORDS_PARAMETERS = Set.of("offset", "max_bytes", "timeout");

  private final ProduceController produce;
  private final RecordsController records;
  private final JsonMapper json;
  private final long asyncTimeoutMs;
  private final LongAdder answered = new LongAdder();

  RecordEndpointsFilter(
      ProduceController produce,
      RecordsController records,
      JsonMapper json,
      @Value("${spring.mvc.async.request-timeout:120s}") Duration asyncTimeout) {
    this.produce = produce;
    this.records = records;
    this.json = json;
    this.asyncTimeoutMs = asyncTimeout.toMillis();
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    if (request.getDispatcherType() != DispatcherType.REQUEST || !served(request, response)) {
      chain.doFilter(request, response);
    }
  }

  /** How many requests this filter has answered (the rest went on to Spring MVC). */
  long answered() {
    return answered.sum();
  }

  /** Answers the request if it has the usual shape; false to leave it to Spring MVC. */
  private boolean served(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String method = request.getMethod();
    boolean post = "POST".equals(method);
    if (!post && !"GET".equals(method)) {
      return false;
    }
    RecordsPath path = RecordsPath.parse(request.getRequestURI(), request.getContextPath());
    if (path == null || path.records() == post || (!post && path.partition() == null)) {
      return false;
    }
    CompletableFuture<? extends ResponseEntity<?>> answer =
        post ? produce(request, response, path) : read(request, path);
    if (answer == null) {
      return false;
    }
    answered.increment();
    respond(request, response, answer);
    return true;
  }

  private CompletableFuture<? extends ResponseEntity<?>> produce(
      HttpServletRequest request, HttpServletResponse response, RecordsPath path) {
    if (repeated(request, HttpHeaders.CONTENT_TYPE)) {
      return null; // MVC joins the lines, and refuses the result
    }
    String contentType = request.getContentType();
    try {
      EmbeddedFormat.ofContentType(contentType);
    } catch (RestException e) {
      return null; // MVC refuses it (and a form body must not be parsed for parameters here)
    }
    String acks = onlyValue(request, "acks");
    if (acks == null || !knownParametersOnly(request, PRODUCE_PARAMETERS)) {
      return null;
    }
    observe(request, path.partition() == null ? PRODUCE_TO_TOPIC_PATTERN : PRODUCE_PATTERN);
    byte[] body;
    try {
      body = readBody(request);
    } catch (IOException e) {
      // As MVC's converter reports it: the size and deadline limits' own errors stay its causes.
      return CompletableFuture.failedFuture(
          new HttpMessageNotReadableException(
              "I/O error while reading input message", e, new ServletServerHttpRequest(request)));
    }
    try {
      return produce.produce(
          path.topic(),
          path.partition(),
          acks.isEmpty() ? ProduceController.DEFAULT_ACKS : acks,
          contentType,
          body,
          request,
          response);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<? extends ResponseEntity<?>> read(
      HttpServletRequest request, RecordsPath path) {
    if (repeated(request, HttpHeaders.ACCEPT)) {
      return null; // MVC reads the lines joined
    }
    String offset = onlyValue(request, "offset");
    String maxBytes = onlyValue(request, "max_bytes");
    String timeout = onlyValue(request, "timeout");
    if (!isNumberOrEmpty(offset, false)
        || !isNumberOrEmpty(maxBytes, true)
        || !isNumberOrEmpty(timeout, false)
        || !knownParametersOnly(request, RECORDS_PARAMETERS)) {
      return null;
    }
    observe(request, RECORDS_PATTERN);
    try {
      return records.recordsAnswer(
          path.topic(),
          path.partition(),
          offset.isEmpty() ? null : Long.parseLong(offset),
          Integer.parseInt(maxBytes.isEmpty() ? RecordsController.DEFAULT_MAX_BYTES : maxBytes),
          timeout.isEmpty() ? 0 : Long.parseLong(timeout),
          request.getHeader(HttpHeaders.ACCEPT),
          request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The body as MVC binds a {@code byte[]} (null when there is none). */
  private static byte[] readBody(HttpServletRequest request) throws IOException {
    long declared = request.getContentLengthLong();
    byte[] body =
        declared >= 0 && declared < Integer.MAX_VALUE
            ? request.getInputStream().readNBytes((int) declared)
            : request.getInputStream().readAllBytes();
    return body.length == 0 ? null : body;
  }

  /** Names the request's metrics after the endpoint's pattern, as MVC's handler lookup does. */
  private static void observe(HttpServletRequest request, String pattern) {
    ServerHttpObservationFilter.findObservationContext(request)
        .ifPresent(context -> context.setPathPattern(pattern));
  }

  /** Whether the request has more than one {@code name} header line. */
  private static boolean repeated(HttpServletRequest request, String name) {
    Enumeration<String> values = request.getHeaders(name);
    if (values == null || !values.hasMoreElements()) {
      return false;
    }
    values.nextElement();
    return values.hasMoreElements();
  }

  /** A parameter's value, "" when absent or empty (MVC then uses the default), null if repeated. */
  private static String onlyValue(HttpServletRequest request, String name) {
    String[] values = request.getParameterValues(name);
    if (values == null) {
      return "";
    }
    return values.length == 1 ? values[0] : null;
  }

  private static boolean knownParametersOnly(HttpServletRequest request, Set<String> known) {
    if (request.getQueryString() == null) {
      return true;
    }
    for (Enumeration<String> names = request.getParameterNames(); names.hasMoreElements(); ) {
      if (!known.contains(names.nextElement())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether MVC would bind the value the plain way: empty, or an optional minus and decimal digits
   * that fit (an int when {@code asInt}, else a long). Other spellings MVC converts or refuses
   * itself.
   */
  static boolean isNumberOrEmpty(String value, boolean asInt) {
    if (value == null) {
      return false;
    }
    if (value.isEmpty()) {
      return true;
    }
    int digits = value.charAt(0) == '-' ? 1 : 0;
    return value.length() > digits
        && value.length() - digits <= (asInt ? 9 : 18)
        && skip(value, digits, RecordEndpointsFilter::isAsciiDigit) == value.length();
  }

  /**
   * Writes the answer now when it is ready, else when it completes, holding no thread meanwhile.
   */
  private void respond(
      HttpServletRequest request,
      HttpServletResponse response,
      CompletableFuture<? extends ResponseEntity<?>> answer)
      throws IOException {
    // A later answer on a container thread: the thread completing it (a follower's fetch moving the
    // high watermark, a timer) must not block on this client's socket.
    AsyncAnswers.answer(
        request,
        response,
        answer,
        asyncTimeoutMs,
        true,
        r -> write(r, answer),
        r -> write(r, CompletableFuture.failedFuture(new AsyncRequestTimeoutException())));
  }

  private void write(
      HttpServletResponse response, CompletableFuture<? extends ResponseEntity<?>> answer) {
    ResponseEntity<?> entity;
    try {
      entity = answer.join();
    } catch (CompletionException | CancellationException e) {
      entity = ApiExceptionHandler.answerTo(e);
    }
    if (entity == null || response.isCommitted()) {
      return; // the client went away, or nothing more can be said
    }
    try {
      writeEntity(response, entity);
    } catch (IOException e) {
      logger.debug("Could not send an answer: {}", e.toString());
    }
  }

  /** Status, headers and body, as MVC writes a {@code ResponseEntity} of these body types. */
  private void writeEntity(HttpServletResponse response, ResponseEntity<?> entity)
      throws IOException {
    response.setStatus(entity.getStatusCode().value());
    entity
        .getHeaders()
        .forEach(
            (name, values) -> {
              for (String value : values) {
                response.addHeader(name, value);
              }
            });
    Object body = entity.getBody();
    if (body == null) {
      return;
    }
    if (body instanceof RenderedJson rendered) {
      response.setContentLengthLong(rendered.length());
      rendered.writeTo(response.getOutputStream());
    } else {
      byte[] bytes = body instanceof byte[] raw ? raw : json.writeValueAsBytes(body);
      response.setContentLength(bytes.length);
      response.getOutputStream().write(bytes);
    }
  }

  /**
   * {@code /topics/{topic}[/partitions/{partition}[/records]]} spelled plainly: a topic of Kafka's
   * legal characters (so nothing needed decoding) and a partition of at most nine decimal digits;
   * {@code partition} null for the topic alone.
   */
  record RecordsPath(String topic, Integer partition, boolean records) {
    static RecordsPath parse(String uri, String contextPath) {
      int at = contextPath == null ? 0 : contextPath.length();
      if (!uri.startsWith(TOPICS, at)) {
        return null;
      }
      int topicStart = at + TOPICS.length();
      int topicEnd = skip(uri, topicStart, TopicName::isLegalChar);
      if (topicEnd == topicStart) {
        return null;
      }
      if (topicEnd == uri.length()) {
        return new RecordsPath(uri.substring(topicStart), null, false);
      }
      if (!uri.startsWith(PARTITIONS, topicEnd)) {
        return null;
      }
      int digitsStart = topicEnd + PARTITIONS.length();
      int digitsEnd = skip(uri, digitsStart, RecordEndpointsFilter::isAsciiDigit);
      int digits = digitsEnd - digitsStart;
      if (digits == 0 || digits > 9) {
        return null;
      }
      boolean records;
      if (digitsEnd == uri.length()) {
        records = false;
      } else if (uri.length() - digitsEnd == RECORDS.length() && uri.endsWith(RECORDS)) {
        records = true;
      } else {
        return null;
      }
      return new RecordsPath(
          uri.substring(topicStart, topicEnd),
          Integer.parseInt(uri, digitsStart, digitsEnd, 10),
          records);
    }
  }

  /** Where the run of characters {@code wanted} accepts, from {@code from} on, ends. */
  private static int skip(String s, int from, CharPredicate wanted) {
    int end = from;
    while (end < s.length() && wanted.test(s.charAt(end))) {
      end++;
    }
    return end;
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  @FunctionalInterface
  private interface CharPredicate {
    boolean test(char c);
  }
}
