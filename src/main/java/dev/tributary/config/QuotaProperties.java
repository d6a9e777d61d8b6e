package dev.tributary.config;

import dev.tributary.quota.QuotaConfig;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Produce quotas ({@code tributary.quota.*}; docs/security.md "Produce quotas"): the byte rate
 * every principal may produce at (unlimited unless set), overrides by principal name ({@code
 * tributary.quota.producer-byte-rate-overrides[User:alice]=1048576}; an anonymous client is {@code
 * Anonymous:<address>}), and the measuring windows (Kafka's {@code quota.window.num} and {@code
 * quota.window.size.seconds}).
 */
@ConfigurationProperties("tributary.quota")
record QuotaProperties(
    Long producerByteRateDefault,
    Map<String, Long> producerByteRateOverrides,
    Integer windowNum,
    Integer windowSizeSeconds) {

  QuotaConfig toConfig() {
    return new QuotaConfig(
        producerByteRateDefault == null ? QuotaConfig.UNLIMITED : producerByteRateDefault,
        producerByteRateOverrides == null ? Map.of() : producerByteRateOverrides,
        windowNum == null ? 11 : windowNum,
        (windowSizeSeconds == null ? 1 : windowSizeSeconds) * 1000L);
  }
}
