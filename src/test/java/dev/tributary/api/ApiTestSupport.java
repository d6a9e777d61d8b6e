package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One real broker on a random port for every HTTP contract test: the Spring configuration is
 * identical in every subclass, so Spring's test context cache starts the broker once per JVM. Tests
 * isolate themselves by topic name ({@link #newTopicName()}), never by restarting. Requests go over
 * real HTTP with the JDK client.
 *
 * <p>The data directory is fresh per JVM and lives in the build directory (next to {@code
 * test-classes}), so a clean build removes it.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.log-periodic-task-interval-ms=200",
      "tributary.request-timeout-ms=10000",
      "tributary.group.initial-rebalance-delay-ms=0",
      "tributary.max-request-bytes=4194304",
      // Access control has its own test (SecurityApiTest); these test what every principal sees.
      "tributary.security.enabled=false",
      "tributary.max-connections-per-client=200",
      "tributary.request-body-timeout-ms=5000",
      "tributary.quota.producer-byte-rate-overrides[Anonymous\\:127.0.0.5]=1000",
      "tributary.quota.producer-byte-rate-overrides[Anonymous\\:127.0.0.6]=1000",
      "logging.level.dev.tributary=WARN"
    })
abstract class ApiTestSupport {
  static final String JSON = "application/json";
  static final String V2_JSON = "application/vnd.kafka.v2+json";
  static final String EMBEDDED_JSON = "application/vnd.kafka.json.v2+json";
  static final String EMBEDDED_BINARY = "application/vnd.kafka.binary.v2+json";

  /**
   * Topic configs that turn off time-based retention, for records with explicit timestamps long
   * past.
   */
  static final String KEEP_FOREVER = "[{\"name\":\"retention.ms\",\"value\":\"-1\"}]";

  static final JsonMapper mapper = JsonMapper.builder().build();

  private static final Path DATA_DIR = freshDataDir();
  private static final AtomicInteger TOPIC_COUNTER = new AtomicInteger();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private static volatile boolean brokerReady;
  private static volatile String clusterId;

  @LocalServerPort int port;
  private String testName;

  @DynamicPropertySource
  static void brokerDataDir(DynamicPropertyRegistry registry) {
    registry.add("tributary.data-dir", DATA_DIR::toString);
  }

  @BeforeEach
  void waitUntilBrokerIsReady(TestInfo info) {
    testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    if (!brokerReady) {
      await("broker readiness")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(() -> get("/actuator/health/readiness").status() == 200);
      brokerReady = true;
    }
  }

  // ---- names
  // -------------------------------------------------------------------------------------------------

  /** A topic name no other test uses, readable in logs: {@code t7-methodName}. */
  String newTopicName() {
    String name = "t" + TOPIC_COUNTER.incrementAndGet() + "-" + testName;
    return name.length() > 200 ? name.substring(0, 200) : name;
  }

  String clusterId() {
    if (clusterId == null) {
      clusterId = get("/v3/clusters").json().get("data").get(0).get("cluster_id").stringValue();
    }
    return clusterId;
  }

  /** The absolute URL the broker puts in {@code self} and {@code related} links. */
  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  /** {@code /v3/clusters/{id}} followed by {@code suffix}. */
  String v3(String suffix) {
    return "/v3/clusters/" + clusterId() + suffix;
  }

  static String encode(String pathSegment) {
    return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  // ---- HTTP
  // --------------------------------------------------------------------------------------------------

  /** A finished exchange: status, headers and body, with the body parsed on demand. */
  record Response(int status, java.net.http.HttpHeaders headers, String body) {
    JsonNode json() {
      return mapper.readTree(body);
    }

    Optional<String> header(String name) {
      return headers.firstValue(name);
    }

    String contentType() {
      return header("Content-Type").orElse("");
    }
  }

  Response get(String path, String... headerPairs) {
    return send(request(path, headerPairs).GET());
  }

  CompletableFuture<Response> getAsync(String path, String... headerPairs) {
    return CLIENT
        .sendAsync(request(path, headerPairs).GET().build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> new Response(r.statusCode(), r.headers(), r.body()));
  }

  /** POST with a Content-Type, or with none when {@code contentType} is null. */
  Response post(String path, String contentType, String body) {
    return send(withBody(request(path), "POST", contentType, body));
  }

  /** Any method, body, Content-Type and Accept; an empty type or accept sends no such header. */
  Response sendWithBody(
      String method, String path, String contentType, String body, String accept) {
    HttpRequest.Builder builder = request(path);
    if (!accept.isEmpty()) {
      builder.header("Accept", accept);
    }
    return send(withBody(builder, method, contentType.isEmpty() ? null : contentType, body));
  }

  /** Any method with a body (REST Proxy's GET .../offsets takes one). */
  Response sendWithBody(String method, String path, String contentType, String body) {
    return send(withBody(request(path), method, contentType, body));
  }

  Response put(String path, String body) {
    return send(withBody(request(path), "PUT", JSON, body));
  }

  Response patch(String path, String body) {
    return send(withBody(request(path), "PATCH", JSON, body));
  }

  Response delete(String path) {
    return send(request(path).DELETE());
  }

  private HttpRequest.Builder request(String path, String... headerPairs) {
    try {
      HttpRequest.Builder builder =
          HttpRequest.newBuilder(new URI("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(30));
      for (int i = 0; i < headerPairs.length; i += 2) {
        builder.header(headerPairs[i], headerPairs[i + 1]);
      }
      return builder;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(path, e);
    }
  }

  private static HttpRequest.Builder withBody(
      HttpRequest.Builder builder, String method, String contentType, String body) {
    if (contentType != null) {
      builder.header("Content-Type", contentType);
    }
    return builder.method(
        method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
  }

  private static Response send(HttpRequest.Builder builder) {
    try {
      HttpResponse<String> r = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.headers(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // ---- domain shortcuts
  // --------------------------------------------------------------------------------------

  /** Produces {@code body} to {@code /topics/{topic}} in the JSON format and expects 200. */
  JsonNode produceJson(String topic, String body) {
    return expectOk(post("/topics/" + topic, EMBEDDED_JSON, body));
  }

  JsonNode produceBinary(String topic, String body) {
    return expectOk(post("/topics/" + topic, EMBEDDED_BINARY, body));
  }

  /** Creates a topic through v3 and expects 201. */
  void createTopic(String topic, int partitions, String configsJson) {
    Response r =
        post(
            v3("/topics"),
            JSON,
            "{\"topic_name\":\""
                + topic
                + "\",\"partitions_count\":"
                + partitions
                + ",\"configs\":"
                + configsJson
                + "}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
  }

  void createTopic(String topic, int partitions) {
    createTopic(topic, partitions, "[]");
  }

  /** Reads from {@code offset} in the JSON format and expects 200. */
  JsonNode readJson(String topic, int partition, long offset) {
    return expectOk(
        get("/topics/" + topic + "/partitions/" + partition + "/records?offset=" + offset));
  }

  JsonNode readBinary(String topic, int partition, long offset) {
    return expectOk(
        get(
            "/topics/" + topic + "/partitions/" + partition + "/records?offset=" + offset,
            "Accept",
            EMBEDDED_BINARY));
  }

  JsonNode offsets(String topic, int partition) {
    return expectOk(get("/topics/" + topic + "/partitions/" + partition + "/offsets"));
  }

  long endOffset(String topic, int partition) {
    return offsets(topic, partition).get("log_end_offset").longValue();
  }

  /**
   * Where each record of a produce response went, in request order, as {@code "partition:offset"}.
   */
  static List<String> placements(JsonNode produceResponse) {
    List<String> out = new ArrayList<>();
    for (JsonNode o : produceResponse.get("offsets")) {
      out.add(o.get("partition").intValue() + ":" + o.get("offset").longValue());
    }
    return out;
  }

  static List<Integer> partitionsOf(JsonNode produceResponse) {
    List<Integer> out = new ArrayList<>();
    produceResponse.get("offsets").forEach(o -> out.add(o.get("partition").intValue()));
    return out;
  }

  static List<Long> offsetsOf(JsonNode produceResponse) {
    List<Long> out = new ArrayList<>();
    produceResponse.get("offsets").forEach(o -> out.add(o.get("offset").longValue()));
    return out;
  }

  static JsonNode expectOk(Response r) {
    assertThat(r.status())
        .as("status of a request that should succeed; body: %s", r.body())
        .isEqualTo(200);
    return r.json();
  }

  /**
   * Asserts the error contract: the status, a JSON body that is exactly {@code {"error_code",
   * "message"}}, the error code, and that the message contains {@code messageFragment}.
   */
  static void assertError(Response r, int status, int errorCode, String messageFragment) {
    assertThat(r.status()).as("status; body: %s", r.body()).isEqualTo(status);
    assertThat(r.contentType()).as("error Content-Type").startsWith(JSON);
    JsonNode body = r.json();
    assertThat(body.propertyNames())
        .as("error body fields: %s", r.body())
        .containsExactlyInAnyOrder("error_code", "message");
    assertThat(body.get("error_code").intValue())
        .as("error_code; body: %s", r.body())
        .isEqualTo(errorCode);
    assertThat(body.get("message").stringValue()).contains(messageFragment);
  }

  /** The element of a JSON array whose string {@code field} equals {@code value}. */
  static JsonNode find(JsonNode array, String field, String value) {
    for (JsonNode element : array) {
      if (element.path(field).isString() && value.equals(element.get(field).stringValue())) {
        return element;
      }
    }
    throw new AssertionError("no element with " + field + "=" + value + " in " + array);
  }

  private static Path freshDataDir() {
    try {
      Path testClasses =
          Path.of(ApiTestSupport.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("api-test-data"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
