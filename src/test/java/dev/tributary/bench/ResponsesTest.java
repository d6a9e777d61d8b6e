package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponsesTest {
  private static final String OK_TWO =
      "{\"key_schema_id\":null,\"value_schema_id\":null,\"offsets\":["
          + "{\"partition\":0,\"offset\":41,\"error_code\":null,\"error\":null},"
          + "{\"partition\":0,\"offset\":42,\"error_code\":null,\"error\":null}]}";

  @Test
  void produceResponseAcknowledgingEveryRecordPasses() {
    assertThat(Responses.checkProduce(200, OK_TWO, 2)).isNull();
    assertThat(Responses.checkProduce(200, "{\"offsets\":[{\"partition\":0,\"offset\":1}]}", 1))
        .isNull();
  }

  @Test
  void produceResponseWithAnyProblemIsAnError() {
    assertThat(Responses.checkProduce(500, "{\"error_code\":50001,\"message\":\"boom\"}", 2))
        .startsWith("HTTP 500")
        .contains("boom");
    assertThat(Responses.checkProduce(200, OK_TWO, 3)).isEqualTo("expected 3 offsets, got 2");
    assertThat(
            Responses.checkProduce(
                200,
                "{\"offsets\":[{\"partition\":0,\"offset\":-1,\"error_code\":50003,"
                    + "\"error\":\"not enough replicas\"}]}",
                1))
        .contains("50003")
        .contains("not enough replicas");
    assertThat(Responses.checkProduce(200, "not json", 1)).startsWith("unparseable");
    assertThat(Responses.checkProduce(200, "{}", 1)).startsWith("response has no offsets");
  }

  @Test
  void fetchSummaryCountsRecordsDecodedValueBytesAndLastOffset() {
    String body =
        "[{\"topic\":\"t\",\"partition\":0,\"offset\":7,\"timestamp\":1,\"key\":null,\"value\":\"AAECAw==\","
            + "\"headers\":[{\"key\":\"h\",\"value\":\"AA==\"}]},"
            + "{\"topic\":\"t\",\"partition\":0,\"offset\":8,\"timestamp\":2,\"key\":\"AA==\",\"value\":\"AAEC\"},"
            + "{\"topic\":\"t\",\"partition\":0,\"offset\":9,\"timestamp\":3,\"key\":null,\"value\":null}]";
    Responses.FetchSummary s = Responses.summarizeFetch(stream(body));
    assertThat(s.records()).isEqualTo(3);
    assertThat(s.valueBytes()).isEqualTo(4 + 3);
    assertThat(s.lastOffset()).isEqualTo(9);
  }

  @Test
  void fetchSummaryReadsFieldsInAnyOrderAndSkipsOnesItDoesNotKnow() {
    String body =
        "[{\"value\":\"AAECAw==\",\"extra\":{\"offset\":99,\"value\":\"AAAAAAAA\"},\"offset\":7},"
            + "{\"topic\":\"t\",\"offset\":8,\"partition\":0,\"value\":\"AAEC\",\"key\":[\"offset\"]},"
            + "{\"topic\":\"t\",\"partition\":0,\"timestamp\":3,\"offset\":11},"
            // All seven in the broker's order, then more: nothing in them counts.
            + "{\"topic\":\"t\",\"partition\":0,\"offset\":12,\"timestamp\":4,\"key\":null,"
            + "\"value\":\"AA==\",\"headers\":[],\"more\":[{\"offset\":99,\"value\":\"AAAA\"}],"
            + "\"offset2\":98}]";
    Responses.FetchSummary s = Responses.summarizeFetch(stream(body));
    assertThat(s.records()).isEqualTo(4);
    assertThat(s.valueBytes()).isEqualTo(4 + 3 + 1);
    assertThat(s.lastOffset()).isEqualTo(12);
  }

  @Test
  void emptyFetchAndNonArrayFetch() {
    assertThat(Responses.summarizeFetch(stream("[]")).records()).isZero();
    assertThatThrownBy(() -> Responses.summarizeFetch(stream("{\"error_code\":404}")))
        .hasMessageContaining("not a JSON array");
  }

  @Test
  void base64LengthAccountsForPadding() {
    assertThat(Responses.base64DecodedLength("AAECAw==".toCharArray(), 0, 8)).isEqualTo(4);
    assertThat(Responses.base64DecodedLength("AAECAwQ=".toCharArray(), 0, 8)).isEqualTo(5);
    assertThat(Responses.base64DecodedLength("AAECAwQF".toCharArray(), 0, 8)).isEqualTo(6);
    assertThat(Responses.base64DecodedLength(new char[0], 0, 0)).isZero();
  }

  private static java.io.InputStream stream(String body) {
    return new java.io.ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
  }
}
