package dev.tributary.api;

import dev.tributary.quota.ClientQuotaManager;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Produce-quota meters per principal: {@code tributary.quota.produce.throttle.time} (a timer of the
 * delays given) and {@code tributary.quota.produce.byte.rate} (a gauge of the measured rate,
 * bytes/s), both tagged {@code principal}. Registered on a principal's first produce and cached.
 * The tag's values are as many as the principals (or, with authentication off, client addresses)
 * that produced since the broker started.
 */
@Component
class QuotaMeters {
  private final MeterRegistry registry;
  private final ClientQuotaManager quotas;
  private final Map<String, Timer> throttleTimers = new ConcurrentHashMap<>();

  QuotaMeters(MeterRegistry registry, ClientQuotaManager quotas) {
    this.registry = registry;
    this.quotas = quotas;
  }

  /** The throttle timer of {@code principal}; the first call also registers its rate gauge. */
  Timer throttleTime(String principal) {
    return throttleTimers.computeIfAbsent(
        principal,
        p -> {
          Gauge.builder("tributary.quota.produce.byte.rate", quotas, q -> q.byteRate(p))
              .tag("principal", p)
              .baseUnit("bytes")
              .register(registry);
          return Timer.builder("tributary.quota.produce.throttle.time")
              .tag("principal", p)
              .register(registry);
        });
  }
}
