package dev.tributary.auth;

import static dev.tributary.api.HostileEncodings.FORM;
import static dev.tributary.api.HostileEncodings.assertEachRefusedQuietly;
import static dev.tributary.api.HostileEncodings.inFormBody;
import static dev.tributary.api.HostileEncodings.inPath;
import static dev.tributary.api.HostileEncodings.inQuery;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.api.HostileEncodings;
import dev.tributary.api.HostileEncodings.Answer;
import dev.tributary.api.HostileEncodings.Hostile;
import dev.tributary.security.ApiKeySecrets;
import dev.tributary.transport.http.InternalApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code api.HostileEncodingApiTest} on a broker with security on: a request that does not decode
 * is 400 40007 whoever sends it — anonymous (not 401: the check comes before authentication, which
 * could otherwise be what reads the parameters), with an API key, and at internal endpoints with
 * and without the cluster secret — and leaves no stack trace in the log.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "tributary.security.enabled=true",
      "tributary.security.bootstrap-api-key=admin:" + HostileEncodingSecuredApiTest.ADMIN_SHA256,
      "tributary.cluster-secret=" + HostileEncodingSecuredApiTest.CLUSTER_SECRET,
      "logging.level.dev.tributary=WARN"
    })
class HostileEncodingSecuredApiTest {
  static final String ADMIN_SECRET = "hostile-encoding-admin-secret-0123456789abcdef";
  // sha256(ADMIN_SECRET), checked in adminKeyHashIsTheSecretsSha256
  static final String ADMIN_SHA256 =
      "778457375ce2c64413f73f9c205a234f7de6e6791e6663aa9b12fd71b8f99cd6";
  static final String CLUSTER_SECRET = "cluster-secret-for-hostile-encoding-test";
  private static final String[] ADMIN = {"Authorization", "Bearer admin." + ADMIN_SECRET};
  private static final String[] BROKER = {InternalApi.SECRET_HEADER, CLUSTER_SECRET};
  private static final Path DATA_DIR = freshDataDir();

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
        .until(() -> send("GET", "/actuator/health/readiness", null, null).status() == 200);
  }

  @Test
  void adminKeyHashIsTheSecretsSha256() {
    assertThat(ApiKeySecrets.sha256(ADMIN_SECRET)).isEqualTo(ADMIN_SHA256);
  }

  @Test
  void anonymousRequestsThatDoNotDecodeAre400NotA401() {
    assertEachRefusedQuietly(port, everyFamily());
  }

  @Test
  void requestsWithAnApiKeyThatDoNotDecodeAre400() {
    assertEachRefusedQuietly(port, everyFamily(ADMIN));
  }

  @Test
  void internalRequestsThatDoNotDecodeAre400WithOrWithoutTheClusterSecret() {
    List<Hostile> requests = new ArrayList<>();
    for (String[] headers : List.of(BROKER, new String[0])) {
      requests.addAll(inQuery("GET", "/internal/v1/consumer/fetch", null, null, headers));
      requests.addAll(
          inQuery("POST", "/internal/v1/replica/fetch", "application/json", "{}", headers));
      requests.addAll(inFormBody("/internal/v1/groups/join", headers));
      requests.addAll(inPath("POST", "/internal/v1/", "/fetch", headers));
    }
    assertEachRefusedQuietly(port, requests);
  }

  @Test
  void wellEncodedTextIsStillAskedForCredentialsAndServedWithThem() {
    String query = "?offset=0&x=%E2%82%AC%F0%9F%92%A9";
    assertThat(send("GET", "/topics" + query, null, null).status()).isEqualTo(401);
    assertThat(send("GET", "/topics" + query, null, null, ADMIN).status()).isEqualTo(200);
    Answer login = send("POST", "/login", FORM, "key_id=admin&secret=%E2%82%AC");
    assertThat(login.status()).as(login.body()).isNotEqualTo(400).isLessThan(500);
  }

  /** The query, form and path cases at one endpoint of every family, with {@code headers}. */
  private List<Hostile> everyFamily(String... headers) {
    String cluster = "/v3/clusters/" + clusterId();
    List<Hostile> requests = new ArrayList<>();
    for (String path :
        List.of(
            "/topics",
            "/topics/t/partitions/0/records",
            cluster + "/topics",
            cluster + "/acls",
            cluster + "/consumer-groups/g/lags",
            "/consumers/g/instances/c/records",
            "/actuator/health",
            "/actuator/prometheus",
            "/dashboard/state",
            "/",
            "/login",
            "/v3/whoami")) {
      requests.addAll(inQuery("GET", path, null, null, headers));
    }
    String records = "{\"records\":[{\"value\":1}]}";
    requests.addAll(
        inQuery("POST", "/topics/t", "application/vnd.kafka.json.v2+json", records, headers));
    requests.addAll(inQuery("POST", "/login", FORM, "key_id=a&secret=b", headers));
    requests.addAll(inFormBody("/login", headers));
    requests.addAll(inFormBody("/topics/t", headers));
    requests.addAll(inFormBody("/dashboard/actions/brokers/1/pause-fetching", headers));
    requests.addAll(inPath("GET", "/topics/", "/partitions/0/records", headers));
    requests.addAll(inPath("GET", cluster + "/topics/", "", headers));
    requests.addAll(inPath("GET", "/actuator/", "", headers));
    return requests;
  }

  private String clusterId() {
    return send("GET", "/v3/clusters", null, null, ADMIN)
        .json()
        .get("data")
        .get(0)
        .get("cluster_id")
        .stringValue();
  }

  private Answer send(
      String method, String target, String contentType, String body, String... headers) {
    return HostileEncodings.send(port, method, target, contentType, body, headers);
  }

  private static Path freshDataDir() {
    // In the build directory, next to test-classes, so a clean build removes it.
    try {
      Path testClasses =
          Path.of(
              HostileEncodingSecuredApiTest.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("security-test-data"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
