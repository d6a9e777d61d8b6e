package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Starts the broker core on its own thread, so that the web server comes up and liveness answers while logs
 * recover; readiness stays DOWN until recovery has finished. On shutdown it stops the core after the web
 * server has stopped taking requests (graceful shutdown), which flushes logs and writes checkpoints. Readiness
 * comes from {@link BrokerHealthIndicator}.
 */
@Component
class BrokerLifecycle implements SmartLifecycle {
  private static final Logger logger = LoggerFactory.getLogger(BrokerLifecycle.class);

  private final BrokerServer broker;
  private final ExecutorScheduler scheduler;
  private final ApplicationEventPublisher events;
  private final PartitionMetrics metrics;
  private volatile boolean running;
  private Thread startupThread;

  BrokerLifecycle(
      BrokerServer broker, ExecutorScheduler scheduler, ApplicationEventPublisher events, PartitionMetrics metrics) {
    this.broker = broker;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.events = events;
  }

  @Override
  public void start() {
    running = true;
    startupThread = new Thread(this::recoverAndServe, "tributary-startup");
    startupThread.start();
  }

  private void recoverAndServe() {
    try {
      broker.startup();
      metrics.refresh();
      scheduler.scheduleWithFixedDelay(this::housekeeping, broker.config().logPeriodicTaskIntervalMs());
    } catch (RuntimeException e) {
      logger.error("Broker failed to start; marking it broken", e);
      AvailabilityChangeEvent.publish(events, this, LivenessState.BROKEN);
    }
  }

  private void housekeeping() {
    try {
      broker.runPeriodicLogTasks();
      metrics.refresh();
    } catch (RuntimeException e) {
      logger.warn("Log housekeeping failed; will retry", e);
    }
  }

  @Override
  public void stop() {
    running = false;
    AvailabilityChangeEvent.publish(events, this, ReadinessState.REFUSING_TRAFFIC);
    try {
      startupThread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    broker.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** A low phase: stopped only after the web server has drained its requests (graceful shutdown). */
  @Override
  public int getPhase() {
    return Integer.MIN_VALUE + 1000;
  }
}
