package dev.tributary.web;

import static dev.tributary.web.DashboardFixtures.event;
import static dev.tributary.web.DashboardFixtures.healthy;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RewindEndpointTest {
  private final JsonMapper json = JsonMapper.builder().build();
  private final ClusterHistory history =
      new ClusterHistory(json::writeValueAsBytes, 1 << 20, 60_000);
  private final RewindEndpoint endpoint = new RewindEndpoint(() -> Optional.of(history), 2, json);

  private static Map<?, ?> errorOf(ResponseEntity<?> answer) {
    return (Map<?, ?>) answer.getBody();
  }

  @Test
  void aPastMomentAnswersInTheShapeOfTheLiveStateWithItsEvents() {
    history.record(1_000, healthy(2, 10, 1_000));
    history.record(2_000, healthy(2, 12, 2_000));

    ResponseEntity<?> answer = endpoint.stateAt("cluster", "1500");

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    JsonNode state = json.readTree((byte[]) answer.getBody());
    assertThat(state.get("scope").asString()).isEqualTo("cluster");
    assertThat(state.get("cluster_id").asString()).isEqualTo("c-1");
    assertThat(state.get("at_ms").asLong()).isEqualTo(1_500);
    assertThat(state.get("recorded_at_ms").asLong()).isEqualTo(1_000);
    assertThat(state.get("partitions").get(0).get("offsets").get("high_watermark").asLong())
        .isEqualTo(10);
    assertThat(state.get("events").get(0).get("text").asString())
        .isEqualTo(event(5, "first").text());
    assertThat(state.get("group_events").isArray()).isTrue();
  }

  @Test
  void badMomentsAndScopesAreRefusedInTheApiErrorShape() {
    history.record(1_000, healthy(1, 10, 1_000));

    ResponseEntity<?> notANumber = endpoint.stateAt("cluster", "yesterday");
    assertThat(notANumber.getStatusCode().value()).isEqualTo(400);
    assertThat(errorOf(notANumber).get("error_code")).isEqualTo(40003);
    assertThat((String) errorOf(notANumber).get("message"))
        .contains("milliseconds since the epoch", "'yesterday'");
    assertThat(endpoint.stateAt("cluster", "-5").getStatusCode().value()).isEqualTo(400);

    ResponseEntity<?> local = endpoint.stateAt("local", "1000");
    assertThat(local.getStatusCode().value()).isEqualTo(400);
    assertThat((String) errorOf(local).get("message")).contains("scope=cluster");

    ResponseEntity<?> tooEarly = endpoint.stateAt("cluster", "999");
    assertThat(tooEarly.getStatusCode().value()).isEqualTo(404);
    assertThat(errorOf(tooEarly).get("error_code")).isEqualTo(RewindEndpoint.NO_HISTORY);
    assertThat((String) errorOf(tooEarly).get("message"))
        .contains("Broker 2 keeps history from 1970-01-01T00:00:01Z (1000)", "is before it");
  }

  @Test
  void aBrokerThatRecordsNothingSaysSo() {
    RewindEndpoint off = new RewindEndpoint(Optional::empty, 3, json);

    ResponseEntity<?> answer = off.stateAt("cluster", "1000");
    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat((String) errorOf(answer).get("message"))
        .contains("tributary.dashboard.history-max-bytes is 0");
    assertThat(((RewindEndpoint.Extent) off.extent().getBody()).recording()).isFalse();
  }

  @Test
  void theExtentSaysWhatSpanIsKept() {
    history.record(1_000, healthy(1, 10, 1_000));
    history.record(2_000, healthy(1, 11, 2_000));

    RewindEndpoint.Extent extent = (RewindEndpoint.Extent) endpoint.extent().getBody();

    assertThat(extent.recording()).isTrue();
    assertThat(extent.brokerId()).isEqualTo(2);
    assertThat(extent.earliestMs()).isEqualTo(1_000);
    assertThat(extent.latestMs()).isEqualTo(2_000);
    assertThat(extent.frames()).isEqualTo(2);
    assertThat(extent.intervalMs()).isEqualTo(LiveClusterView.RECORD_MS);
  }

  @Test
  void theSeriesAreColumnsOfTheSampledRatesAndABadFromIsRefused() {
    history.record(1_000, healthy(1, 10, 1_000));
    history.record(2_000, healthy(1, 11, 2_000));

    Map<?, ?> body = (Map<?, ?>) endpoint.series(null).getBody();
    assertThat(List.<Object>copyOf((List<?>) body.get("times"))).containsExactly(1_000L, 2_000L);
    assertThat(List.<Object>copyOf(((Map<?, ?>) body.get("records_in_per_sec")).keySet()))
        .containsExactly("orders");
    assertThat(
            List.<Object>copyOf(
                (List<?>) ((Map<?, ?>) endpoint.series("1500").getBody()).get("times")))
        .containsExactly(2_000L);

    ResponseEntity<?> bad = endpoint.series("soon");
    assertThat(bad.getStatusCode().value()).isEqualTo(400);
    assertThat(errorOf(bad).get("error_code")).isEqualTo(40003);
  }
}
