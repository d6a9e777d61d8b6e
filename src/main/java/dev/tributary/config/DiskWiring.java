package dev.tributary.config;

import dev.tributary.log.SlowDisk;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's one {@link SlowDisk}, shared by the broker's logs (through {@link
 * dev.tributary.server.BrokerServer}) and the fault action {@code
 * /dashboard/actions/brokers/{id}/disk} that slows it: a healthy disk until that action sets a
 * delay.
 */
@Configuration(proxyBeanMethods = false)
class DiskWiring {
  @Bean
  SlowDisk brokerDisk() {
    return new SlowDisk();
  }
}
