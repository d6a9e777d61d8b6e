package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.e2e.TestPorts;
import dev.tributary.tls.TestCertificates;
import dev.tributary.transport.http.PeerUrls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One broker, in process, with TLS on by configuration only: {@code server.ssl.bundle} naming a PEM
 * bundle made in the test (a CA and a broker certificate for 127.0.0.1). It is a one-voter cluster,
 * so its Raft port is on mutual TLS from the same bundle. Checks what a client, a browser page and
 * a peer see.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "server.ssl.bundle=cluster",
      "tributary.broker-id=1",
      "tributary.cluster-secret=tls-test-secret",
      // Client authentication on too, as a broker exposed on a network runs: TLS carries the key.
      "tributary.security.bootstrap-api-key=admin:"
          + "e2a0fff117d97083d5b9ff14e5ab42cb3b7fa6931d70c2465171658635d1bbce",
      "logging.level.dev.tributary=WARN"
    })
class TlsListenerTest {
  // The bootstrap key above is the SHA-256 of this token's secret.
  private static final String TOKEN = "admin.s3cret-for-tests-only-0123456789abcdefghij";
  private static final Path DIR = freshDir();
  private static final TestCertificates CA = TestCertificates.generate(DIR.resolve("ca"), "tls");
  private static final int RAFT_PORT = TestPorts.next();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;
  @Autowired HttpClient tributaryHttpClient;
  @Autowired PeerUrls peerUrls;

  private final HttpClient trustingClient =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(CA.trustingClientContext())
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  @DynamicPropertySource
  static void tlsBundleAndCluster(DynamicPropertyRegistry registry) {
    registry.add("tributary.data-dir", () -> DIR.resolve("data").toString());
    registry.add("tributary.controller.quorum-voters", () -> "1@127.0.0.1:" + RAFT_PORT);
    registry.add(
        "spring.ssl.bundle.pem.cluster.keystore.certificate", () -> "file:" + CA.brokerPem);
    registry.add(
        "spring.ssl.bundle.pem.cluster.keystore.private-key", () -> "file:" + CA.brokerKey);
    registry.add("spring.ssl.bundle.pem.cluster.truststore.certificate", () -> "file:" + CA.caPem);
  }

  @BeforeEach
  void waitUntilReady() {
    await("broker readiness over https")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> get(trustingClient, "https", "/actuator/health/readiness").statusCode() == 200);
  }

  @Test
  void aClientThatTrustsTheClusterCaGetsAnswersOverHttps() throws Exception {
    HttpResponse<String> clusters = get(trustingClient, "https", "/v3/clusters");
    assertThat(clusters.statusCode()).isEqualTo(200);
    assertThat(clusters.body()).contains("https://127.0.0.1:" + port + "/v3/clusters/");
  }

  @Test
  void plainHttpOnTheListenerGetsNoAnswerFromTheApi() throws Exception {
    // Tomcat answers plaintext on a TLS connector with a bare 400, never with the API.
    HttpResponse<String> plain = get(trustingClient, "http", "/v3/clusters");
    assertThat(plain.statusCode()).isEqualTo(400);
    assertThat(plain.body()).doesNotContain("cluster_id");
  }

  @Test
  void aClientThatDoesNotTrustTheClusterCaIsRefused() {
    HttpClient defaultTrust =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    assertThatThrownBy(() -> get(defaultTrust, "https", "/v3/clusters"))
        .isInstanceOf(SSLException.class);
  }

  @Test
  void brokersCallTheirPeersOverHttpsTrustingTheClusterCa() throws Exception {
    assertThat(peerUrls).isEqualTo(PeerUrls.TLS);
    HttpResponse<String> self =
        tributaryHttpClient.send(
            HttpRequest.newBuilder(peerUrls.uri("127.0.0.1", port, "/v3/clusters"))
                .header("X-Tributary-Cluster-Secret", "tls-test-secret")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(self.statusCode()).isEqualTo(200);
  }

  @Test
  void theDashboardAcceptsTheClustersHttpsOriginAndNotItsHttpOne() throws Exception {
    // A page of this broker opened as localhost: another origin than the request's, so CORS
    // applies, and a cluster origin (loopback names count as one host) when its scheme is https.
    String https = "https://localhost:" + port;
    assertThat(allowedOrigin(https)).isEqualTo(https);
    assertThat(allowedOrigin("http://localhost:" + port)).isNull();
  }

  @Test
  void theBrokerRegistersItsHttpListenerAsSsl() throws Exception {
    // A one-voter cluster registers over its own internal API: this crossed the HTTP channel.
    String clusterId =
        JSON.readTree(get(trustingClient, "https", "/v3/clusters").body())
            .get("data")
            .get(0)
            .get("cluster_id")
            .stringValue();
    JsonNode broker =
        JSON.readTree(
            get(trustingClient, "https", "/v3/clusters/" + clusterId + "/brokers/1").body());

    Map<String, JsonNode> listeners = new HashMap<>();
    broker.get("listeners").forEach(l -> listeners.put(l.get("name").stringValue(), l));
    assertThat(listeners).containsOnlyKeys("HTTP", "KAFKA");
    assertThat(listeners.get("HTTP").get("port").intValue()).isEqualTo(port);
    assertThat(listeners.get("HTTP").get("security_protocol").stringValue()).isEqualTo("SSL");
    // The Kafka listener serves TLS from the same bundle, with SASL since authentication is on.
    assertThat(listeners.get("KAFKA").get("security_protocol").stringValue()).isEqualTo("SASL_SSL");
  }

  @Test
  void theRaftPortRefusesAPeerWithoutAClusterCertificate() throws IOException {
    try (SSLSocket socket =
        (SSLSocket)
            CA.trustingClientContext().getSocketFactory().createSocket("127.0.0.1", RAFT_PORT)) {
      socket.setSoTimeout(10_000);
      // TLS 1.3: the client's side of the handshake completes; the server's refusal of a client
      // without a certificate arrives as an alert on the first read.
      assertThatThrownBy(
              () -> {
                socket.startHandshake();
                socket.getInputStream().read();
              })
          .isInstanceOf(SSLException.class)
          .hasMessageContaining("certificate_required");
    }
  }

  private String allowedOrigin(String origin) throws Exception {
    HttpResponse<String> response =
        trustingClient.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v3/clusters"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Origin", origin)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.headers().firstValue("Access-Control-Allow-Origin").orElse(null);
  }

  private HttpResponse<String> get(HttpClient client, String scheme, String path)
      throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + TOKEN)
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** In the build directory, next to {@code test-classes}, so a clean build removes it. */
  private static Path freshDir() {
    try {
      Path testClasses =
          Path.of(
              TlsListenerTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("tls-test-data"));
      return Files.createTempDirectory(parent, "broker-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
