package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Part of the readiness group (see application.properties): DOWN until log recovery has finished
 * and the broker serves, DOWN again while it shuts down. Liveness does not include it, so a long
 * recovery is not mistaken for a hung process. DOWN too, with the directory and the error, once an
 * I/O failure has taken the log directory offline (docs/adr/0015-offline-log-dir.md): the broker
 * still relays requests, but a restart is what brings its logs back.
 */
@Component("broker")
class BrokerHealthIndicator implements HealthIndicator {
  private final BrokerServer broker;

  BrokerHealthIndicator(BrokerServer broker) {
    this.broker = broker;
  }

  @Override
  public Health health() {
    var offline = broker.offlineLogDir();
    if (offline.isPresent()) {
      return Health.down()
          .withDetail(
              "reason",
              "log directory "
                  + offline.get().dir()
                  + " is offline ("
                  + offline.get().reason()
                  + "); free space or fix the disk, then restart the broker")
          .build();
    }
    if (!broker.isReady()) {
      return Health.down().withDetail("reason", "recovering logs or shutting down").build();
    }
    return Health.up()
        .withDetail("brokerId", broker.config().brokerId())
        .withDetail("partitions", broker.replicaManager().partitions().size())
        .build();
  }
}
