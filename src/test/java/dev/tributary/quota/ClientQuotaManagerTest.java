package dev.tributary.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The produce quota's arithmetic, on a manual clock: Kafka's rate and throttle-time rules. */
class ClientQuotaManagerTest {
  private final ManualClock clock = new ManualClock();

  private ClientQuotaManager manager(long defaultRate, Map<String, Long> overrides) {
    return new ClientQuotaManager(new QuotaConfig(defaultRate, overrides, 11, 1_000), clock);
  }

  @Test
  void aPrincipalWithinItsQuotaIsNeverThrottled() {
    ClientQuotaManager quotas = manager(1_000, Map.of());
    for (int second = 0; second < 30; second++) {
      assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 900)).isZero();
      clock.advance(1_000);
    }
    assertThat(quotas.byteRate("User:alice")).isBetween(800.0, 1_000.0);
  }

  @Test
  void aBurstIsMeasuredOverAtLeastTenWindowsAndThrottledByKafkasFormula() {
    ClientQuotaManager quotas = manager(1_000, Map.of());
    // 20,000 bytes at once: rate = 20,000 / 10 s (the minimum span of 11 - 1 windows) = 2,000/s,
    // throttle = (2,000 - 1,000) / 1,000 * 10,000 ms.
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 20_000)).isEqualTo(10_000);
    assertThat(quotas.byteRate("User:alice")).isEqualTo(2_000.0);
  }

  @Test
  void theFirstSpanCountsAsTenWindowsSoAThrottledBurstStaysThrottledUntilItsWindowsAge() {
    // As in Kafka: while less than 10 windows have passed, the rate is still divided by 10 s, so
    // waiting out one throttle time does not yet bring the rate under the quota.
    ClientQuotaManager quotas = manager(1_000, Map.of());
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 15_000)).isEqualTo(5_000);
    clock.advance(5_000);
    assertThat(quotas.byteRate("User:alice")).isEqualTo(1_500.0);
    clock.advance(6_000);
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 1_000)).isZero();
  }

  @Test
  void aSteadyOverloadIsThrottledInProportionToTheExcess() {
    ClientQuotaManager quotas = manager(1_000, Map.of());
    long throttleMs = 0;
    for (int second = 0; second < 20; second++) {
      throttleMs = quotas.recordAndGetThrottleTimeMs("User:alice", 2_000);
      clock.advance(1_000);
    }
    // 2,000/s against 1,000/s over a span of 10-11 s: about one span of delay.
    assertThat(throttleMs).isBetween(8_000L, 11_000L);
  }

  @Test
  void overridesApplyToTheirPrincipalAndTheDefaultToEveryOther() {
    ClientQuotaManager quotas = manager(1_000, Map.of("User:bulk", 1_000_000L));
    assertThat(quotas.recordAndGetThrottleTimeMs("User:bulk", 100_000)).isZero();
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 100_000)).isPositive();
    assertThat(quotas.recordAndGetThrottleTimeMs("Anonymous:127.0.0.1", 500)).isZero();
  }

  @Test
  void principalsAreMeasuredApart() {
    ClientQuotaManager quotas = manager(1_000, Map.of());
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 50_000)).isPositive();
    assertThat(quotas.recordAndGetThrottleTimeMs("User:bob", 5_000)).isZero();
  }

  @Test
  void anUnlimitedQuotaNeverThrottlesButStillMeasures() {
    ClientQuotaManager quotas = new ClientQuotaManager(QuotaConfig.unlimited(), clock);
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", Long.MAX_VALUE / 4)).isZero();
    assertThat(quotas.byteRate("User:alice")).isPositive();
  }

  @Test
  void oneHugeRequestIsDelayedByNoMoreThanTheWholeSpan() {
    ClientQuotaManager quotas = manager(1, Map.of());
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 1_000_000_000))
        .isEqualTo(quotas.maxThrottleTimeMs())
        .isEqualTo(11_000);
  }

  @Test
  void aPrincipalSilentForTheWholeSpanStartsAfresh() {
    ClientQuotaManager quotas = manager(1_000, Map.of());
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 100_000)).isPositive();
    clock.advance(11_000);
    assertThat(quotas.byteRate("User:alice")).isZero();
    assertThat(quotas.recordAndGetThrottleTimeMs("User:alice", 5_000)).isZero();
  }

  @Test
  void quotasBelowOneBytePerSecondAreRefused() {
    assertThatThrownBy(() -> new QuotaConfig(0, Map.of(), 11, 1_000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new QuotaConfig(1_000, Map.of("User:x", 0L), 11, 1_000))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
