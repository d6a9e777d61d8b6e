package dev.tributary.web;

import dev.tributary.server.BrokerServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.stereotype.Component;

/**
 * Builds this broker's {@link LocalSnapshot}: its hosted partitions, fetch pause and served-records
 * counters.
 */
@Component
class LocalSnapshots {
  /**
   * The per-topic counter the records API increments for every record it serves (see
   * api.TopicMeters).
   */
  static final String FETCHED_RECORDS_METER = "tributary.fetch.records";

  private final BrokerServer broker;
  private final MeterRegistry registry;

  LocalSnapshots(BrokerServer broker, MeterRegistry registry) {
    this.broker = broker;
    this.registry = registry;
  }

  /**
   * Throws BrokerNotAvailableException while the broker is starting.
   *
   * @param leadersOnly see {@link LocalSnapshot#of}
   */
  LocalSnapshot local(boolean leadersOnly) {
    Map<String, Long> fetched = new TreeMap<>();
    for (Counter counter : registry.find(FETCHED_RECORDS_METER).counters()) {
      String topic = counter.getId().getTag("topic");
      if (topic != null) {
        fetched.merge(topic, (long) counter.count(), Long::sum);
      }
    }
    var replicas = broker.replicaManager();
    return LocalSnapshot.of(
        broker.config().brokerId(),
        replicas.partitions(),
        System.currentTimeMillis(),
        replicas.fetchers().pausedUntilMs(),
        fetched,
        leadersOnly);
  }
}
