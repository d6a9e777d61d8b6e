package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.Uuid;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.MetadataQuorum;
import java.util.Map;

/**
 * The active controller's side of {@link ControllerChannel}: runs each request against the local {@link
 * Controller} and answers with the metadata offset the caller must reach. The web layer's internal endpoints call
 * it for requests from other brokers; a broker that is its own controller (single-broker mode) uses it directly
 * as its channel, so a lone broker runs the same registration and heartbeat path as a cluster member. The target
 * endpoint argument is ignored: this is the target.
 */
public final class ControllerService implements ControllerChannel {
  private final Controller controller;
  private final MetadataQuorum quorum;
  private final Time time;

  ControllerService(Controller controller, MetadataQuorum quorum, Time time) {
    this.controller = controller;
    this.quorum = quorum;
    this.time = time;
  }

  @Override
  public RegistrationResult register(Endpoint target, BrokerRegistration registration) {
    long epoch =
        controller.registerBroker(
            registration.brokerId(), Uuid.parse(registration.incarnationId()), registration.host(),
            registration.port(), time.milliseconds());
    return new RegistrationResult(epoch, quorum.image().lastOffset());
  }

  @Override
  public HeartbeatResult heartbeat(Endpoint target, BrokerHeartbeat heartbeat) {
    boolean fenced =
        controller.heartbeat(
            heartbeat.brokerId(), heartbeat.brokerEpoch(), heartbeat.metadataOffset(), time.milliseconds());
    return new HeartbeatResult(fenced, quorum.image().lastOffset());
  }

  @Override
  public AdminResult createTopic(
      Endpoint target, String name, int partitions, int replicationFactor, Map<String, String> configs) {
    controller.createTopic(name, partitions, replicationFactor, configs);
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult createPartitions(Endpoint target, String name, int newTotal) {
    controller.createPartitions(name, newTotal);
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult deleteTopic(Endpoint target, String name) {
    controller.deleteTopic(name);
    return new AdminResult(quorum.image().lastOffset());
  }

  @Override
  public AdminResult alterConfig(Endpoint target, String name, String key, String value) {
    controller.alterConfig(name, key, value);
    return new AdminResult(quorum.image().lastOffset());
  }
}
