package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The clock-skew fault action with authentication on: reading and setting a broker's clock need
 * ADMIN on the cluster, as every dashboard action; setting needs the fault actions on as well.
 */
class ClockSkewSecurityApiTest extends SecuredBrokerTestSupport {
  private static final String CLOCK = "/dashboard/actions/brokers/1/clock";

  @Test
  void onlyAnAdminReadsTheClockAndNobodySkewsItWithTheFaultActionsOff() {
    Key reader = newKey("User:clock-reader-" + COUNTER.incrementAndGet());
    acl(reader.principal(), "READ", "CLUSTER", "LITERAL", "kafka-cluster");

    assertError(send("GET", CLOCK, reader.token(), null), 403, 40305, "ADMIN the cluster");
    assertError(
        send(
            "POST",
            CLOCK,
            reader.token(),
            "{\"skew_ms\":60000}",
            "Content-Type",
            "application/json"),
        403,
        40305,
        "ADMIN the cluster");
    Response read = send("GET", CLOCK, ADMIN, null);
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("skew_ms").asLong()).isZero();
    assertError(
        send("POST", CLOCK, ADMIN, "{\"skew_ms\":60000}", "Content-Type", "application/json"),
        403,
        40301,
        "Fault actions are off on broker 1");
    assertThat(send("GET", CLOCK, ADMIN, null).json().get("skew_ms").asLong()).isZero();
  }
}
