package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.server.RequestContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Per-client limits (docs/security.md "Limits"), each from its own loopback address so that no
 * other test's traffic counts against it: consumer instances per principal, requests in flight,
 * connections per address, and the produce quota (1,000 bytes/s for {@code Anonymous:127.0.0.5} and
 * {@code Anonymous:127.0.0.6} in these tests).
 */
class ClientLimitsApiTest extends ApiTestSupport {
  @Autowired InFlightLimitFilter inFlight;
  @Autowired MeterRegistry registry;

  private ApiTestSupport.Response rawPost(String from, String path, String type, String body) {
    return RawHttp.send(from, port, "POST", path, type, body);
  }

  private ApiTestSupport.Response rawGet(String from, String path) {
    return RawHttp.send(from, port, "GET", path, null, null);
  }

  @Test
  void aPrincipalPastItsConsumerInstanceCapIsRefusedWhileOthersAreNot() {
    String from = "127.0.0.6";
    String group = "g-" + newTopicName();
    List<String> created = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) {
        ApiTestSupport.Response r = rawPost(from, "/consumers/" + group, V2_JSON, "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        created.add(r.json().get("instance_id").stringValue());
      }
      assertError(
          rawPost(from, "/consumers/" + group, V2_JSON, "{}"),
          429,
          42901,
          "tributary.max-consumer-instances-per-principal=100");

      // another client is not affected
      ApiTestSupport.Response other = post("/consumers/" + group, V2_JSON, "{\"name\":\"other\"}");
      assertThat(other.status()).as(other.body()).isEqualTo(200);
      assertThat(delete("/consumers/" + group + "/instances/other").status()).isEqualTo(204);

      // deleting one makes room for one
      String gone = created.remove(0);
      assertThat(
              RawHttp.send(
                      from,
                      port,
                      "DELETE",
                      "/consumers/" + group + "/instances/" + gone,
                      null,
                      null)
                  .status())
          .isEqualTo(204);
      ApiTestSupport.Response again = rawPost(from, "/consumers/" + group, V2_JSON, "{}");
      assertThat(again.status()).as(again.body()).isEqualTo(200);
      created.add(again.json().get("instance_id").stringValue());
    } finally {
      for (String id : created) {
        delete("/consumers/" + group + "/instances/" + id);
      }
    }
  }

  /** Headers of a produce whose body never comes: the request holds a thread reading it. */
  private Socket stalledProduce(String from, String topic) throws IOException {
    Socket socket = RawHttp.connect(from, port);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST /topics/"
                + topic
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                + EMBEDDED_JSON
                + "\r\nContent-Length: 100000\r\n\r\n{\"records\":[")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing is all we want
      }
    }
  }

  @Test
  void aClientWithAsManyRequestsInFlightAsAllowedIsToldToRetryLater() throws Exception {
    String from = "127.0.0.7";
    String client = RequestContext.ANONYMOUS_PREFIX + from;
    String topic = newTopicName();
    createTopic(topic, 1);
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 32; i++) {
        stalled.add(stalledProduce(from, topic));
      }
      await("32 stalled produces in flight")
          .atMost(Duration.ofSeconds(20))
          .until(() -> inFlight.inFlight(client) == 32);

      ApiTestSupport.Response refused = rawGet(from, "/topics");
      assertError(refused, 429, 42902, "tributary.max-in-flight-requests-per-client");
      assertThat(refused.header("Retry-After")).contains("1");
      assertThat(get("/topics").status()).as("another client").isEqualTo(200);
    } finally {
      closeAll(stalled);
    }
    await("the stalled requests end when their connections close")
        .atMost(Duration.ofSeconds(20))
        .until(() -> inFlight.inFlight(client) == 0);
    assertThat(rawGet(from, "/topics").status()).isEqualTo(200);
    assertThat(endOffset(topic, 0)).as("nothing of the stalled produces was appended").isZero();
  }

  @Test
  void aConnectionPastTheCapPerAddressIsAnsweredWith429AndClosed() throws Exception {
    String from = "127.0.0.8";
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) {
        open.add(RawHttp.connect(from, port));
      }
      // Tomcat accepts connections in order on one thread: by the time it takes this one, it has
      // registered the 200 before it.
      try (Socket extra = RawHttp.connect(from, port)) {
        assertError(
            RawHttp.read(extra.getInputStream()),
            429,
            42903,
            "tributary.max-connections-per-client");
      }
      assertThat(get("/topics").status()).as("another address").isEqualTo(200);
    } finally {
      closeAll(open);
    }
    await("the address may connect again once its connections are closed")
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> rawGet(from, "/topics").status() == 200);
  }

  @Test
  void aV3ProducerOverItsQuotaIsAnsweredLateAndToldByHowMuch() {
    String from = "127.0.0.6"; // 1,000 bytes/s in ApiTestSupport
    String topic = newTopicName();
    createTopic(topic, 1);
    String path = "/v3/clusters/" + clusterId() + "/topics/" + topic + "/records";
    String big = "{\"value\":{\"type\":\"STRING\",\"data\":\"" + "x".repeat(12_000) + "\"}}";

    long startNs = System.nanoTime();
    ApiTestSupport.Response throttled = rawPost(from, path, JSON, big);
    long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;

    assertThat(throttled.status()).as(throttled.body()).isEqualTo(200);
    long throttleMs =
        Long.parseLong(throttled.header(ProduceController.THROTTLE_TIME_HEADER).orElseThrow());
    assertThat(throttleMs).isPositive();
    assertThat(elapsedMs)
        .as("the answer waited out the throttle")
        .isGreaterThanOrEqualTo(throttleMs);
    assertThat(endOffset(topic, 0)).as("throttled, not dropped").isEqualTo(1);
  }

  @Test
  void aProducerOverItsQuotaIsAnsweredLateAndToldByHowMuch() {
    String from = "127.0.0.5"; // 1,000 bytes/s in ApiTestSupport
    String principal = RequestContext.ANONYMOUS_PREFIX + from;
    String topic = newTopicName();
    createTopic(topic, 1);

    ApiTestSupport.Response first =
        rawPost(from, "/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}");
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.header(ProduceController.THROTTLE_TIME_HEADER)).contains("0");

    // ~12 KB against 1,000 bytes/s measured over at least 10 s: about 2 s of throttle
    String big = "{\"records\":[{\"value\":\"" + "x".repeat(12_000) + "\"}]}";
    long startNs = System.nanoTime();
    ApiTestSupport.Response throttled = rawPost(from, "/topics/" + topic, EMBEDDED_JSON, big);
    long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;

    assertThat(throttled.status()).as(throttled.body()).isEqualTo(200);
    long throttleMs =
        Long.parseLong(throttled.header(ProduceController.THROTTLE_TIME_HEADER).orElseThrow());
    assertThat(throttleMs).isPositive();
    assertThat(elapsedMs)
        .as("the answer waited out the throttle")
        .isGreaterThanOrEqualTo(throttleMs);
    assertThat(endOffset(topic, 0)).as("throttled, not dropped").isEqualTo(2);

    Timer timer =
        registry.find("tributary.quota.produce.throttle.time").tag("principal", principal).timer();
    assertThat(timer).isNotNull();
    assertThat(timer.count()).isEqualTo(2);
    assertThat(timer.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(throttleMs);
    assertThat(
            registry
                .find("tributary.quota.produce.byte.rate")
                .tag("principal", principal)
                .gauge()
                .value())
        .isGreaterThan(1_000.0);
    assertThat(get("/actuator/prometheus").body())
        .contains(
            "tributary_quota_produce_throttle_time_seconds_count{principal=\"" + principal + "\"}")
        .contains("tributary_quota_produce_byte_rate_bytes{principal=\"" + principal + "\"}");
  }
}
