package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The request-size cap ({@code tributary.max-request-bytes}, 4 MiB in these tests): a body over it
 * is refused with 413 41302 whether its length is declared or it arrives chunked, and nothing of it
 * is appended; a body under it is taken.
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
}
