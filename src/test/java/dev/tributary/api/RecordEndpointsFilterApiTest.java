package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * {@link RecordEndpointsFilter} answers produce and read requests outside Spring MVC, and answers
 * them as MVC does. Each request is sent twice: as it is (the filter answers it) and with a query
 * parameter the endpoint does not know added (the filter steps aside; MVC, which ignores unknown
 * parameters, answers it). Status, Content-Type, the endpoint's own headers and the body must be
 * the same (produce offsets aside: the second produce appends after the first).
 */
class RecordEndpointsFilterApiTest extends ApiTestSupport {
  private static final String VIA_MVC = "via=mvc";

  @Autowired RecordEndpointsFilter filter;

  /** One request: where, with which Content-Type (or Accept for reads), and its body. */
  private record Call(String method, String path, String type, String body) {}

  @Test
  void producesAreAnsweredOutsideMvcExactlyAsMvcAnswersThem() {
    String topic = newTopicName();
    createTopic(topic, 2);
    String p0 = "/topics/" + topic + "/partitions/0";
    List<Call> calls =
        List.of(
            new Call(
                "POST",
                p0,
                JSON,
                "{\"records\":[{\"value\":\"a\"},{\"key\":\"k\",\"value\":{\"x\":1}}]}"),
            new Call("POST", p0, EMBEDDED_JSON, "{\"records\":[{\"value\":[1,2,3]}]}"),
            new Call("POST", p0, V2_JSON, "{\"records\":[{\"value\":null}]}"),
            new Call("POST", p0, "", "{\"records\":[{\"value\":\"no type\"}]}"),
            new Call(
                "POST",
                p0,
                EMBEDDED_BINARY,
                "{\"records\":[{\"key\":\"AQI=\",\"value\":\"AAEC\"}]}"),
            new Call("POST", p0 + "?acks=1", JSON, "{\"records\":[{\"value\":1}]}"),
            new Call("POST", p0 + "?acks=0", JSON, "{\"records\":[{\"value\":0}]}"),
            new Call("POST", p0 + "?acks=-1", JSON, "{\"records\":[{\"value\":-1}]}"),
            new Call("POST", p0 + "?acks=", JSON, "{\"records\":[{\"value\":\"empty acks\"}]}"),
            new Call("POST", p0 + "?acks=2", JSON, "{\"records\":[{\"value\":2}]}"),
            new Call("POST", p0, JSON, ""),
            new Call("POST", p0, JSON, "{\"records\":["),
            new Call("POST", p0, JSON, "{\"records\":[{\"value\":\"a\",\"partition\":1}]}"),
            new Call("POST", p0, JSON, "{\"nothing\":1}"),
            new Call("POST", p0, EMBEDDED_BINARY, "{\"records\":[{\"value\":\"not base64!\"}]}"),
            new Call(
                "POST",
                "/topics/" + topic + "/partitions/2",
                JSON,
                "{\"records\":[{\"value\":1}]}"),
            new Call(
                "POST",
                "/topics/" + topic + "/partitions/0007",
                JSON,
                "{\"records\":[{\"value\":1}]}"),
            new Call(
                "POST",
                "/topics/" + topic + "/partitions/1",
                JSON,
                "{\"records\":[{\"value\":\"p1\"}]}"),
            new Call(
                "POST",
                "/topics/no-such-" + topic + "/partitions/5",
                JSON,
                "{\"records\":[{\"value\":1}]}"));
    assertSameAnswersBothWays(calls, true);
  }

  @Test
  void producesToATopicAreAnsweredOutsideMvcExactlyAsMvcAnswersThem() {
    String topic = newTopicName();
    createTopic(topic, 3);
    String t = "/topics/" + topic;
    // Keyed or placed records only: keyless ones go to the next partition on each request.
    List<Call> calls =
        List.of(
            new Call(
                "POST",
                t,
                JSON,
                "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":2},{\"partition\":2,\"value\":3}]}"),
            new Call(
                "POST",
                t + "?acks=1",
                EMBEDDED_BINARY,
                "{\"records\":[{\"key\":\"AQI=\",\"value\":\"AAEC\"}]}"),
            new Call("POST", t, JSON, "{\"records\":[{\"partition\":7,\"value\":1}]}"),
            new Call("POST", t, JSON, ""),
            new Call("POST", t, JSON, "{\"records\":"),
            new Call(
                "POST", t + "?acks=many", JSON, "{\"records\":[{\"key\":\"a\",\"value\":1}]}"));
    assertSameAnswersBothWays(calls, true);
    long before = filter.answered();
    Response metadata = get(t);
    assertThat(metadata.status()).as(metadata.body()).isEqualTo(200);
    assertThat(filter.answered()).as("a topic's metadata is MVC's").isEqualTo(before);
  }

  @Test
  void readsAreAnsweredOutsideMvcExactlyAsMvcAnswersThem() {
    String topic = newTopicName();
    createTopic(topic, 2);
    produceJson(
        topic,
        "{\"records\":[{\"partition\":0,\"value\":\"a\"},{\"partition\":0,\"key\":\"k\",\"value\":{\"b\":[1,\"☃\"]}},{\"partition\":0,\"value\":null}]}");
    String p0 = "/topics/" + topic + "/partitions/0/records";
    List<Call> calls =
        List.of(
            new Call("GET", p0, "", ""),
            new Call("GET", p0 + "?offset=1", "", ""),
            new Call("GET", p0 + "?offset=", "", ""),
            new Call("GET", p0 + "?offset=0", EMBEDDED_BINARY, ""),
            new Call("GET", p0 + "?offset=0", "text/html", ""),
            new Call("GET", p0 + "?offset=0&max_bytes=1", EMBEDDED_JSON, ""),
            new Call("GET", p0 + "?offset=3&timeout=0", "", ""),
            new Call("GET", p0 + "?offset=3&timeout=50", "", ""),
            new Call("GET", p0 + "?offset=99", "", ""),
            new Call("GET", p0 + "?offset=-1", "", ""),
            new Call("GET", p0 + "?max_bytes=0", "", ""),
            new Call("GET", p0 + "?max_bytes=-7", "", ""),
            new Call("GET", p0 + "?timeout=-5", "", ""),
            new Call("GET", "/topics/" + topic + "/partitions/1/records", "", ""),
            new Call("GET", "/topics/" + topic + "/partitions/9/records", "", ""),
            new Call("GET", "/topics/no-such-" + topic + "/partitions/0/records", "", ""));
    assertSameAnswersBothWays(calls, true);
  }

  @Test
  void unusualSpellingsAreLeftToMvc() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String p0 = "/topics/" + topic + "/partitions/0";
    List<Call> calls =
        List.of(
            new Call("POST", p0, "text/plain", "{\"records\":[{\"value\":1}]}"),
            new Call("POST", p0 + "?acks=1&acks=all", JSON, "{\"records\":[{\"value\":1}]}"),
            new Call(
                "POST",
                "/topics/" + topic + "/partitions/-1",
                JSON,
                "{\"records\":[{\"value\":1}]}"),
            new Call(
                "POST",
                "/topics/" + topic + "/partitions/x",
                JSON,
                "{\"records\":[{\"value\":1}]}"),
            new Call(
                "POST",
                "/topics/"
                    + topic.substring(0, 2)
                    + "%"
                    + Integer.toHexString(topic.charAt(2))
                    + topic.substring(3)
                    + "/partitions/0",
                JSON,
                "{\"records\":[{\"value\":1}]}"),
            new Call("GET", p0 + "/records?offset=abc", "", ""),
            new Call("GET", p0 + "/records?offset=0x1", "", ""),
            new Call("GET", p0 + "/records?offset=0&offset=1", "", ""),
            new Call("GET", p0 + "/records?max_bytes=99999999999", "", ""));
    assertSameAnswersBothWays(calls, false);
    // A form body is never parsed for parameters here (MVC's answer to it depends on whether the
    // query string was read first, so the two spellings are not compared).
    long before = filter.answered();
    Response form = post(p0, "application/x-www-form-urlencoded", "acks=1");
    assertThat(form.status()).as(form.body()).isEqualTo(415);
    assertThat(filter.answered()).isEqualTo(before);
    // Two Accept lines: MVC reads them joined, and the binary one is among them.
    Response twoAccepts = get(p0 + "/records?offset=0", "Accept", JSON, "Accept", EMBEDDED_BINARY);
    assertThat(twoAccepts.status()).as(twoAccepts.body()).isEqualTo(200);
    assertThat(twoAccepts.contentType()).startsWith(EMBEDDED_BINARY);
    assertThat(filter.answered()).isEqualTo(before);
  }

  @Test
  void aLongPollIsAnsweredWhenARecordArrivesWithoutHoldingAThread() throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    long before = filter.answered();

    CompletableFuture<Response> waiting =
        getAsync("/topics/" + topic + "/partitions/0/records?offset=0&timeout=20000");
    Thread.sleep(
        300); // the read is parked on the delayed fetch by now (or not: either way it ends)
    produceJson(topic, "{\"records\":[{\"value\":\"late\"}]}");
    Response answer = waiting.get(15, TimeUnit.SECONDS);

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.json()).extracting(n -> n.get("value").stringValue()).containsExactly("late");
    assertThat(answer.header("X-Tributary-High-Watermark")).hasValue("1");
    assertThat(filter.answered() - before)
        .as("requests the filter answered")
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void theRequestsItAnswersAreMeasuredUnderTheirEndpointsPattern() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String uri = URLEncoder.encode(RecordEndpointsFilter.PRODUCE_PATTERN, StandardCharsets.UTF_8);
    long before = requestCount(uri);

    Response r = post("/topics/" + topic + "/partitions/0", JSON, "{\"records\":[{\"value\":1}]}");

    assertThat(r.status()).isEqualTo(200);
    assertThat(requestCount(uri)).isEqualTo(before + 1);
  }

  private long requestCount(String encodedUri) {
    Response metric = get("/actuator/metrics/http.server.requests?tag=uri:" + encodedUri);
    if (metric.status() == 404) {
      return 0;
    }
    JsonNode count = expectOk(metric).path("measurements").get(0);
    return (long) count.path("value").asDouble();
  }

  private void assertSameAnswersBothWays(List<Call> calls, boolean answeredHere) {
    for (Call call : calls) {
      assertSameAnswerBothWays(call, answeredHere);
    }
  }

  /**
   * Sends {@code call} as it is and again with an unknown parameter added (MVC answers that one),
   * and checks the filter answered the first exactly when {@code answeredHere}, and that both
   * answers are the same.
   */
  private void assertSameAnswerBothWays(Call call, boolean answeredHere) {
    long before = filter.answered();
    Response direct = send(call, call.path());
    assertThat(filter.answered() - before)
        .as("answered by the filter: %s", call)
        .isEqualTo(answeredHere ? 1 : 0);

    before = filter.answered();
    Response viaMvc = send(call, call.path() + (call.path().contains("?") ? "&" : "?") + VIA_MVC);
    assertThat(filter.answered() - before).as("answered by MVC: %s", call).isZero();

    assertThat(direct.status())
        .as("status of %s: %s", call, direct.body())
        .isEqualTo(viaMvc.status());
    assertThat(direct.contentType()).as("Content-Type of %s", call).isEqualTo(viaMvc.contentType());
    assertThat(direct.header("X-Tributary-High-Watermark"))
        .as("high watermark header of %s", call)
        .isEqualTo(viaMvc.header("X-Tributary-High-Watermark"));
    assertThat(direct.header(ProduceController.THROTTLE_TIME_HEADER).isPresent())
        .as("throttle header of %s", call)
        .isEqualTo(viaMvc.header(ProduceController.THROTTLE_TIME_HEADER).isPresent());
    assertThat(withoutOffsets(direct.body()))
        .as("body of %s", call)
        .isEqualTo(withoutOffsets(viaMvc.body()));
  }

  private Response send(Call call, String path) {
    return call.method().equals("GET")
        ? sendWithBody("GET", path, "", "", call.type())
        : sendWithBody(call.method(), path, call.type(), call.body(), "");
  }

  private static String withoutOffsets(String body) {
    return body.replaceAll("\"offset\":[0-9]+", "\"offset\":N");
  }
}
