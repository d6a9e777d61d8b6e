package dev.tributary.server;

import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.server.ControllerChannel.Endpoint;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * Where the active controller serves HTTP: the quorum names the leader's broker id, and the
 * metadata image holds that broker's registered HTTP listener (or, for this broker itself, its own
 * configuration — the controller must be reachable before it has registered).
 */
final class ControllerLocator {
  private final Supplier<BrokerConfig> config;
  private final MetadataQuorum quorum;

  ControllerLocator(Supplier<BrokerConfig> config, MetadataQuorum quorum) {
    this.config = config;
    this.quorum = quorum;
  }

  /**
   * The controller's endpoint, or empty while no leader is elected or its address is not yet known
   * here.
   */
  Optional<Endpoint> controllerEndpoint() {
    OptionalInt controllerId = quorum.activeControllerId();
    if (controllerId.isEmpty()) {
      return Optional.empty();
    }
    int id = controllerId.getAsInt();
    BrokerConfig self = config.get();
    if (id == self.brokerId()) {
      return Optional.of(new Endpoint(id, self.host(), self.port()));
    }
    BrokerImage broker = quorum.image().brokers().get(id);
    return broker == null
        ? Optional.empty()
        : Optional.of(new Endpoint(id, broker.host(), broker.port()));
  }
}
