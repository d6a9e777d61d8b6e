package dev.tributary.config;

import dev.tributary.common.SkewedTime;
import dev.tributary.common.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The broker's one clock, injected wherever the broker reads the time: the system clock, whose wall
 * clock can be skewed ({@link SkewedTime}) as on a host with a wrong clock. {@code
 * tributary.clock-skew-ms} (default 0, at most ±1 day) starts the broker skewed; the fault action
 * {@code /dashboard/actions/brokers/{id}/clock} changes it while it runs.
 */
@Configuration(proxyBeanMethods = false)
class ClockWiring {
  private static final Logger logger = LoggerFactory.getLogger(ClockWiring.class);

  @Bean
  SkewedTime brokerTime(@Value("${tributary.clock-skew-ms:0}") long skewMs) {
    if (skewMs != 0) {
      logger.warn("This broker's wall clock is skewed by {} ms (tributary.clock-skew-ms)", skewMs);
    }
    return new SkewedTime(Time.SYSTEM, skewMs);
  }
}
