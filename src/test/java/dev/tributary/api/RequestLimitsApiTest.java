package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Limits on one request: the body size ({@code tributary.max-request-bytes}, 4 MiB in these tests:
 * a body over it is refused with 413 41302 whether its length is declared or it arrives chunked,
 * and nothing of it is appended; a body under it is taken), the records in a produce, the JSON
 * nesting depth, and the size and number of headers (refused by Tomcat, answered in the JSON
 * shape).
 */
class RequestLimitsApiTest extends ApiTestSupport {
  private static final int CAP = 4 * 1024 * 1024;

  /** A produce body of {@code records} JSON records with 1,000-character values. */
  private static String produceBody(int records) {
    StringBuilder body = new StringBuilder("{\"records\":[");
    String value = "v".repeat(1_000);
    for (int i = 0; i < records; i++) {
      body.append(i == 0 ? "" : ",").append("{\"value\":\"").append(value).append("\"}");
    }
    return body.append("]}").toString();
  }

  private HttpResponse<String> chunkedPost(String path, String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(new URI(baseUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", EMBEDDED_JSON)
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes)))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aBodyOverTheCapIsRefusedWithItsLengthDeclaredAndAppendsNothing() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String body = produceBody(CAP / 1_000 + 100);
    assertThat(body.length()).isGreaterThan(CAP);

    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, body), 413, 41302, "tributary.max-request-bytes");
    assertThat(offsets(topic, 0).get("log_end_offset").longValue()).isZero();
  }

  @Test
  void aChunkedBodyOverTheCapIsRefusedAndAppendsNothing() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    HttpResponse<String> r = chunkedPost("/topics/" + topic, produceBody(CAP / 1_000 + 100));

    assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
    assertThat(mapper.readTree(r.body()).get("error_code").intValue()).isEqualTo(41302);
    assertThat(offsets(topic, 0).get("log_end_offset").longValue()).isZero();
  }

  @Test
  void aBodyUnderTheCapIsTakenChunkedOrNot() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    String body = produceBody(3_000); // ~3 MB, under the cap
    assertThat(post("/topics/" + topic, EMBEDDED_JSON, body).status()).isEqualTo(200);
    assertThat(chunkedPost("/topics/" + topic, body).statusCode()).isEqualTo(200);
    assertThat(offsets(topic, 0).get("log_end_offset").longValue()).isEqualTo(6_000);
  }

  /** A JSON value nested {@code depth} arrays deep. */
  private static String nested(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }

  @Test
  void aProduceOfMoreRecordsThanAllowedIsRefusedWholeAndAppendsNothing() {
    String topic = newTopicName();
    createTopic(topic, 1);
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 10_001; i++) {
      body.append(i == 0 ? "" : ",").append("{\"value\":").append(i).append("}");
    }
    String tooMany = body.append("]}").toString();

    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, tooMany),
        413,
        41303,
        "tributary.max-records-per-request=10000");
    assertThat(endOffset(topic, 0)).isZero();

    String justEnough = tooMany.replace(",{\"value\":10000}]}", "]}");
    assertThat(post("/topics/" + topic, EMBEDDED_JSON, justEnough).status()).isEqualTo(200);
    assertThat(endOffset(topic, 0)).isEqualTo(10_000);
  }

  @Test
  void jsonNestedDeeperThanTheBoundIsRefusedOnEveryKindOfBody() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String deep = nested(100);

    // produce: read by the produce parser
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"value\":" + deep + "}]}"),
        400,
        40004,
        "tributary.max-json-nesting-depth");
    assertThat(endOffset(topic, 0)).isZero();
    // consumer configs: read by Spring's message converter into a JsonNode
    assertError(
        post("/consumers/g-" + topic, V2_JSON, "{\"format\":" + deep + "}"),
        400,
        40004,
        "nests deeper than 64 levels");
    // v3 admin body
    assertError(
        post(v3("/topics"), JSON, "{\"topic_name\":\"x\",\"configs\":" + deep + "}"),
        400,
        40004,
        "nests deeper than 64 levels");

    // 50 levels of value inside the 3 of the envelope are fine
    assertThat(
            post(
                    "/topics/" + topic,
                    EMBEDDED_JSON,
                    "{\"records\":[{\"value\":" + nested(50) + "}]}")
                .status())
        .isEqualTo(200);
  }

  private Response rawRequest(String head) throws Exception {
    try (Socket socket = RawHttp.connect("127.0.0.1", port)) {
      socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      return RawHttp.read(socket.getInputStream());
    }
  }

  @Test
  void headersLargerThanTomcatsLimitAreAnsweredInTheJsonShape() throws Exception {
    assertError(
        rawRequest(
            "GET /topics HTTP/1.1\r\nHost: x\r\nX-Big: "
                + "a".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n"),
        431,
        43101,
        "server.max-http-request-header-size=8192 bytes");
    assertError(
        rawRequest(
            "GET /topics?"
                + "a".repeat(20_000)
                + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        431,
        43101,
        "request line");
    assertThat(get("/topics").status()).isEqualTo(200);
  }

  @Test
  void moreHeadersThanAllowedAreAnsweredInTheJsonShape() throws Exception {
    StringBuilder head =
        new StringBuilder("GET /topics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (int i = 0; i < 150; i++) {
      head.append("X-H").append(i).append(": v\r\n");
    }
    assertError(
        rawRequest(head.append("\r\n").toString()),
        431,
        43102,
        "tributary.max-http-header-count=100");

    StringBuilder fewer =
        new StringBuilder("GET /topics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (int i = 0; i < 90; i++) {
      fewer.append("X-H").append(i).append(": v\r\n");
    }
    assertThat(rawRequest(fewer.append("\r\n").toString()).status()).isEqualTo(200);
  }

  @Test
  void aMalformedRequestLineIsAnsweredInTheJsonShape() throws Exception {
    assertError(
        rawRequest("GET /topics HTTP/1.1\r\nHost: x\r\nBad Header\u0001: v\r\n\r\n"),
        400,
        40005,
        "could not be parsed");
  }
}
