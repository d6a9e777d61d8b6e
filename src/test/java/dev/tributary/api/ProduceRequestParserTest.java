package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.server.ProduceRecord;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The produce body read as a token stream: what a tree read did, it does (the API tests cover the
 * common shapes); these are the corners where a stream could differ.
 */
class ProduceRequestParserTest {
  private final ProduceRequestParser parser =
      new ProduceRequestParser(JsonMapper.builder().build(), 3);

  private List<ProduceRecord> parse(String body, EmbeddedFormat format) {
    return parser.parse(body.getBytes(StandardCharsets.UTF_8), format);
  }

  private RestException refused(String body, EmbeddedFormat format) {
    return catchThrowableOfType(RestException.class, () -> parse(body, format));
  }

  @Test
  void otherTopLevelFieldsAreSkippedAndTheLastRecordsArrayCounts() {
    List<ProduceRecord> records =
        parse(
            "{\"value_schema_id\":{\"a\":[1,2]},\"records\":[{\"value\":1}],"
                + "\"key_schema\":null,\"records\":[{\"value\":2},{\"value\":3}]}",
            EmbeddedFormat.JSON);

    assertThat(records).extracting(r -> new String(r.value())).containsExactly("2", "3");
  }

  @Test
  void aRecordsFieldThatIsNotAnArrayLastIsRefused() {
    RestException e = refused("{\"records\":[{\"value\":1}],\"records\":7}", EmbeddedFormat.JSON);

    assertThat(e.errorCode).isEqualTo(40002);
    assertThat(e).hasMessageContaining("\"records\" array");
  }

  @Test
  void base64IsDecodedAsTheJdkDecoderDecodesAString() {
    for (String text : List.of("", "YQ==", "YWJj", "YWI", "YWI=", "AAEC/w==")) {
      List<ProduceRecord> records =
          parse("{\"records\":[{\"value\":\"" + text + "\"}]}", EmbeddedFormat.BINARY);

      assertThat(records.get(0).value()).as(text).isEqualTo(Base64.getDecoder().decode(text));
    }
  }

  @Test
  void invalidBase64IsRefusedWithTheDecodersReasonNonLatinCharactersAsQuestionMarks() {
    String decoderSays = "";
    try {
      Base64.getDecoder().decode("YW\u4e2dJ");
    } catch (IllegalArgumentException e) {
      decoderSays = e.getMessage();
    }

    RestException e =
        refused("{\"records\":[{\"key\":\"YW\u4e2dJ\",\"value\":null}]}", EmbeddedFormat.BINARY);

    assertThat(e.errorCode).isEqualTo(40002);
    assertThat(e).hasMessage("records[0].key is not valid base64: " + decoderSays);
  }

  @Test
  void brokenJsonAfterABadRecordIsReportedAsBrokenJson() {
    RestException e = refused("{\"records\":[{\"valu\":1}, {\"value\":", EmbeddedFormat.JSON);

    assertThat(e.errorCode).isEqualTo(40001);
  }

  @Test
  void contentAfterTheBodyIsBrokenJsonEvenAfterABadRecord() {
    RestException e = refused("{\"records\":[7]} {}", EmbeddedFormat.JSON);

    assertThat(e.errorCode).isEqualTo(40001);
    assertThat(e).hasMessageContaining("more content after the JSON value");
  }

  @Test
  void tooManyRecordsAreRefusedNamingHowMany() {
    RestException e =
        refused(
            "{\"records\":[{\"value\":1},{\"value\":2},{\"value\":3},{\"value\":[4]},5]}",
            EmbeddedFormat.JSON);

    assertThat(e.errorCode).isEqualTo(41303);
    assertThat(e).hasMessageStartingWith("The request has 5 records, more than");
  }

  @Test
  void headersInListFormIgnoreOtherFieldsAndNeedAName() {
    List<ProduceRecord> records =
        parse(
            "{\"records\":[{\"value\":1,\"headers\":[{\"x\":[1],\"name\":\"h\",\"value\":\"v\"}]}]}",
            EmbeddedFormat.JSON);
    assertThat(records.get(0).headers()).hasSize(1);
    assertThat(records.get(0).headers().get(0).key()).isEqualTo("h");
    assertThat(new String(records.get(0).headers().get(0).value())).isEqualTo("v");

    RestException e =
        refused(
            "{\"records\":[{\"value\":1,\"headers\":[{\"value\":\"v\"}]}]}", EmbeddedFormat.JSON);
    assertThat(e.errorCode).isEqualTo(40002);
  }

  @Test
  void jsonValuesKeepTheirTextCompacted() {
    List<ProduceRecord> records =
        parse(
            "{\"records\":[{\"key\": { \"id\" : 1.10 },\"value\":\"s\",\"partition\":2,"
                + "\"timestamp\":1700000000000}]}",
            EmbeddedFormat.JSON);

    ProduceRecord record = records.get(0);
    assertThat(new String(record.key())).isEqualTo("{\"id\":1.10}");
    assertThat(new String(record.value())).isEqualTo("\"s\"");
    assertThat(record.partition()).isEqualTo(2);
    assertThat(record.timestampMs()).isEqualTo(1_700_000_000_000L);
  }

  @Test
  void aPartitionOrTimestampOutOfRangeIsRefused() {
    for (String field :
        List.of(
            "\"partition\":2147483648",
            "\"partition\":-1",
            "\"partition\":1.5",
            "\"timestamp\":-1",
            "\"timestamp\":9223372036854775808",
            "\"timestamp\":\"1\"")) {
      RestException e = refused("{\"records\":[{\"value\":1," + field + "}]}", EmbeddedFormat.JSON);
      assertThat(e).as(field).isNotNull();
      assertThat(e.errorCode).as(field).isEqualTo(40002);
    }
  }
}
