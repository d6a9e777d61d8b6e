package dev.tributary.config;

import dev.tributary.common.Time;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.ProduceHandler;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Builds the plain-Java core with {@code new} and hands it to the web layer. */
@Configuration(proxyBeanMethods = false)
class BrokerWiring {

  @Bean(destroyMethod = "close")
  ExecutorScheduler tributaryScheduler() {
    return new ExecutorScheduler("tributary-scheduler");
  }

  /** Runs the work that follows a delayed completion (long-poll re-reads, acks=all responses). */
  @Bean(destroyMethod = "shutdownNow")
  ExecutorService tributaryDelayedCompletions() {
    AtomicInteger count = new AtomicInteger();
    return Executors.newFixedThreadPool(
        2,
        runnable -> {
          Thread thread = new Thread(runnable, "tributary-delayed-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  @Bean
  BrokerConfig brokerConfig(TributaryProperties properties, @Value("${server.port:8081}") int port) {
    return new BrokerConfig(
        properties.brokerId(), properties.dataDir().toAbsolutePath().normalize(), properties.advertisedHost(), port,
        properties.autoCreateTopicsEnable(), properties.numPartitions(), properties.defaultReplicationFactor(),
        properties.requestTimeoutMs(), properties.logPeriodicTaskIntervalMs());
  }

  /** Closed by {@link BrokerLifecycle} during graceful shutdown, not by the bean factory. */
  @Bean(destroyMethod = "")
  BrokerServer brokerServer(
      BrokerConfig config, ExecutorScheduler scheduler, ExecutorService tributaryDelayedCompletions) {
    return new BrokerServer(config, Time.SYSTEM, new SecureRandom(), scheduler, tributaryDelayedCompletions);
  }

  @Bean
  ProduceHandler produceHandler(BrokerServer broker) {
    return new ProduceHandler(broker, Time.SYSTEM);
  }
}
