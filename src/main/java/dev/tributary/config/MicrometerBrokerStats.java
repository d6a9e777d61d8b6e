package dev.tributary.config;

import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.server.BrokerStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link BrokerStats} as Micrometer meters (Prometheus names in docs/api.md): {@code
 * tributary_produce_records_total} / {@code _bytes_total} and {@code tributary_fetch_...} per
 * {@code topic}; {@code tributary_quota_produce_throttle_time} (a timer of the delays given) and
 * {@code tributary_quota_produce_byte_rate} (the measured rate, bytes/s) per {@code principal}.
 * Each meter is looked up once and cached: produce and fetch are hot paths, and building a meter id
 * per request is waste. The principal tag has as many values as principals (or, with authentication
 * off, client addresses) that produced since the broker started.
 */
final class MicrometerBrokerStats implements BrokerStats {
  /** The per-topic counter of records served to consumers (the dashboard reads it). */
  static final String FETCHED_RECORDS = "tributary.fetch.records";

  private record Counters(Counter records, Counter bytes) {}

  private final MeterRegistry registry;
  private final ClientQuotaManager quotas;
  private final Map<String, Counters> produced = new ConcurrentHashMap<>();
  private final Map<String, Counters> fetched = new ConcurrentHashMap<>();
  private final Map<String, Timer> throttleTimers = new ConcurrentHashMap<>();

  MicrometerBrokerStats(MeterRegistry registry, ClientQuotaManager quotas) {
    this.registry = registry;
    this.quotas = quotas;
  }

  @Override
  public void recordProduced(String topic, long records, long bytes) {
    Counters counters = produced.computeIfAbsent(topic, t -> counters("tributary.produce", t));
    counters.records().increment(records);
    counters.bytes().increment(bytes);
  }

  @Override
  public void recordFetched(String topic, long records, long bytes) {
    Counters counters = fetched.computeIfAbsent(topic, t -> counters("tributary.fetch", t));
    counters.records().increment(records);
    counters.bytes().increment(bytes);
  }

  @Override
  public void recordProduceThrottle(String clientIdentity, long throttleTimeMs) {
    throttleTimers
        .computeIfAbsent(
            clientIdentity,
            p -> {
              Gauge.builder("tributary.quota.produce.byte.rate", quotas, q -> q.byteRate(p))
                  .tag("principal", p)
                  .baseUnit("bytes")
                  .register(registry);
              return Timer.builder("tributary.quota.produce.throttle.time")
                  .tag("principal", p)
                  .register(registry);
            })
        .record(throttleTimeMs, TimeUnit.MILLISECONDS);
  }

  private Counters counters(String prefix, String topic) {
    return new Counters(
        Counter.builder(prefix + ".records").tag("topic", topic).register(registry),
        Counter.builder(prefix + ".bytes").tag("topic", topic).register(registry));
  }
}
