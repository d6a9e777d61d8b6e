package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A JSON body that cannot be read is answered alike on every endpoint that takes one (v2 produce,
 * v3 produce and admin, the consumer API): 400 40001 "Malformed JSON body: ..." saying what is
 * wrong and where, or 400 40004 naming the nesting limit, in plain words, never with the parser's
 * class names, features or source-location boilerplate.
 */
class JsonBodyErrorsApiTest extends ApiTestSupport {
  /** Words that belong to the parser's internals, not to a message for a client. */
  private static final List<String> INTERNALS =
      List.of("streamread", "jackson", "feature", "()", "exception", "source:", "redacted", "`");

  /** Malformed bodies, each with what its message must say. */
  private static final Map<String, String> MALFORMED =
      Map.of(
          "{\"a\":1,}", "unexpected character '}' at line 1, column 8",
          "{\"a\":1]", "unexpected closing bracket ']' at line 1, column 7",
          "{\"a\":\n  NaN}", "non-standard token 'NaN', not JSON at line 2, column 6",
          "{/* a comment */}", "unexpected character '/' at line 1, column 2",
          "{\"a\":", "the body ends before its JSON value does");

  /** Every JSON endpoint but the consumer instance's own (those need an instance first). */
  private List<String[]> endpoints(String topic) {
    return List.of(
        new String[] {"/topics/" + topic, EMBEDDED_JSON},
        new String[] {"/topics/" + topic + "/partitions/0", EMBEDDED_BINARY},
        new String[] {v3("/topics/" + topic + "/records"), JSON},
        new String[] {v3("/topics"), JSON},
        new String[] {"/consumers/g-" + topic, V2_JSON});
  }

  @Test
  void aMalformedBodyIsAnsweredInPlainWordsOnEveryEndpoint() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String instance = newConsumer("g-" + topic);
    List<String[]> endpoints = new java.util.ArrayList<>(endpoints(topic));
    endpoints.add(new String[] {instance + "/subscription", V2_JSON});
    endpoints.add(new String[] {instance + "/offsets", V2_JSON});

    for (String[] endpoint : endpoints) {
      for (Map.Entry<String, String> malformed : MALFORMED.entrySet()) {
        Response r = post(endpoint[0], endpoint[1], malformed.getKey());
        assertError(r, 400, 40001, "Malformed JSON body: " + malformed.getValue());
        assertPlain(endpoint[0], r);
      }
    }
    assertThat(endOffset(topic, 0)).isZero();
  }

  @Test
  void contentAfterTheBodysJsonValueIsMalformed() {
    String topic = newTopicName();
    createTopic(topic, 1);
    // v3 produce takes a stream of records, so a second value is its next record, not trailing.
    for (String[] endpoint : endpoints(topic)) {
      if (!endpoint[0].endsWith("/records")) {
        Response r = post(endpoint[0], endpoint[1], "{} {}");
        assertError(
            r, 400, 40001, "Malformed JSON body: more content after the JSON value at line 1");
        assertPlain(endpoint[0], r);
      }
    }
  }

  @Test
  void aV3RecordThatIsNotJsonIsAnsweredInPlainWords() {
    String topic = newTopicName();
    createTopic(topic, 1);

    Response r =
        post(
            v3("/topics/" + topic + "/records"),
            JSON,
            "{\"value\":{\"data\":1}}\n{\"value\":{\"data\":tru}}");

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String second = r.body().strip().split("\n")[1];
    assertThat(mapper.readTree(second).get("message").stringValue())
        .isEqualTo(
            "Record 1 is not JSON, and nothing after it can be read: unrecognized token 'tru' at"
                + " line 2, column 18");
    assertNoInternals(second);
  }

  @Test
  void aBodyNestedTooDeeplyNamesTheLimitOnEveryEndpoint() {
    String topic = newTopicName();
    createTopic(topic, 1);
    String deep = "[".repeat(100) + "]".repeat(100);

    for (String[] endpoint : endpoints(topic)) {
      Response r = post(endpoint[0], endpoint[1], "{\"records\":" + deep + "}");
      assertError(
          r,
          400,
          40004,
          "The JSON body nests deeper than 64 levels (tributary.max-json-nesting-depth)");
      assertPlain(endpoint[0], r);
    }
  }

  @Test
  void theConsumerApiRefusesAnotherContentTypeNamingTheOnesItTakes() {
    String group = "/consumers/g-" + newTopicName();

    assertError(
        post(group, "text/plain", "{}"),
        415,
        41501,
        "Unsupported Content-Type 'text/plain'; use application/vnd.kafka.v2+json or"
            + " application/json");
    assertError(
        post(group, null, "{}"),
        415,
        41501,
        "The body has no Content-Type; use application/vnd.kafka.v2+json or application/json");
    // Any JSON type is still read, and no body at all needs no type.
    assertThat(post(group, EMBEDDED_JSON, "{\"name\":\"c1\"}").status()).isEqualTo(200);
    assertThat(post(group, null, "").status()).isEqualTo(200);
  }

  private String newConsumer(String group) {
    Response created = post("/consumers/" + group, V2_JSON, "{\"name\":\"c1\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    return "/consumers/" + group + "/instances/c1";
  }

  private static void assertPlain(String endpoint, Response r) {
    assertNoInternals(endpoint + ": " + r.json().get("message").stringValue());
  }

  private static void assertNoInternals(String message) {
    String lower = message.toLowerCase(Locale.ROOT);
    assertThat(INTERNALS).as(message).noneMatch(lower::contains);
  }
}
