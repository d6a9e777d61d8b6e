package dev.tributary.web;

import dev.tributary.group.GroupCoordinator;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.GroupServices;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.stereotype.Component;

/**
 * Builds this broker's {@link LocalSnapshot}: its hosted partitions, fetch pause, served-records
 * counters, and the consumer groups its coordinator holds with their recent events.
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
  private final GroupServices groupServices;

  LocalSnapshots(BrokerServer broker, MeterRegistry registry, GroupServices groupServices) {
    this.broker = broker;
    this.registry = registry;
    this.groupServices = groupServices;
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
    LocalSnapshot snapshot =
        LocalSnapshot.of(
            broker.config().brokerId(),
            replicas.partitions(),
            System.currentTimeMillis(),
            replicas.fetchers().pausedUntilMs(),
            fetched,
            leadersOnly);
    GroupCoordinator coordinator = groupServices.localCoordinator(); // null before startup
    if (coordinator == null) {
      return snapshot;
    }
    return snapshot.withGroups(
        LocalGroups.groups(coordinator.loadedGroups()),
        LocalGroups.events(coordinator.recentEvents()));
  }
}
