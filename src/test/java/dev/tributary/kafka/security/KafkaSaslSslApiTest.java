package dev.tributary.kafka.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.kafka.KafkaListener;
import dev.tributary.tls.TestCertificates;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
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
 * A broker with authentication on and {@code server.ssl.bundle} set (a PEM bundle made in the test,
 * as {@code config.TlsListenerTest} makes one): its Kafka listener is SASL_SSL with the HTTP
 * listener's certificate, and unmodified kafka-clients that trust the cluster's CA and present an
 * API key produce and consume over it.
 *
 * <p>A context of its own, in a package with no other: Spring pauses a cached context (which stops
 * its broker for good) when a class with another context runs between two of its classes.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "server.ssl.bundle=cluster",
      "tributary.security.enabled=true",
      "tributary.security.bootstrap-api-key=admin:"
          + "e2a0fff117d97083d5b9ff14e5ab42cb3b7fa6931d70c2465171658635d1bbce",
      "tributary.cluster-secret=sasl-ssl-test-secret",
      "logging.level.dev.tributary=WARN"
    })
class KafkaSaslSslApiTest {
  // The bootstrap key above is the SHA-256 of this secret.
  private static final String ADMIN_SECRET = "s3cret-for-tests-only-0123456789abcdefghij";
  private static final String ADMIN = "admin." + ADMIN_SECRET;
  private static final Path DIR = freshDir();
  private static final TestCertificates CA =
      TestCertificates.generate(DIR.resolve("ca"), "kafka-tls");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;
  @Autowired KafkaListener kafka;

  private final HttpClient https =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(CA.trustingClientContext())
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private String clusterId;

  @DynamicPropertySource
  static void tlsBundle(DynamicPropertyRegistry registry) {
    registry.add("tributary.data-dir", () -> DIR.resolve("data").toString());
    registry.add(
        "spring.ssl.bundle.pem.cluster.keystore.certificate", () -> "file:" + CA.brokerPem);
    registry.add(
        "spring.ssl.bundle.pem.cluster.keystore.private-key", () -> "file:" + CA.brokerKey);
    registry.add("spring.ssl.bundle.pem.cluster.truststore.certificate", () -> "file:" + CA.caPem);
  }

  @BeforeEach
  void brokerReady() {
    await("broker readiness over https")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> send("GET", "/actuator/health/readiness", null).statusCode() == 200);
    clusterId =
        json(send("GET", "/v3/clusters", null)).get("data").get(0).get("cluster_id").stringValue();
  }

  /** A client of the SASL_SSL listener that trusts the cluster's CA (a PEM trust store). */
  private Properties saslSsl(String keyId, String secret) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + kafka.port());
    p.put("security.protocol", "SASL_SSL");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", CA.caPem.toString());
    p.put("sasl.mechanism", "PLAIN");
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + keyId
            + "\" password=\""
            + secret
            + "\";");
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "15000");
    return p;
  }

  @Test
  void aKeysProducerAndConsumerWorkOverSaslSsl() throws Exception {
    String topic = "sasl-ssl-rw";
    assertThat(
            post("/topics", "{\"topic_name\":\"" + topic + "\",\"partitions_count\":1}")
                .statusCode())
        .isEqualTo(201);
    JsonNode key = json(post("/api-keys", "{\"principal\":\"User:tls-client\"}"));
    for (String operation : List.of("WRITE", "READ")) {
      HttpResponse<String> acl =
          post(
              "/acls",
              "{\"principal\":\"User:tls-client\",\"operation\":\""
                  + operation
                  + "\",\"resource_type\":\"TOPIC\",\"pattern_type\":\"LITERAL\","
                  + "\"resource_name\":\""
                  + topic
                  + "\"}");
      assertThat(acl.statusCode()).as(acl.body()).isEqualTo(201);
    }
    String keyId = key.get("key_id").stringValue();
    String secret = key.get("secret").stringValue();

    Properties producerProps = saslSsl(keyId, secret);
    producerProps.put("acks", "all");
    producerProps.put("enable.idempotence", "false");
    producerProps.put("max.block.ms", "15000");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 3; i++) {
        assertThat(producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get().offset())
            .isEqualTo(i);
      }
    }
    Properties consumerProps = saslSsl(keyId, secret);
    consumerProps.put("enable.auto.commit", "false");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<String> values = new ArrayList<>();
      long deadline = System.currentTimeMillis() + 20_000;
      while (values.size() < 3 && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      // Fetched batches go out through TLS (no sendfile): the same records.
      assertThat(values).containsExactly("v0", "v1", "v2");
    }
  }

  @Test
  void aClientThatDoesNotTrustTheClusterCaFailsTheHandshake() {
    Properties untrusting = saslSsl("admin", ADMIN_SECRET);
    untrusting.remove("ssl.truststore.type");
    untrusting.remove("ssl.truststore.location"); // the JDK's default CAs
    try (Admin admin = Admin.create(untrusting)) {
      assertThatThrownBy(() -> admin.listTopics().names().get())
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(SslAuthenticationException.class);
    }
  }

  @Test
  void aClientWithoutTlsGetsNoAnswer() {
    Properties plaintext = saslSsl("admin", ADMIN_SECRET);
    plaintext.put("security.protocol", "SASL_PLAINTEXT");
    try (Admin admin = Admin.create(plaintext)) {
      // Its SaslHandshake is no TLS record: the broker closes the connection, every retry.
      assertThatThrownBy(
              () -> admin.listTopics(new ListTopicsOptions().timeoutMs(3000)).names().get())
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TimeoutException.class);
    }
  }

  @Test
  void theBrokerRegistersItsKafkaListenerAsSaslSsl() throws Exception {
    JsonNode listeners =
        json(send("GET", "/v3/clusters/" + clusterId + "/brokers/1", null)).get("listeners");
    List<String> protocols = new ArrayList<>();
    listeners.forEach(
        l ->
            protocols.add(
                l.get("name").stringValue() + "=" + l.get("security_protocol").stringValue()));
    assertThat(protocols).containsExactlyInAnyOrder("HTTP=SSL", "KAFKA=SASL_SSL");
  }

  private HttpResponse<String> post(String suffix, String body) {
    return send("POST", "/v3/clusters/" + clusterId + suffix, body);
  }

  private HttpResponse<String> send(String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + ADMIN)
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    try {
      return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode json(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    return JSON.readTree(response.body());
  }

  /** In the build directory, next to {@code test-classes}, so a clean build removes it. */
  private static Path freshDir() {
    try {
      Path testClasses =
          Path.of(
              KafkaSaslSslApiTest.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI());
      Path parent = Files.createDirectories(testClasses.getParent().resolve("tls-test-data"));
      return Files.createTempDirectory(parent, "kafka-sasl-ssl-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
