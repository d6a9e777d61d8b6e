package dev.tributary.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.log.ManualTime;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The guided demo's banner on one broker: what {@code POST /dashboard/actions/demo} accepts, how
 * long the banner lives, and how it reaches the dashboard's state and an open page's deltas.
 */
class DemoBannerTest {
  private static final String GOOD =
      """
      {"name":"isr","title":"ISR: who is in sync","step":2,"steps":5,"text":"Broker 3 stops fetching",
       "topics":["demo-isr"],"partitions":["demo-isr-0"]}
      """;

  private final JsonMapper json = JsonMapper.builder().build();
  private final ManualTime time = new ManualTime(1_764_800_000_000L);
  private final DemoBanner banner = new DemoBanner(time);
  private final DemoBannerController controller = new DemoBannerController(banner, json);

  private ResponseEntity<Map<String, Object>> post(String body) {
    return controller.set(body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aBannerIsShownAsSentStampedWithTheBrokersClock() {
    ResponseEntity<Map<String, Object>> answer = post(GOOD);
    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getBody()).containsEntry("expires_ms", 1_764_800_060_000L);
    ClusterSnapshot.DemoRow row = banner.current(time.milliseconds()).orElseThrow();
    assertThat(row)
        .isEqualTo(
            new ClusterSnapshot.DemoRow(
                "isr",
                "ISR: who is in sync",
                2,
                5,
                "Broker 3 stops fetching",
                List.of("demo-isr"),
                List.of("demo-isr-0"),
                1_764_800_000_000L));
    JsonNode written = json.valueToTree(row);
    assertThat(written.propertyNames())
        .containsExactly(
            "name", "title", "step", "steps", "text", "topics", "partitions", "updated_ms");
  }

  @Test
  void aBannerExpiresAMinuteAfterItsLastUpdateSoAKilledRunnersBannerGoes() {
    post(GOOD);
    time.sleep(59_999);
    assertThat(banner.current(time.milliseconds())).isPresent();
    post(GOOD.replace("\"step\":2", "\"step\":3")); // the runner's next update renews it
    time.sleep(59_999);
    assertThat(banner.current(time.milliseconds())).get().extracting(r -> r.step()).isEqualTo(3);
    time.sleep(1);
    assertThat(banner.current(time.milliseconds())).isEmpty();
  }

  @Test
  void clearOrDeleteRemovesIt() {
    post(GOOD);
    assertThat(post("{\"clear\":true}").getStatusCode().value()).isEqualTo(200);
    assertThat(banner.current(time.milliseconds())).isEmpty();
    post(GOOD);
    assertThat(controller.clear().getStatusCode().value()).isEqualTo(200);
    assertThat(banner.current(time.milliseconds())).isEmpty();
  }

  @Test
  void badBodiesAreRefusedWith40002AndChangeNothing() {
    post(GOOD);
    ClusterSnapshot.DemoRow before = banner.current(time.milliseconds()).orElseThrow();
    for (String body :
        List.of(
            "[]",
            "{}",
            "{\"clear\":false}",
            "{\"clear\":true,\"name\":\"isr\"}",
            GOOD.replace("\"step\":2", "\"step\":6"),
            GOOD.replace("\"step\":2", "\"step\":0"),
            GOOD.replace("\"step\":2", "\"step\":2.5"),
            GOOD.replace("\"steps\":5", "\"steps\":51"),
            GOOD.replace("\"name\":\"isr\"", "\"name\":\"ISR demo\""),
            GOOD.replace("\"title\":\"ISR: who is in sync\"", "\"title\":\"\""),
            GOOD.replace("\"text\":\"Broker 3 stops fetching\"", "\"text\":7"),
            GOOD.replace("[\"demo-isr\"]", "\"demo-isr\""),
            GOOD.replace("[\"demo-isr-0\"]", "[\"demo-isr\"]"),
            GOOD.replace("[\"demo-isr-0\"]", "[\"a/b-0\"]"),
            GOOD.replace("\"topics\"", "\"colour\""))) {
      ResponseEntity<Map<String, Object>> answer = post(body);
      assertThat(answer.getStatusCode().value()).as(body).isEqualTo(400);
      assertThat(answer.getBody()).as(body).containsEntry("error_code", 40002);
      assertThat(answer.getBody().get("message")).as(body).isNotNull();
    }
    assertThat(post("{\"name\":").getBody()).containsEntry("error_code", 40001);
    assertThat(post(null).getBody()).containsEntry("error_code", 40002);
    assertThat(banner.current(time.milliseconds())).contains(before);
  }

  @Test
  void theMessagesSayWhatIsWrong() {
    assertThatThrownBy(
            () -> DemoBanner.parse(json.readTree(GOOD.replace("\"step\":2", "\"step\":6"))))
        .hasMessage("step must be an integer from 1 to 5");
    assertThatThrownBy(
            () -> DemoBanner.parse(json.readTree(GOOD.replace("\"topics\"", "\"colour\""))))
        .hasMessageContaining("Unknown field \"colour\"");
  }

  @Test
  void theBannerIsATopLevelFieldOfTheStateAndItsChangeIsADelta() {
    ClusterSnapshot plain = DashboardFixtures.healthy(1, 5, 1_000);
    assertThat(json.valueToTree(plain).has("demo")).isTrue();
    assertThat(json.valueToTree(plain).get("demo").isNull()).isTrue();

    post(GOOD);
    ClusterSnapshot.DemoRow row = banner.current(time.milliseconds()).orElseThrow();
    ClusterSnapshot.Header h = plain.header();
    ClusterSnapshot withBanner =
        new ClusterSnapshot(
            plain.scope(),
            new ClusterSnapshot.Header(
                h.clusterId(),
                h.brokerId(),
                h.controllerId(),
                h.controllerEpoch(),
                h.metadataOffset(),
                h.serverTimeMs() + 250,
                h.faultActions(),
                row),
            plain.brokers(),
            plain.partitions(),
            plain.topics(),
            plain.events(),
            plain.groups(),
            plain.groupEvents());
    JsonNode state = json.valueToTree(withBanner);
    assertThat(state.get("demo").get("name").asString()).isEqualTo("isr");
    assertThat(state.get("demo").get("partitions").get(0).asString()).isEqualTo("demo-isr-0");

    DashboardMessages.Delta delta = DashboardMessages.between(plain, withBanner).orElseThrow();
    assertThat(delta.header().demo()).isEqualTo(row);
    assertThat(json.valueToTree(delta).get("header").get("demo").get("step").asInt()).isEqualTo(2);
    assertThat(DashboardMessages.between(withBanner, withBanner)).isEmpty();
  }
}
