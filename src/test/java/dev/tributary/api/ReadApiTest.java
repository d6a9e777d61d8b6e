package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Stateless reads: {@code GET /topics/{t}/partitions/{p}/records} and {@code .../offsets}. */
class ReadApiTest extends ApiTestSupport {

  // ---- records
  // -----------------------------------------------------------------------------------------------

  @Test
  void aReadWithoutAnOffsetStartsAtTheBeginningAndReportsTheHighWatermark() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":\"a\"},{\"value\":\"b\"},{\"value\":\"c\"}]}");

    Response r = get("/topics/" + topic + "/partitions/0/records");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(EMBEDDED_JSON);
    assertThat(r.header("X-Tributary-High-Watermark")).hasValue("3");
    assertThat(r.json())
        .extracting(n -> n.get("value").stringValue())
        .containsExactly("a", "b", "c");
    assertThat(r.json()).extracting(n -> n.get("offset").longValue()).containsExactly(0L, 1L, 2L);
  }

  @Test
  void aReadFromTheMiddleOfABatchSkipsTheBatchsEarlierRecords() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":0},{\"value\":1},{\"value\":2},{\"value\":3}]}");

    JsonNode read = readJson(topic, 0, 2);

    assertThat(read).extracting(n -> n.get("offset").longValue()).containsExactly(2L, 3L);
    assertThat(read).extracting(n -> n.get("value").intValue()).containsExactly(2, 3);
  }

  @Test
  void aTinyMaxBytesStillReturnsExactlyOneWholeBatch() {
    String topic = newTopicName();
    for (int request = 0; request < 3; request++) {
      produceJson(
          topic,
          "{\"records\":[{\"value\":\"" + request + "a\"},{\"value\":\"" + request + "b\"}]}");
    }

    JsonNode fromStart =
        expectOk(get("/topics/" + topic + "/partitions/0/records?offset=0&max_bytes=1"));
    JsonNode fromMiddle =
        expectOk(get("/topics/" + topic + "/partitions/0/records?offset=3&max_bytes=1"));
    JsonNode everything =
        expectOk(get("/topics/" + topic + "/partitions/0/records?offset=0&max_bytes=1048576"));

    assertThat(fromStart).extracting(n -> n.get("value").stringValue()).containsExactly("0a", "0b");
    assertThat(fromMiddle).extracting(n -> n.get("value").stringValue()).containsExactly("1b");
    assertThat(everything).hasSize(6);
  }

  @Test
  void aMaxBytesBetweenBatchBoundariesReturnsOnlyWholeBatches() {
    String topic = newTopicName();
    String body =
        "{\"records\":[{\"value\":\""
            + "v".repeat(200)
            + "\"},{\"value\":\""
            + "w".repeat(200)
            + "\"}]}";
    produceJson(topic, body);
    produceJson(topic, body);
    produceJson(topic, body);

    // Two batches of ~480 bytes each: 700 bytes cover one whole batch and part of the next.
    JsonNode read =
        expectOk(get("/topics/" + topic + "/partitions/0/records?offset=0&max_bytes=700"));

    assertThat(read).extracting(n -> n.get("offset").longValue()).containsExactly(0L, 1L);
  }

  @Test
  void aNonJsonValueCannotBeReadInTheJsonFormatButCanInBinary() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":{\"fine\":true}}]}");
    String notJson = Base64.getEncoder().encodeToString("hello world".getBytes());
    expectOk(
        post(
            "/topics/" + topic,
            EMBEDDED_BINARY,
            "{\"records\":[{\"value\":\"" + notJson + "\"}]}"));

    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=0"),
        406,
        40601,
        "The record at offset 1 is not JSON");
    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=1"),
        406,
        40601,
        "'Accept: application/vnd.kafka.binary.v2+json'");
    Response binary =
        get("/topics/" + topic + "/partitions/0/records?offset=0", "Accept", EMBEDDED_BINARY);
    assertThat(binary.status()).isEqualTo(200);
    assertThat(binary.contentType()).startsWith(EMBEDDED_BINARY);
    assertThat(binary.json().get(1).get("value").stringValue()).isEqualTo(notJson);
    assertThat(binary.json().get(0).get("value").stringValue())
        .isEqualTo(Base64.getEncoder().encodeToString("{\"fine\":true}".getBytes()));
  }

  @Test
  void anOffsetPastTheLogEndIsOutOfRangeWithTheValidRangeInTheMessage() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");

    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=99"),
        416,
        41601,
        "offset 99 is out of range for " + topic + "-0: valid offsets are [0, 3]");
  }

  @Test
  void errorsAreJsonEvenWhenTheReaderAcceptsTheBinaryFormat() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=5", "Accept", EMBEDDED_BINARY),
        416,
        41601,
        "valid offsets are [0, 1]");
    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=-5", "Accept", EMBEDDED_BINARY),
        400,
        40003,
        "offset must be >= 0");
  }

  @Test
  void topicNamesWithDotsWorkInPaths() {
    String topic = newTopicName() + ".with.dots";
    produceJson(topic, "{\"records\":[{\"value\":\"dotted\"}]}");

    assertThat(readJson(topic, 0, 0).get(0).get("topic").stringValue()).isEqualTo(topic);
    assertThat(expectOk(get("/topics/" + topic)).get("name").stringValue()).isEqualTo(topic);
    assertThat(expectOk(get(v3("/topics/" + topic))).get("topic_name").stringValue())
        .isEqualTo(topic);
  }

  @Test
  void anOffsetAtTheLogEndReturnsAnEmptyArray() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    Response r = get("/topics/" + topic + "/partitions/0/records?offset=1");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().isArray()).isTrue();
    assertThat(r.json()).isEmpty();
    assertThat(r.header("X-Tributary-High-Watermark")).hasValue("1");
  }

  @Test
  void negativeOrMalformedReadParametersAreBadParameters() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");
    String records = "/topics/" + topic + "/partitions/0/records";

    assertError(get(records + "?offset=-1"), 400, 40003, "offset must be >= 0, got -1");
    assertError(get(records + "?max_bytes=0"), 400, 40003, "max_bytes must be at least 1, got 0");
    assertError(get(records + "?max_bytes=-5"), 400, 40003, "max_bytes");
    assertError(
        get(records + "?timeout=-1"), 400, 40003, "timeout must be >= 0 milliseconds, got -1");
    assertError(get(records + "?offset=abc"), 400, 40003, "Invalid value 'abc' for 'offset'");
    assertError(get("/topics/" + topic + "/partitions/zero/records"), 400, 40003, "'zero'");
  }

  @Test
  void readingAMissingTopicOrPartitionIsNotFound() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    assertError(
        get("/topics/" + newTopicName() + "/partitions/0/records"), 404, 40401, "does not exist");
    assertError(
        get("/topics/" + topic + "/partitions/3/records"),
        404,
        40402,
        "Partition 3 of topic '" + topic + "'");
  }

  @Test
  void aNegativePartitionIsAnUnknownPartitionAsOnProduceAndInMetadata() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");
    assertError(
        post("/topics/" + topic + "/partitions/-1", EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}"),
        404,
        40402,
        "Partition -1");
    assertError(get("/topics/" + topic + "/partitions/-1"), 404, 40402, "Partition -1");

    assertError(get("/topics/" + topic + "/partitions/-1/records"), 404, 40402, "Partition -1");
    assertError(get("/topics/" + topic + "/partitions/-1/offsets"), 404, 40402, "Partition -1");
  }

  @Test
  void aLongPollAtTheEndAnswersWithTheRecordOnceItIsProduced() throws Exception {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":\"before\"}]}");

    // The poll may wait 30 s; the record arrives long before, so an answer within 15 s can only be
    // the wake-up.
    CompletableFuture<Response> poll =
        getAsync("/topics/" + topic + "/partitions/0/records?offset=1&timeout=30000");
    await("the long poll stays open while nothing new is committed")
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !poll.isDone());
    produceJson(topic, "{\"records\":[{\"key\":\"k\",\"value\":\"after\"}]}");

    Response r = poll.get(15, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json()).hasSize(1);
    assertThat(r.json().get(0).get("offset").longValue()).isEqualTo(1);
    assertThat(r.json().get(0).get("key").stringValue()).isEqualTo("k");
    assertThat(r.json().get(0).get("value").stringValue()).isEqualTo("after");
    assertThat(r.header("X-Tributary-High-Watermark")).hasValue("2");
  }

  @Test
  void aLongPollWithNothingToReadAnswersAnEmptyArrayAfterItsTimeout() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    long startNanos = System.nanoTime();
    Response r = get("/topics/" + topic + "/partitions/0/records?offset=1&timeout=400");
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().isArray()).isTrue();
    assertThat(r.json()).isEmpty();
    assertThat(waitedMs).as("the poll waited out its timeout").isGreaterThanOrEqualTo(350);
  }

  // ---- offsets
  // -----------------------------------------------------------------------------------------------

  @Test
  void offsetsReportTheBeginningTheHighWatermarkAndTheLogEnd() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3}]}");

    Response r = get("/topics/" + topic + "/partitions/0/offsets");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(V2_JSON);
    assertThat(r.json())
        .isEqualTo(
            mapper.readTree("{\"beginning_offset\":0,\"end_offset\":3,\"log_end_offset\":3}"));
  }

  @Test
  void offsetsOfAnEmptyPartitionAreAllZero() {
    String topic = newTopicName();
    createTopic(topic, 2);

    assertThat(offsets(topic, 1))
        .isEqualTo(
            mapper.readTree("{\"beginning_offset\":0,\"end_offset\":0,\"log_end_offset\":0}"));
  }

  @Test
  void aTimestampLookupFindsTheFirstRecordAtOrAfterIt() {
    String topic = newTopicName();
    createTopic(
        topic,
        1,
        KEEP_FOREVER); // records from 1970 would otherwise be due for time-based retention
    produceJson(
        topic,
        "{\"records\":[{\"value\":\"a\",\"timestamp\":1000},{\"value\":\"b\",\"timestamp\":2000},{\"value\":\"c\",\"timestamp\":3000}]}");
    String offsets = "/topics/" + topic + "/partitions/0/offsets?timestamp=";

    JsonNode between = expectOk(get(offsets + "1500"));
    JsonNode exact = expectOk(get(offsets + "1000"));
    JsonNode early = expectOk(get(offsets + "0"));
    JsonNode last = expectOk(get(offsets + "3000"));
    JsonNode beyond = expectOk(get(offsets + "3001"));

    assertThat(between)
        .isEqualTo(
            mapper.readTree(
                "{\"beginning_offset\":0,\"end_offset\":3,\"log_end_offset\":3,\"offset\":1,\"timestamp\":2000}"));
    assertThat(exact.get("offset").longValue()).isZero();
    assertThat(early.get("offset").longValue()).isZero();
    assertThat(early.get("timestamp").longValue()).isEqualTo(1000);
    assertThat(last.get("offset").longValue()).isEqualTo(2);
    assertThat(beyond.get("offset").isNull()).isTrue();
    assertThat(beyond.get("timestamp").isNull()).isTrue();
    assertThat(beyond.get("end_offset").longValue()).isEqualTo(3);
  }

  @Test
  void recordsOlderThanRetentionMsAreDeletedAndTheBeginningOffsetMovesUp() {
    String topic = newTopicName();
    produceJson(
        topic,
        "{\"records\":[{\"value\":\"ancient\",\"timestamp\":1000},{\"value\":\"also ancient\",\"timestamp\":2000}]}");

    await("time-based retention (default retention.ms, housekeeping every 200 ms)")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> offsets(topic, 0).get("beginning_offset").longValue() == 2);

    assertThat(offsets(topic, 0))
        .isEqualTo(
            mapper.readTree("{\"beginning_offset\":2,\"end_offset\":2,\"log_end_offset\":2}"));
    assertError(
        get("/topics/" + topic + "/partitions/0/records?offset=0"),
        416,
        41601,
        "valid offsets are [2, 2]");
    assertThat(placements(produceJson(topic, "{\"records\":[{\"value\":\"fresh\"}]}")))
        .containsExactly("0:2");
    assertThat(expectOk(get("/topics/" + topic + "/partitions/0/records")))
        .extracting(n -> n.get("value").stringValue())
        .containsExactly("fresh");
  }

  @Test
  void offsetErrorsAreBadParametersOrNotFound() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    assertError(
        get("/topics/" + topic + "/partitions/0/offsets?timestamp=-1"),
        400,
        40003,
        "timestamp must be epoch milliseconds");
    assertError(
        get("/topics/" + topic + "/partitions/0/offsets?timestamp=soon"), 400, 40003, "'soon'");
    assertError(get("/topics/" + topic + "/partitions/1/offsets"), 404, 40402, "Partition 1");
    assertError(
        get("/topics/" + newTopicName() + "/partitions/0/offsets"), 404, 40401, "does not exist");
  }
}
