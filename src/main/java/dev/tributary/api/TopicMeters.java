package dev.tributary.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Produce and fetch counters per topic ({@code tributary_produce_records_total{topic=...}} and
 * friends), looked up once per topic and cached: produce and fetch are hot paths, and building a
 * meter id per request is waste.
 */
@Component
class TopicMeters {
  /** The counters of one topic. */
  record Counters(Counter records, Counter bytes) {}

  private final MeterRegistry registry;
  private final Map<String, Counters> produce = new ConcurrentHashMap<>();
  private final Map<String, Counters> fetch = new ConcurrentHashMap<>();

  TopicMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  Counters produce(String topic) {
    return produce.computeIfAbsent(topic, t -> counters("tributary.produce", t));
  }

  Counters fetch(String topic) {
    return fetch.computeIfAbsent(topic, t -> counters("tributary.fetch", t));
  }

  private Counters counters(String prefix, String topic) {
    return new Counters(
        Counter.builder(prefix + ".records").tag("topic", topic).register(registry),
        Counter.builder(prefix + ".bytes").tag("topic", topic).register(registry));
  }
}
