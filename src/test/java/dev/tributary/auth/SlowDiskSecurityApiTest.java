package dev.tributary.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The slow-disk fault action with authentication on: reading and setting a broker's disk delay need
 * ADMIN on the cluster, as every dashboard action; setting needs the fault actions on as well, and
 * this broker has them off.
 */
class SlowDiskSecurityApiTest extends SecuredBrokerTestSupport {
  private static final String DISK = "/dashboard/actions/brokers/1/disk";

  @Test
  void onlyAnAdminReadsTheDiskDelayAndNobodySetsItWithTheFaultActionsOff() {
    Key reader = newKey("User:disk-reader-" + COUNTER.incrementAndGet());
    acl(reader.principal(), "READ", "CLUSTER", "LITERAL", "kafka-cluster");

    assertError(send("GET", DISK, reader.token(), null), 403, 40305, "ADMIN the cluster");
    assertError(
        send(
            "POST", DISK, reader.token(), "{\"delay_ms\":500}", "Content-Type", "application/json"),
        403,
        40305,
        "ADMIN the cluster");
    Response read = send("GET", DISK, ADMIN, null);
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("delay_ms").asLong()).isZero();
    assertError(
        send("POST", DISK, ADMIN, "{\"delay_ms\":500}", "Content-Type", "application/json"),
        403,
        40301,
        "Fault actions are off on broker 1");
    assertThat(send("GET", DISK, ADMIN, null).json().get("delay_ms").asLong()).isZero();
  }
}
