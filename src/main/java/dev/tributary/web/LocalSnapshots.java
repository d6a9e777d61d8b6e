package dev.tributary.web;

import dev.tributary.common.Time;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.ClientConnections;
import dev.tributary.server.GroupServices;
import dev.tributary.server.ReplicaStatusService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.stereotype.Component;

/**
 * Builds this broker's {@link LocalSnapshot}: its hosted partitions, fetch pause, served-records
 * counters, the consumer groups its coordinator holds with their recent events, and its Kafka
 * listener's client connections.
 */
@Component
class LocalSnapshots {
  /**
   * The per-topic counter of records served to consumers (the fetch service counts them; see
   * config.MicrometerBrokerStats).
   */
  static final String FETCHED_RECORDS_METER = "tributary.fetch.records";

  private final BrokerConfig config;
  private final ReplicaStatusService replicas;
  private final MeterRegistry registry;
  private final GroupServices groupServices;
  private final ClientConnections clientConnections;
  private final Time time;

  LocalSnapshots(
      BrokerConfig config,
      ReplicaStatusService replicas,
      MeterRegistry registry,
      GroupServices groupServices,
      ClientConnections clientConnections,
      Time brokerTime) {
    this.time = brokerTime;
    this.config = config;
    this.replicas = replicas;
    this.registry = registry;
    this.groupServices = groupServices;
    this.clientConnections = clientConnections;
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
    LocalSnapshot snapshot =
        LocalSnapshot.of(
            config.brokerId(),
            replicas.hosted(leadersOnly),
            time.milliseconds(),
            replicas.replicaFetchingPausedUntilMs(),
            fetched,
            leadersOnly);
    List<ClientConnections.ClientConnection> open = clientConnections.connections();
    snapshot =
        snapshot
            .withClientConnections(open.size(), LocalClients.connections(open))
            .withReplicaLagTimeMaxMs(config.replication().replicaLagTimeMaxMs());
    GroupCoordinator coordinator = groupServices.localCoordinator(); // null before startup
    if (coordinator == null) {
      return snapshot;
    }
    return snapshot.withGroups(
        LocalGroups.groups(coordinator.loadedGroups()),
        LocalGroups.events(coordinator.recentEvents()));
  }
}
