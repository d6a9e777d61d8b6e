package dev.tributary.quota;

import java.util.Map;

/**
 * Produce quotas, as Kafka's client quotas ({@code producer_byte_rate}): a default byte rate for
 * every principal and overrides by principal name; {@link #UNLIMITED} turns a quota off. The rate
 * is measured over {@code numWindows} windows of {@code windowMs} each (Kafka's {@code
 * quota.window.num=11} and {@code quota.window.size.seconds=1}).
 */
public record QuotaConfig(
    long producerByteRateDefault,
    Map<String, Long> producerByteRateOverrides,
    int numWindows,
    long windowMs) {
  /** No quota: the principal is never throttled. */
  public static final long UNLIMITED = Long.MAX_VALUE;

  public QuotaConfig {
    producerByteRateOverrides = Map.copyOf(producerByteRateOverrides);
    if (producerByteRateDefault < 1) {
      throw new IllegalArgumentException(
          "producer byte rate must be at least 1 byte/s, got " + producerByteRateDefault);
    }
    producerByteRateOverrides.forEach(
        (principal, rate) -> {
          if (rate < 1) {
            throw new IllegalArgumentException(
                "producer byte rate of " + principal + " must be at least 1 byte/s, got " + rate);
          }
        });
    if (numWindows < 2 || windowMs < 1) {
      throw new IllegalArgumentException(
          "quota windows need numWindows >= 2 and windowMs >= 1, got "
              + numWindows
              + " x "
              + windowMs);
    }
  }

  /** Kafka's defaults: no quota, 11 windows of 1 s. */
  public static QuotaConfig unlimited() {
    return new QuotaConfig(UNLIMITED, Map.of(), 11, 1_000);
  }

  /** The byte rate {@code principal} may produce at, in bytes per second. */
  public long producerByteRate(String principal) {
    return producerByteRateOverrides.getOrDefault(principal, producerByteRateDefault);
  }
}
