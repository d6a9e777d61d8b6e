package dev.tributary.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.e2e.HistoryChecker.Entry;
import dev.tributary.e2e.HistoryChecker.Kind;
import dev.tributary.e2e.HistoryChecker.Outcome;
import dev.tributary.e2e.HistoryChecker.Result;
import dev.tributary.e2e.HistoryChecker.View;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * The checker on made-up histories: it classifies answers as documented and finds each kind of
 * violation.
 */
class HistoryCheckerTest {
  private final HistoryChecker history = new HistoryChecker("t");

  @Test
  void classifiesAcknowledgedDefinitelyFailedAndIndeterminateRecords() {
    produce(
        200,
        "{\"offsets\":[{\"partition\":0,\"offset\":0,\"error_code\":null,\"error\":null},"
            + "{\"partition\":0,\"offset\":null,\"error_code\":50308,\"error\":\"not enough replicas\"}]}",
        "a",
        "b");
    produce(503, "{\"error_code\":50308,\"message\":\"NOT_ENOUGH_REPLICAS\"}", "c");
    produce(504, "{\"error_code\":50401,\"message\":\"timed out\"}", "d");
    produce(503, "{\"error_code\":50309,\"message\":\"after append\"}", "e");
    produce(502, "<html>bad gateway</html>", "f");
    history.record(
        List.of("k"), List.of("g"), 0, System.nanoTime(), new ConnectException("refused"));
    history.record(
        List.of("k"), List.of("h"), 0, System.nanoTime(), new HttpTimeoutException("timed out"));

    assertThat(history.ops())
        .extracting(HistoryChecker.Op::value, HistoryChecker.Op::outcome)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", Outcome.OK),
            org.assertj.core.groups.Tuple.tuple("b", Outcome.FAILED),
            org.assertj.core.groups.Tuple.tuple("c", Outcome.FAILED),
            org.assertj.core.groups.Tuple.tuple("d", Outcome.INDETERMINATE),
            org.assertj.core.groups.Tuple.tuple("e", Outcome.INDETERMINATE),
            org.assertj.core.groups.Tuple.tuple("f", Outcome.INDETERMINATE),
            org.assertj.core.groups.Tuple.tuple("g", Outcome.FAILED),
            org.assertj.core.groups.Tuple.tuple("h", Outcome.INDETERMINATE));
  }

  @Test
  void aHistoryThatMatchesEveryViewHasNoViolations() {
    acknowledge("a", 0, 0);
    acknowledge("b", 0, 1);
    produce(
        504,
        "{\"error_code\":50401,\"message\":\"timed out\"}",
        "maybe"); // indeterminate: may be there
    produce(503, "{\"error_code\":50308,\"message\":\"no\"}", "never");

    Result result =
        history.check(List.of(view("api", 0, "a", "b", "maybe"), view("b2", 0, "a", "b", "maybe")));

    result.assertNoViolations();
    assertThat(result.summary())
        .contains("2 acknowledged", "1 definitely failed", "1 indeterminate (1 of them found)");
  }

  @Test
  void findsALostRecordInAnyView() {
    acknowledge("a", 0, 0);
    acknowledge("b", 0, 1);

    Result result = history.check(List.of(view("api", 0, "a", "b"), view("b3", 0, "a")));

    assertThat(result.of(Kind.LOST))
        .singleElement()
        .satisfies(v -> assertThat(v.detail()).contains("b3", "'b'"));
  }

  @Test
  void findsARecordOverwrittenAtItsOffset() {
    acknowledge("a", 0, 0);
    acknowledge("b", 0, 1);
    history.record(
        List.of("k"), List.of("c"), 0, System.nanoTime(), new HttpTimeoutException("timed out"));

    Result result = history.check(List.of(view("api", 0, "a", "c")));

    assertThat(result.of(Kind.LOST))
        .singleElement()
        .satisfies(v -> assertThat(v.detail()).contains("holds 'c'"));
  }

  @Test
  void findsADefinitelyFailedRecordThatIsVisible() {
    acknowledge("a", 0, 0);
    produce(503, "{\"error_code\":50308,\"message\":\"no\"}", "ghost");

    Result result = history.check(List.of(view("api", 0, "a", "ghost")));

    assertThat(result.of(Kind.FAILED_VISIBLE)).hasSize(1);
  }

  @Test
  void findsOffsetsThatContradictTheOrderOfAcknowledgements() {
    acknowledge("first", 0, 5);
    long firstDone = history.ops().get(0).doneNanos();
    while (System.nanoTime() <= firstDone) {
      Thread.onSpinWait(); // the second is sent strictly after the first was acknowledged
    }
    acknowledge("second", 0, 3);

    Result result =
        history.check(
            List.of(
                new View(
                    "api", Map.of(0, List.of(new Entry(3, "second"), new Entry(5, "first"))))));

    assertThat(result.of(Kind.ORDER)).hasSize(1);
  }

  @Test
  void findsTwoValuesAtOneOffsetAcrossViewsAndDuplicatesWithinOne() {
    acknowledge("a", 0, 0);
    history.record(
        List.of("k"), List.of("x"), 0, System.nanoTime(), new HttpTimeoutException("timed out"));

    Result result =
        history.check(
            List.of(
                new View("api", Map.of(0, List.of(new Entry(0, "a"), new Entry(1, "x")))),
                new View(
                    "b2",
                    Map.of(
                        0,
                        List.of(
                            new Entry(0, "a"),
                            new Entry(1, "y"),
                            new Entry(2, "x"),
                            new Entry(3, "x"))))));

    assertThat(result.of(Kind.OFFSET_CONFLICT))
        .singleElement()
        .satisfies(v -> assertThat(v.detail()).contains("p0@1"));
    assertThat(result.of(Kind.DUPLICATE)).hasSize(1);
    assertThat(result.of(Kind.UNKNOWN_VALUE))
        .singleElement()
        .satisfies(v -> assertThat(v.detail()).contains("'y'"));
  }

  @Test
  void findsRepeatedOffsetsAndRecordsInTheWrongPartition() {
    acknowledge("a", 0, 0);
    history.record(
        List.of("k"), List.of("x"), 0, System.nanoTime(), new HttpTimeoutException("timed out"));

    Result result =
        history.check(
            List.of(
                new View(
                    "api",
                    Map.of(
                        0, List.of(new Entry(0, "a"), new Entry(0, "a2")),
                        1, List.of(new Entry(0, "x"))))));

    assertThat(result.of(Kind.OFFSETS_NOT_INCREASING)).hasSize(1);
    assertThat(result.of(Kind.MISPLACED)).hasSize(1);
  }

  @Test
  void aViewWithoutThePartitionIsNotAskedForItsRecords() {
    acknowledge("a", 0, 0);

    Result result =
        history.check(
            List.of(view("api", 0, "a"), new View("broker outside the replicas", Map.of())));

    result.assertNoViolations();
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private void acknowledge(String value, int partition, long offset) {
    produce(
        200,
        "{\"offsets\":[{\"partition\":"
            + partition
            + ",\"offset\":"
            + offset
            + ",\"error_code\":null}]}",
        value);
  }

  private void produce(int status, String body, String... values) {
    List<String> keys = java.util.Arrays.stream(values).map(v -> "k").toList();
    history.record(keys, List.of(values), 0, System.nanoTime(), new Answer(status, body));
  }

  private static View view(String name, int partition, String... values) {
    List<Entry> entries = new java.util.ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      entries.add(new Entry(i, values[i]));
    }
    return new View(name, Map.of(partition, entries));
  }

  private record Answer(int statusCode, String body) implements HttpResponse<String> {
    @Override
    public HttpRequest request() {
      return HttpRequest.newBuilder(URI.create("http://127.0.0.1/")).build();
    }

    @Override
    public Optional<HttpResponse<String>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(Map.of(), (a, b) -> true);
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request().uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }
}
