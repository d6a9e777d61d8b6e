package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The run-time broker configs over REST: a broker's replication throttle rates and every broker's
 * default, set, read with their source, removed; a bad value, a static config or an unknown broker
 * refused with nothing changed.
 */
class BrokerConfigsV3ApiTest extends ApiTestSupport {
  private static final String LEADER_RATE = "leader.replication.throttled.rate";

  private int brokerId() {
    return expectOk(get(v3("/brokers"))).get("data").get(0).get("broker_id").intValue();
  }

  private String own(String name) {
    return v3("/brokers/" + brokerId() + "/configs/" + name);
  }

  @AfterEach
  void removeTheRates() {
    delete(own(LEADER_RATE));
    delete(v3("/broker-configs/" + LEADER_RATE));
  }

  @Test
  void aRateIsSetReadWithItsSourceAndRemoved() {
    JsonNode unset = expectOk(get(own(LEADER_RATE)));
    assertThat(unset.get("value").asString()).isEqualTo(String.valueOf(Long.MAX_VALUE));
    assertThat(unset.get("source").asString()).isEqualTo("DEFAULT_CONFIG");
    assertThat(unset.get("is_default").booleanValue()).isTrue();

    assertThat(put(own(LEADER_RATE), "{\"value\":\"2000000\"}").status()).isEqualTo(204);
    JsonNode set = expectOk(get(own(LEADER_RATE)));
    assertThat(set.get("value").asString()).isEqualTo("2000000");
    assertThat(set.get("source").asString()).isEqualTo("DYNAMIC_BROKER_CONFIG");
    assertThat(set.get("kind").asString()).isEqualTo("KafkaBrokerConfig");
    assertThat(expectOk(get(v3("/brokers/" + brokerId() + "/configs"))).get("data").size())
        .isEqualTo(2);

    assertThat(delete(own(LEADER_RATE)).status()).isEqualTo(204);
    assertThat(expectOk(get(own(LEADER_RATE))).get("source").asString())
        .isEqualTo("DEFAULT_CONFIG");
  }

  @Test
  void theClusterDefaultAppliesToABrokerWithoutItsOwn() {
    assertThat(put(v3("/broker-configs/" + LEADER_RATE), "{\"value\":5000}").status())
        .isEqualTo(204);
    JsonNode listed = expectOk(get(v3("/broker-configs"))).get("data").get(0);
    assertThat(listed.get("name").asString()).isEqualTo(LEADER_RATE);
    assertThat(listed.get("kind").asString()).isEqualTo("KafkaClusterConfig");
    JsonNode inherited = expectOk(get(own(LEADER_RATE)));
    assertThat(inherited.get("value").asString()).isEqualTo("5000");
    assertThat(inherited.get("source").asString()).isEqualTo("DYNAMIC_DEFAULT_BROKER_CONFIG");
  }

  @Test
  void badValuesStaticConfigsAndUnknownBrokersAreRefusedAndNothingChanges() {
    assertError(put(own(LEADER_RATE), "{\"value\":\"-5\"}"), 422, 42202, "bytes per second");
    assertError(put(own(LEADER_RATE), "{\"rate\":1}"), 400, 40002, "{\"value\"");
    assertError(
        put(own("log.retention.ms"), "{\"value\":\"1\"}"),
        400,
        40002,
        "Cannot update these configs dynamically: [log.retention.ms]");
    assertError(get(own("log.retention.ms")), 404, 40405, "DescribeConfigs");
    assertError(
        put(v3("/brokers/77/configs/" + LEADER_RATE), "{\"value\":\"1\"}"),
        404,
        40406,
        "Broker 77 is not registered");
    assertThat(expectOk(get(own(LEADER_RATE))).get("source").asString())
        .isEqualTo("DEFAULT_CONFIG");
  }
}
