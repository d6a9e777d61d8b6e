package dev.tributary.api;

import static dev.tributary.api.HostileEncodings.FORM;
import static dev.tributary.api.HostileEncodings.assertEachRefusedQuietly;
import static dev.tributary.api.HostileEncodings.inFormBody;
import static dev.tributary.api.HostileEncodings.inPath;
import static dev.tributary.api.HostileEncodings.inQuery;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.api.HostileEncodings.Hostile;
import dev.tributary.transport.http.InternalApi;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A path, query string or form body that is not percent-encoded UTF-8 text, at every endpoint
 * family of a broker with security off: 400 40007 in the error shape, before any handler reads it,
 * with no stack trace in the log (it was a 500 with one, for anyone). The same with security on is
 * {@link HostileEncodingSecuredApiTest}.
 */
class HostileEncodingApiTest extends ApiTestSupport {
  private static final String RECORDS = "{\"records\":[{\"value\":1}]}";

  @Test
  void aQueryStringThatDoesNotDecodeIsRefusedAtEveryEndpointFamily() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String group = "g-" + topic;
    List<Hostile> requests = new ArrayList<>();
    for (String path :
        List.of(
            "/topics",
            "/topics/" + topic,
            "/topics/" + topic + "/partitions/0/records",
            "/topics/" + topic + "/partitions/0/offsets",
            v3("/topics"),
            v3("/acls"),
            v3("/consumer-groups/" + group + "/lags"),
            "/consumers/" + group + "/instances/c/records",
            "/actuator/health",
            "/actuator/health/readiness",
            "/actuator/prometheus",
            "/dashboard/state",
            "/",
            "/login",
            "/internal/v1/consumer/fetch")) {
      requests.addAll(inQuery("GET", path, null, null));
    }
    requests.addAll(inQuery("POST", "/topics/" + topic, EMBEDDED_JSON, RECORDS));
    requests.addAll(inQuery("POST", "/consumers/" + group, V2_JSON, "{\"name\":\"c\"}"));
    requests.addAll(inQuery("POST", "/login", FORM, "key_id=a&secret=b"));
    requests.addAll(
        inQuery("POST", "/internal/v1/replica/fetch", JSON, "{}", InternalApi.SECRET_HEADER, "x"));

    assertEachRefusedQuietly(port, requests);
    assertThat(offsets(topic, 0).get("log_end_offset").longValue()).as("appended").isZero();
  }

  @Test
  void aFormBodyThatDoesNotDecodeIsRefusedWhereverItIsPosted() {
    String topic = newTopicName();
    createTopic(topic, 1);
    List<Hostile> requests = new ArrayList<>();
    requests.addAll(inFormBody("/login"));
    requests.addAll(inFormBody("/topics/" + topic));
    requests.addAll(inFormBody(v3("/topics")));
    requests.addAll(inFormBody("/dashboard/actions/brokers/1/pause-fetching"));
    requests.addAll(inFormBody("/internal/v1/groups/join"));

    assertEachRefusedQuietly(port, requests);
    assertThat(offsets(topic, 0).get("log_end_offset").longValue()).as("appended").isZero();
    // Other methods' form bodies are never decoded (Spring's FormContentFilter did, after the
    // check, and answered 500): the endpoint refuses them as the bodies they are not.
    for (String method : List.of("PUT", "PATCH")) {
      Response r =
          RawHttp.send("127.0.0.1", port, method, v3("/topics/" + topic), FORM, "a=%zz&b=%ff");
      assertThat(r.status()).as(method + " " + r.body()).isBetween(400, 499);
    }
  }

  @Test
  void aFormBodyOverTheFormLimitIs413AndOneCutShortEndsTheConnection() throws Exception {
    String big = "key_id=a&secret=" + "x".repeat(3 * 1024 * 1024);
    Response tooBig = RawHttp.send("127.0.0.1", port, "POST", "/login", FORM, big);
    assertThat(tooBig.status()).as(tooBig.body()).isEqualTo(413);
    assertThat(tooBig.json().get("error_code").intValue()).isEqualTo(41302);
    assertThat(tooBig.json().get("message").stringValue())
        .isEqualTo(
            "The form body is larger than server.tomcat.max-http-form-post-size=2097152 bytes");

    try (Socket socket = RawHttp.connect("127.0.0.1", port)) {
      String head =
          "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
              + FORM
              + "\r\nContent-Length: 100\r\n\r\nkey_id=a";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.shutdownOutput(); // 92 bytes short
      // Tomcat takes the early end as a client gone: it closes without an answer.
      assertThat(socket.getInputStream().readAllBytes()).isEmpty();
    }
    assertThat(get("/actuator/health/readiness").status()).isEqualTo(200);
  }

  @Test
  void aPathSegmentThatDoesNotDecodeToTextIsRefused() {
    List<Hostile> requests = new ArrayList<>();
    requests.addAll(inPath("GET", "/topics/", "/partitions/0/records"));
    requests.addAll(inPath("GET", "/topics/", "/partitions/0/records?offset=0"));
    requests.addAll(inPath("GET", "/v3/clusters/", "/topics"));
    requests.addAll(inPath("GET", "/consumers/", "/instances/c/records"));
    requests.addAll(inPath("GET", "/actuator/", ""));
    requests.addAll(inPath("GET", "/dashboard/", ""));
    requests.addAll(inPath("POST", "/internal/v1/", "/fetch"));

    assertEachRefusedQuietly(port, requests);
  }

  @Test
  void wellEncodedTextInAnyScriptStillPasses() {
    String topic = newTopicName();
    createTopic(topic, 1);
    produceJson(topic, RECORDS);
    String records = "/topics/" + topic + "/partitions/0/records?offset=0&x=%E2%82%AC%F0%9F%92%A9";
    ApiTestSupport.Response read = RawHttp.send("127.0.0.1", port, "GET", records, null, null);
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().size()).isEqualTo(1);
    ApiTestSupport.Response acls =
        RawHttp.send("127.0.0.1", port, "GET", v3("/acls?principal=User%3A%C3%A9"), null, null);
    assertThat(acls.status()).as(acls.body()).isEqualTo(200);
    ApiTestSupport.Response login =
        RawHttp.send("127.0.0.1", port, "POST", "/login", FORM, "key_id=a&secret=%E2%82%AC+b");
    assertThat(login.status()).as(login.body()).isNotEqualTo(400).isLessThan(500);
  }
}
