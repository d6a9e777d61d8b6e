package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One in-process broker with security on, for the access-control tests of this package (API keys
 * and ACLs, consumers, the cluster secret, dashboard sign-in): the Spring configuration lives here
 * only, so every subclass has the same one and Spring's test context cache starts the broker once
 * (as {@code api.ApiTestSupport} does for the open broker). Tests isolate themselves by names made
 * unique with {@link #COUNTER}, never by restarting. Requests go over real HTTP with the JDK
 * client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.security.enabled=true",
      "tributary.security.bootstrap-api-key=admin:" + SecuredBrokerTestSupport.ADMIN_SECRET_SHA256,
      "tributary.cluster-secret=" + SecuredBrokerTestSupport.CLUSTER_SECRET,
      "tributary.group.initial-rebalance-delay-ms=0",
      "logging.level.dev.tributary=WARN"
    })
abstract class SecuredBrokerTestSupport {
  static final String ADMIN_SECRET = "s3cret-for-tests-only-0123456789abcdefghij";
  // sha256(ADMIN_SECRET), checked in SecurityApiTest.adminBootstrapKeyHashIsTheSecretsSha256
  static final String ADMIN_SECRET_SHA256 =
      "e2a0fff117d97083d5b9ff14e5ab42cb3b7fa6931d70c2465171658635d1bbce";
  static final String CLUSTER_SECRET = "cluster-secret-for-security-test";
  static final String ADMIN = "admin." + ADMIN_SECRET;
  static final AtomicInteger COUNTER = new AtomicInteger();
  private static final Path DATA_DIR = freshDataDir();
  static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static volatile String clusterId;

  @LocalServerPort int port;

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) {
    registry.add("tributary.data-dir", DATA_DIR::toString);
  }

  @BeforeEach
  void brokerReady() {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> send("GET", "/actuator/health/readiness", null, null).status == 200);
    if (clusterId == null) {
      clusterId =
          send("GET", "/v3/clusters", ADMIN, null)
              .json()
              .get("data")
              .get(0)
              .get("cluster_id")
              .stringValue();
    }
  }

  Response signIn(String keyId, String secret) {
    String form = "key_id=" + url(keyId) + "&secret=" + url(secret);
    return send("POST", "/login", null, form, "Content-Type", "application/x-www-form-urlencoded");
  }

  Key newKey(String principal) {
    Response r = postJson(v3("/api-keys"), "{\"principal\":\"" + principal + "\"}");
    assertThat(r.status).as(r.body).isEqualTo(201);
    JsonNode key = r.json();
    assertThat(key.get("token").stringValue())
        .isEqualTo(key.get("key_id").stringValue() + "." + key.get("secret").stringValue());
    return new Key(principal, key.get("key_id").stringValue(), key.get("secret").stringValue());
  }

  void acl(String principal, String operation, String type, String pattern, String name) {
    Response r =
        postJson(
            v3("/acls"),
            "{\"principal\":\""
                + principal
                + "\",\"operation\":\""
                + operation
                + "\",\"resource_type\":\""
                + type
                + "\",\"pattern_type\":\""
                + pattern
                + "\",\"resource_name\":\""
                + name
                + "\"}");
    assertThat(r.status).as(r.body).isEqualTo(201);
  }

  void createTopic(String name) {
    Response r =
        postJson(v3("/topics"), "{\"topic_name\":\"" + name + "\",\"partitions_count\":1}");
    assertThat(r.status).as(r.body).isEqualTo(201);
  }

  Response postJson(String path, String body) {
    return send("POST", path, ADMIN, body, "Content-Type", "application/json");
  }

  static String records() {
    return "{\"records\":[{\"value\":{\"n\":1}}]}";
  }

  String v3(String suffix) {
    return "/v3/clusters/" + clusterId + suffix;
  }

  static String url(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.stringValue()));
    return out;
  }

  Response send(String method, String path, String token, String body, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    boolean contentType = false;
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
      contentType |= headers[i].equalsIgnoreCase("Content-Type");
    }
    if (body != null && !contentType) {
      b.header("Content-Type", "application/vnd.kafka.json.v2+json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body(), r.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    }
  }

  static void assertError(Response r, int status, int code, String fragment) {
    assertThat(r.status).as(r.body).isEqualTo(status);
    JsonNode json = r.json();
    assertThat(json.get("error_code").asInt()).as(r.body).isEqualTo(code);
    assertThat(json.get("message").stringValue()).contains(fragment);
  }

  private static Path freshDataDir() {
    // In the build directory, next to test-classes, so a clean build removes it.
    try {
      Path testClasses =
          Path.of(
              SecuredBrokerTestSupport.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("security-test-data"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  record Key(String principal, String id, String secret) {
    String token() {
      return id + "." + secret;
    }
  }

  record Response(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      return JSON.readTree(body);
    }
  }
}
