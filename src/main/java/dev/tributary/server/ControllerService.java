package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.ClusterEvents;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.ProducerIdsBlock;
import dev.tributary.replication.Truncation;
import java.util.List;
import java.util.Map;

/**
 * The active controller's side of {@link ControllerChannel}: runs each request against the local
 * {@link Controller} and answers with the metadata offset the caller must reach. The web layer's
 * internal endpoints call it for requests from other brokers; a broker that is its own controller
 * (single-broker mode) uses it directly as its channel, so a lone broker runs the same registration
 * and heartbeat path as a cluster member. The target endpoint argument is ignored: this is the
 * target. Registrations and heartbeats are stamped with the monotonic clock: they open broker
 * sessions, which a jump of the wall clock must not end or extend.
 */
public final class ControllerService implements ControllerChannel {
  private final Controller controller;
  private final MetadataQuorum quorum;
  private final Time time;
  private final BrokerProbe probe;

  ControllerService(Controller controller, MetadataQuorum quorum, Time time, BrokerProbe probe) {
    this.controller = controller;
    this.quorum = quorum;
    this.time = time;
    this.probe = probe;
  }

  @Override
  public RegistrationResult register(Endpoint target, BrokerRegistration registration) {
    long epoch =
        controller.registerBroker(
            registration.brokerId(),
            Uuid.parse(registration.incarnationId()),
            registration.listeners(),
            registration.rack(),
            time.monotonicMs());
    return new RegistrationResult(epoch, quorum.image().lastOffset());
  }

  @Override
  public HeartbeatResult heartbeat(Endpoint target, BrokerHeartbeat heartbeat) {
    boolean fenced =
        controller.heartbeat(
            heartbeat.brokerId(),
            heartbeat.brokerEpoch(),
            heartbeat.metadataOffset(),
            heartbeat.logDirOffline(),
            time.monotonicMs());
    return new HeartbeatResult(fenced, quorum.image().lastOffset());
  }

  @Override
  public AdminResult createTopic(Endpoint target, NewTopic topic, boolean validateOnly) {
    return new AdminResult(controller.createTopic(topic, validateOnly).lastOffset());
  }

  @Override
  public AdminResult createPartitions(
      Endpoint target, NewPartitions request, boolean validateOnly) {
    return new AdminResult(controller.createPartitions(request, validateOnly).lastOffset());
  }

  @Override
  public AdminResult deleteTopic(Endpoint target, String name) {
    controller.deleteTopic(name);
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult alterBrokerConfigs(
      Endpoint target, int brokerId, List<ConfigChange> changes, boolean validateOnly) {
    return new AdminResult(
        controller.alterBrokerConfigs(brokerId, changes, validateOnly).lastOffset());
  }

  @Override
  public AdminResult unregisterBroker(Endpoint target, int brokerId) {
    controller.unregisterBroker(brokerId);
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult alterPartition(Endpoint target, AlterPartition request) {
    controller.alterPartition(
        Uuid.parse(request.topicId()),
        request.partition(),
        request.leaderId(),
        request.leaderEpoch(),
        request.partitionEpoch(),
        request.newIsr(),
        request.brokerEpochs(),
        request.reason());
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult fenceBroker(Endpoint target, int brokerId, long brokerEpoch) {
    controller.fenceBroker(brokerId, brokerEpoch, "controlled shutdown");
    return new AdminResult(quorum.image().lastOffset());
  }

  /**
   * Probes the reported broker's HTTP port; if the connection is refused (no process listens there:
   * it died or is stopping) its current registration is fenced now instead of after its session. A
   * probe that times out proves nothing (a slow or partitioned broker), so the session timeout
   * still decides then.
   */
  /**
   * Records a replica's truncation on the timeline, if its broker is registered and the partition
   * exists (a report from a stale incarnation of a deleted topic changes nothing).
   */
  @Override
  public void reportTruncation(Endpoint target, Truncation t) {
    var image = quorum.image();
    var topic = image.topic(t.topicPartition().topic());
    if (image.broker(t.replicaId()).isEmpty()
        || topic.isEmpty()
        || !topic.get().partitions().containsKey(t.topicPartition().partition())) {
      return;
    }
    controller.recordEvent(
        ClusterEvents.replicaTruncated(
            t.topicPartition().topic(),
            t.topicPartition().partition(),
            t.replicaId(),
            t.leaderId(),
            t.leaderEpoch(),
            t.truncatedTo(),
            t.previousLogEndOffset(),
            t.highWatermark(),
            time.milliseconds()));
  }

  /** Records the fault on the timeline if it names the network (-1) or a registered broker. */
  @Override
  public void reportFault(Endpoint target, FaultReport fault) {
    if (fault.brokerId() >= 0 && quorum.image().broker(fault.brokerId()).isEmpty()) {
      return;
    }
    controller.recordEvent(
        ClusterEvents.faultInjected(
            fault.brokerId(), fault.text(), fault.how(), time.milliseconds()));
  }

  @Override
  public void reportUnreachable(Endpoint target, int reporterId, int brokerId) {
    var broker = quorum.image().broker(brokerId);
    if (broker.isEmpty() || broker.get().fenced()) {
      return;
    }
    if (probe.refusesConnections(broker.get().host(), broker.get().port())) {
      org.slf4j.LoggerFactory.getLogger(ControllerService.class)
          .info(
              "Broker {} refuses connections (reported by broker {}); fencing broker epoch {} now",
              brokerId,
              reporterId,
              broker.get().brokerEpoch());
      try {
        controller.fenceBroker(
            brokerId,
            broker.get().brokerEpoch(),
            "its port refuses connections (reported by broker "
                + reporterId
                + ", confirmed by the controller)");
      } catch (dev.tributary.common.errors.StaleBrokerEpochException e) {
        // it re-registered meanwhile: the new incarnation is alive
      }
    }
  }

  @Override
  public ProducerIdsBlock allocateProducerIds(Endpoint target, int brokerId, long brokerEpoch) {
    return controller.allocateProducerIds(brokerId, brokerEpoch);
  }

  @Override
  public AdminResult alterSecurity(Endpoint target, dev.tributary.security.SecurityChange change) {
    return new AdminResult(controller.alterSecurity(change).lastOffset());
  }

  @Override
  public AdminResult alterConfigs(
      Endpoint target, String name, List<ConfigChange> changes, boolean validateOnly) {
    return new AdminResult(controller.alterConfigs(name, changes, validateOnly).lastOffset());
  }

  @Override
  public ElectionResult electPreferredLeaders(Endpoint target, List<TopicPartition> partitions) {
    Map<TopicPartition, ElectionOutcome> outcomes = controller.electPreferredLeaders(partitions);
    return new ElectionResult(quorum.image().lastOffset(), outcomes);
  }

  @Override
  public ReassignmentResult alterPartitionReassignments(
      Endpoint target, Map<TopicPartition, java.util.Optional<List<Integer>>> targets) {
    Map<TopicPartition, dev.tributary.metadata.PartitionOutcome> outcomes =
        controller.alterPartitionReassignments(targets);
    return new ReassignmentResult(quorum.image().lastOffset(), outcomes);
  }
}
