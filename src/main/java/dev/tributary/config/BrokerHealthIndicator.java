package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Part of the readiness group (see application.properties): DOWN until log recovery has finished
 * and the broker serves, DOWN again while it shuts down. Liveness does not include it, so a long
 * recovery is not mistaken for a hung process.
 */
@Component("broker")
class BrokerHealthIndicator implements HealthIndicator {
  private final BrokerServer broker;

  BrokerHealthIndicator(BrokerServer broker) {
    this.broker = broker;
  }

  @Override
  public Health health() {
    if (!broker.isReady()) {
      return Health.down().withDetail("reason", "recovering logs or shutting down").build();
    }
    return Health.up()
        .withDetail("brokerId", broker.config().brokerId())
        .withDetail("partitions", broker.replicaManager().partitions().size())
        .build();
  }
}
