package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /topics/{t}}: embedded formats, headers, timestamps, acks, request errors, size
 * limits and atomicity. Partition choice and auto-creation are in {@link
 * ProducePartitioningApiTest}.
 */
class ProduceApiTest extends ApiTestSupport {

  // ---- formats
  // -----------------------------------------------------------------------------------------------

  @Test
  void jsonFormatStoresKeysAndValuesOfEveryJsonTypeAndReadsThemBackIdentically() {
    String topic = newTopicName();
    List<String> jsonValues =
        List.of(
            "\"text with \\\"quotes\\\" and ünïcødé\"",
            "42",
            "-7",
            "3.25",
            "true",
            "false",
            "{\"n\":1,\"nested\":{\"list\":[1,\"two\",null,{\"x\":false}]}}",
            "[1,2,3]",
            "[]",
            "{}",
            "\"\"");
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < jsonValues.size(); i++) {
      String keyAndValue = jsonValues.get(i);
      body.append(i == 0 ? "" : ",")
          .append("{\"key\":")
          .append(keyAndValue)
          .append(",\"value\":")
          .append(keyAndValue)
          .append("}");
    }
    body.append(",{\"value\":null}]}");

    JsonNode produced = produceJson(topic, body.toString());

    assertThat(produced.get("offsets")).hasSize(jsonValues.size() + 1);
    JsonNode read = readJson(topic, 0, 0);
    assertThat(read).hasSize(jsonValues.size() + 1);
    for (int i = 0; i < jsonValues.size(); i++) {
      JsonNode expected = mapper.readTree(jsonValues.get(i));
      assertThat(read.get(i).get("key")).as("key %d", i).isEqualTo(expected);
      assertThat(read.get(i).get("value")).as("value %d", i).isEqualTo(expected);
      assertThat(read.get(i).get("offset").longValue()).isEqualTo(i);
      assertThat(read.get(i).get("topic").stringValue()).isEqualTo(topic);
      assertThat(read.get(i).get("partition").intValue()).isZero();
    }
    JsonNode last = read.get(jsonValues.size());
    assertThat(last.get("key").isNull()).as("a missing key reads back as null").isTrue();
    assertThat(last.get("value").isNull()).as("a null value reads back as null").isTrue();
  }

  @Test
  void jsonFormatStoresTheCompactJsonTextOfAKey() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"key\":\"k1\",\"value\":{ \"a\" : [ 1 , 2 ] }}]}");

    JsonNode stored = readBinary(topic, 0, 0).get(0);

    assertThat(decode(stored.get("key"))).isEqualTo("\"k1\"");
    assertThat(decode(stored.get("value"))).isEqualTo("{\"a\":[1,2]}");
  }

  @Test
  void binaryFormatRoundTripsArbitraryEmptyAndNullBytes() {
    String topic = newTopicName();
    byte[] arbitrary = new byte[300];
    new Random(42).nextBytes(arbitrary);
    String base64 = Base64.getEncoder().encodeToString(arbitrary);
    String body =
        "{\"records\":["
            + "{\"key\":\"AAEC\",\"value\":\""
            + base64
            + "\"},"
            + "{\"key\":null,\"value\":\"\"},"
            + "{\"value\":null},"
            + "{\"key\":\"\",\"value\":\"/w==\"}]}";

    produceBinary(topic, body);

    JsonNode read = readBinary(topic, 0, 0);
    assertThat(read).hasSize(4);
    assertThat(read.get(0).get("key").stringValue()).isEqualTo("AAEC");
    assertThat(Base64.getDecoder().decode(read.get(0).get("value").stringValue()))
        .isEqualTo(arbitrary);
    assertThat(read.get(1).get("key").isNull()).isTrue();
    assertThat(read.get(1).get("value").stringValue())
        .as("an empty value stays empty, not null")
        .isEmpty();
    assertThat(read.get(2).get("key").isNull()).isTrue();
    assertThat(read.get(2).get("value").isNull()).as("a null value stays null").isTrue();
    assertThat(read.get(3).get("key").stringValue()).as("an empty key stays empty").isEmpty();
    assertThat(read.get(3).get("value").stringValue()).isEqualTo("/w==");
  }

  @Test
  void jsonFormatStoresNumbersWithoutLosingPrecision() {
    String topic = newTopicName();
    List<String> numbers =
        List.of(
            "3.141592653589793238462643", "12345678901234567890123", "0.1", "1E400", "-2.5e-400");
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < numbers.size(); i++) {
      body.append(i == 0 ? "" : ",").append("{\"value\":").append(numbers.get(i)).append("}");
    }
    produceJson(topic, body.append("]}").toString());

    JsonNode stored = readBinary(topic, 0, 0);

    SoftAssertions softly = new SoftAssertions();
    for (int i = 0; i < numbers.size(); i++) {
      String storedText = decode(stored.get(i).get("value"));
      softly
          .assertThat(storedText)
          .as("stored JSON text of %s", numbers.get(i))
          .matches("-?[0-9][0-9.eE+-]*");
      if (storedText.matches("-?[0-9][0-9.eE+-]*")) {
        softly
            .assertThat(new BigDecimal(storedText))
            .as("stored JSON text of %s", numbers.get(i))
            .isEqualByComparingTo(new BigDecimal(numbers.get(i)));
      }
    }
    softly.assertAll();
  }

  @Test
  void aStoredJsonNumberReadsBackInTheJsonFormatWithoutLosingPrecision() {
    String topic = newTopicName();
    String pi = "3.141592653589793238462643";
    produceBinary(
        topic,
        "{\"records\":[{\"value\":\""
            + Base64.getEncoder().encodeToString(pi.getBytes())
            + "\"}]}");

    Response r = get("/topics/" + topic + "/partitions/0/records?offset=0");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).contains("\"value\":" + pi);
  }

  @Test
  void trailingContentAfterTheBodyIsMalformedJson() {
    String topic = newTopicName();

    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":1}]} {\"records\":[{\"value\":2}]}"),
        400,
        40001,
        "Malformed JSON body");

    assertError(get("/topics/" + topic), 404, 40401, "does not exist");
  }

  @Test
  void plainApplicationJsonAndAMissingContentTypeBothMeanTheJsonFormat() {
    String topic = newTopicName();

    expectOk(
        post("/topics/" + topic, JSON, "{\"records\":[{\"key\":{\"id\":1},\"value\":[true]}]}"));
    expectOk(post("/topics/" + topic, null, "{\"records\":[{\"value\":\"no content type\"}]}"));
    expectOk(post("/topics/" + topic, V2_JSON, "{\"records\":[{\"value\":7}]}"));

    JsonNode read = readJson(topic, 0, 0);
    assertThat(read.get(0).get("key")).isEqualTo(mapper.readTree("{\"id\":1}"));
    assertThat(read.get(0).get("value")).isEqualTo(mapper.readTree("[true]"));
    assertThat(read.get(1).get("value").stringValue()).isEqualTo("no content type");
    assertThat(read.get(2).get("value").intValue()).isEqualTo(7);
  }

  @Test
  void produceAnswersInTheV2MediaTypeWithNullSchemaIds() {
    Response r = post("/topics/" + newTopicName(), EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith(V2_JSON);
    JsonNode body = r.json();
    assertThat(body.get("key_schema_id").isNull()).isTrue();
    assertThat(body.get("value_schema_id").isNull()).isTrue();
    JsonNode offset = body.get("offsets").get(0);
    assertThat(offset.get("partition").intValue()).isZero();
    assertThat(offset.get("offset").longValue()).isZero();
    assertThat(offset.get("error_code").isNull()).isTrue();
    assertThat(offset.get("error").isNull()).isTrue();
  }

  @Test
  void headersInObjectAndListFormReadBackAsAListInTheJsonFormat() {
    String topic = newTopicName();
    produceJson(
        topic,
        "{\"records\":["
            + "{\"value\":1,\"headers\":{\"trace\":\"abc\",\"empty\":\"\",\"nothing\":null}},"
            + "{\"value\":2,\"headers\":[{\"name\":\"trace\",\"value\":\"déf\"},{\"name\":\"trace\",\"value\":\"again\"}]}]}");

    JsonNode read = readJson(topic, 0, 0);

    assertThat(read.get(0).get("headers"))
        .isEqualTo(
            mapper.readTree(
                "[{\"name\":\"trace\",\"value\":\"abc\"},{\"name\":\"empty\",\"value\":\"\"},"
                    + "{\"name\":\"nothing\",\"value\":null}]"));
    assertThat(read.get(1).get("headers"))
        .as("repeated header names are kept in order")
        .isEqualTo(
            mapper.readTree(
                "[{\"name\":\"trace\",\"value\":\"déf\"},{\"name\":\"trace\",\"value\":\"again\"}]"));
  }

  @Test
  void headersInTheBinaryFormatAreBase64BothWays() {
    String topic = newTopicName();
    produceBinary(
        topic,
        "{\"records\":[{\"value\":\"AA==\",\"headers\":{\"bin\":\"AAEC\"}},"
            + "{\"value\":\"AA==\",\"headers\":[{\"name\":\"bin\",\"value\":\"/w==\"}]}]}");

    JsonNode read = readBinary(topic, 0, 0);

    assertThat(read.get(0).get("headers"))
        .isEqualTo(mapper.readTree("[{\"name\":\"bin\",\"value\":\"AAEC\"}]"));
    assertThat(read.get(1).get("headers"))
        .isEqualTo(mapper.readTree("[{\"name\":\"bin\",\"value\":\"/w==\"}]"));
  }

  @Test
  void anExplicitTimestampIsStoredAndReadBack() {
    String topic = newTopicName();
    createTopic(
        topic,
        1,
        KEEP_FOREVER); // a record from 2009 would otherwise be due for time-based retention
    long before = System.currentTimeMillis();
    produceJson(topic, "{\"records\":[{\"value\":1,\"timestamp\":1234567890123},{\"value\":2}]}");
    long after = System.currentTimeMillis();

    JsonNode read = readJson(topic, 0, 0);

    assertThat(read.get(0).get("timestamp").longValue()).isEqualTo(1234567890123L);
    assertThat(read.get(1).get("timestamp").longValue())
        .as("a record without a timestamp gets the broker's clock")
        .isBetween(before, after);
  }

  // ---- acks
  // --------------------------------------------------------------------------------------------------

  @Test
  void acksZeroReportsOffsetsAsMinusOneButStillAppends() {
    String topic = newTopicName();
    JsonNode response =
        expectOk(
            post(
                "/topics/" + topic + "?acks=0",
                EMBEDDED_JSON,
                "{\"records\":[{\"value\":1},{\"value\":2}]}"));

    assertThat(offsetsOf(response)).containsExactly(-1L, -1L);
    assertThat(readJson(topic, 0, 0)).hasSize(2);
  }

  @Test
  void acksOneAllAndMinusOneReportRealOffsets() {
    String topic = newTopicName();
    String body = "{\"records\":[{\"value\":1}]}";

    long acksOne =
        expectOk(post("/topics/" + topic + "?acks=1", EMBEDDED_JSON, body))
            .get("offsets")
            .get(0)
            .get("offset")
            .longValue();
    long acksAll =
        expectOk(post("/topics/" + topic + "?acks=all", EMBEDDED_JSON, body))
            .get("offsets")
            .get(0)
            .get("offset")
            .longValue();
    long acksMinusOne =
        expectOk(post("/topics/" + topic + "?acks=-1", EMBEDDED_JSON, body))
            .get("offsets")
            .get(0)
            .get("offset")
            .longValue();
    long byDefault =
        expectOk(post("/topics/" + topic, EMBEDDED_JSON, body))
            .get("offsets")
            .get(0)
            .get("offset")
            .longValue();

    assertThat(List.of(acksOne, acksAll, acksMinusOne, byDefault)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(offsets(topic, 0).get("end_offset").longValue())
        .as("acks=all waited for the high watermark")
        .isEqualTo(4);
  }

  @Test
  void anUnknownAcksValueIsABadParameterAndAppendsNothing() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    assertError(
        post("/topics/" + topic + "?acks=2", EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}"),
        400,
        40003,
        "acks must be 0, 1, all or -1, got '2'");
    assertError(
        post(
            "/topics/" + topic + "/partitions/0?acks=none",
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":1}]}"),
        400,
        40003,
        "got 'none'");

    assertThat(endOffset(topic, 0)).isEqualTo(1);
  }

  // ---- request errors
  // ----------------------------------------------------------------------------------------

  @Test
  void malformedJsonIsRefusedWith40001() {
    assertError(
        post("/topics/" + newTopicName(), EMBEDDED_JSON, "{\"records\":[{\"value\":1}"),
        400,
        40001,
        "Malformed JSON body");
    assertError(
        post("/topics/" + newTopicName(), EMBEDDED_JSON, "not json at all"),
        400,
        40001,
        "Malformed JSON body");
  }

  @Test
  void aBodyWithoutARecordsArrayIsRefusedWith40002() {
    String topic = newTopicName();
    assertError(post("/topics/" + topic, EMBEDDED_JSON, "{}"), 400, 40002, "\"records\" array");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":{\"value\":1}}"),
        400,
        40002,
        "\"records\" array");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "[{\"value\":1}]"),
        400,
        40002,
        "\"records\" array");
    assertError(post("/topics/" + topic, EMBEDDED_JSON, ""), 400, 40002, "no body");
  }

  @Test
  void recordsOfTheWrongShapeAreRefusedWith40002NamingTheRecord() {
    String topic = newTopicName();
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"value\":1},5]}"),
        400,
        40002,
        "records[1] must be a JSON object");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"partition\":\"0\"}]}"),
        400,
        40002,
        "records[0].partition must be a non-negative integer");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"partition\":-1}]}"),
        400,
        40002,
        "records[0].partition");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"timestamp\":-5}]}"),
        400,
        40002,
        "records[0].timestamp");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"timestamp\":\"now\"}]}"),
        400,
        40002,
        "records[0].timestamp");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"headers\":5}]}"),
        400,
        40002,
        "records[0].headers must be an object or a list");
    assertError(
        post(
            "/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"headers\":[{\"value\":\"x\"}]}]}"),
        400,
        40002,
        "records[0].headers entries");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"headers\":{\"h\":1}}]}"),
        400,
        40002,
        "header values must be strings or null");
  }

  @Test
  void anUnknownFieldInARecordIsRefusedWith40002() {
    assertError(
        post(
            "/topics/" + newTopicName(),
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":1},{\"value\":2,\"foo\":3}]}"),
        400,
        40002,
        "records[1] has unknown field \"foo\"; expected key, value, partition, headers, timestamp");
  }

  @Test
  void anEmptyRecordsArrayIsRefusedWith40002() {
    assertError(
        post("/topics/" + newTopicName(), EMBEDDED_JSON, "{\"records\":[]}"),
        400,
        40002,
        "no records");
  }

  @Test
  void badBase64InTheBinaryFormatIsRefusedWith40002() {
    String topic = newTopicName();
    assertError(
        post("/topics/" + topic, EMBEDDED_BINARY, "{\"records\":[{\"value\":\"not base64!\"}]}"),
        400,
        40002,
        "records[0].value is not valid base64");
    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_BINARY,
            "{\"records\":[{\"key\":\"%%%\",\"value\":\"AA==\"}]}"),
        400,
        40002,
        "records[0].key is not valid base64");
    assertError(
        post("/topics/" + topic, EMBEDDED_BINARY, "{\"records\":[{\"value\":{\"a\":1}}]}"),
        400,
        40002,
        "must be a base64 string");
    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_BINARY,
            "{\"records\":[{\"value\":\"AA==\",\"headers\":{\"h\":\"?\"}}]}"),
        400,
        40002,
        "header value is not valid base64");
  }

  @Test
  void anUnsupportedContentTypeIsRefusedWith41501() {
    assertError(
        post("/topics/" + newTopicName(), "text/plain", "{\"records\":[{\"value\":1}]}"),
        415,
        41501,
        "Unsupported Content-Type 'text/plain'");
    assertError(
        post(
            "/topics/" + newTopicName(),
            "application/vnd.kafka.avro.v2+json",
            "{\"records\":[{\"value\":1}]}"),
        415,
        41501,
        "application/vnd.kafka.avro.v2+json");
  }

  @Test
  void anUnknownPartitionOfAnExistingTopicIsRefusedWith40402() {
    String topic = newTopicName();
    createTopic(topic, 2);

    assertError(
        post("/topics/" + topic + "/partitions/2", EMBEDDED_JSON, "{\"records\":[{\"value\":1}]}"),
        404,
        40402,
        "Partition 2 of topic '" + topic + "' does not exist; the topic has 2 partition(s).");
    assertError(
        post("/topics/" + topic, EMBEDDED_JSON, "{\"records\":[{\"partition\":9,\"value\":1}]}"),
        404,
        40402,
        "Partition 9");
  }

  @Test
  void aNonIntegerPathPartitionIsABadParameter() {
    assertError(
        post(
            "/topics/" + newTopicName() + "/partitions/x",
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":1}]}"),
        400,
        40003,
        "'x'");
  }

  // ---- size limits and atomicity
  // -----------------------------------------------------------------------------

  @Test
  void aRecordLargerThanMaxMessageBytesIsRefusedWith41301AndNothingIsAppended() {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"max.message.bytes\",\"value\":\"2000\"}]");
    produceJson(topic, "{\"records\":[{\"value\":\"small\"}]}");

    Response r =
        post(
            "/topics/" + topic,
            EMBEDDED_JSON,
            "{\"records\":[{\"value\":\"ok\"},{\"value\":\"" + "x".repeat(5000) + "\"}]}");

    assertError(r, 413, 41301, "max.message.bytes=2000");
    assertThat(endOffset(topic, 0)).isEqualTo(1);
    assertThat(readJson(topic, 0, 0)).hasSize(1);
  }

  @Test
  void recordsThatExceedMaxMessageBytesOnlyTogetherAreSplitIntoBatchesWithContiguousOffsets() {
    String topic = newTopicName();
    createTopic(topic, 1, "[{\"name\":\"max.message.bytes\",\"value\":\"2000\"}]");
    StringBuilder body = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 12; i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"value\":\"")
          .append(i)
          .append("-")
          .append("y".repeat(500))
          .append("\"}");
    }
    body.append("]}");

    List<Long> offsets = offsetsOf(produceJson(topic, body.toString()));

    assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
    JsonNode read = readJson(topic, 0, 0);
    assertThat(read).hasSize(12);
    for (int i = 0; i < 12; i++) {
      assertThat(read.get(i).get("offset").longValue()).isEqualTo(i);
      assertThat(read.get(i).get("value").stringValue()).startsWith(i + "-");
    }
    assertThat(endOffset(topic, 0)).isEqualTo(12);
  }

  @Test
  void aRequestWithOneBadPartitionAppendsNothingAnywhere() {
    String topic = newTopicName();
    createTopic(topic, 2);
    produceJson(
        topic, "{\"records\":[{\"partition\":0,\"value\":1},{\"partition\":1,\"value\":1}]}");

    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_JSON,
            "{\"records\":[{\"partition\":0,\"value\":2},{\"partition\":1,\"value\":2},{\"partition\":5,\"value\":2}]}"),
        404,
        40402,
        "Partition 5");

    assertThat(endOffset(topic, 0)).isEqualTo(1);
    assertThat(endOffset(topic, 1)).isEqualTo(1);
  }

  @Test
  void aRequestWithOneTooLargeRecordAppendsNothingToOtherPartitions() {
    String topic = newTopicName();
    createTopic(topic, 2, "[{\"name\":\"max.message.bytes\",\"value\":\"2000\"}]");

    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_JSON,
            "{\"records\":[{\"partition\":0,\"value\":\"fits\"},{\"partition\":1,\"value\":\""
                + "z".repeat(5000)
                + "\"}]}"),
        413,
        41301,
        topic + "-1");

    assertThat(endOffset(topic, 0)).isZero();
    assertThat(endOffset(topic, 1)).isZero();
  }

  @Test
  void aRequestWithOneBadRecordAppendsNothing() {
    String topic = newTopicName();
    produceJson(topic, "{\"records\":[{\"value\":1}]}");

    assertError(
        post(
            "/topics/" + topic,
            EMBEDDED_BINARY,
            "{\"records\":[{\"value\":\"AA==\"},{\"value\":\"!!\"}]}"),
        400,
        40002,
        "records[1].value");

    assertThat(endOffset(topic, 0)).isEqualTo(1);
  }

  private static String decode(JsonNode base64) {
    return new String(Base64.getDecoder().decode(base64.stringValue()), StandardCharsets.UTF_8);
  }
}
