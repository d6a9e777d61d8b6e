package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Starts the broker core on its own thread once the web server listens, so that liveness answers while logs
 * recover; readiness stays DOWN until recovery has finished. On shutdown it stops the core after the web
 * server has stopped taking requests (graceful shutdown), which flushes logs and writes checkpoints. Readiness
 * comes from {@link BrokerHealthIndicator}.
 */
@Component
class BrokerLifecycle implements SmartLifecycle, ApplicationListener<WebServerInitializedEvent> {
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
  }

  /**
   * Starts the core once the web server listens, so the broker registers the port it really bound (which
   * differs from {@code server.port} when that is 0).
   */
  @Override
  public synchronized void onApplicationEvent(WebServerInitializedEvent event) {
    if (event.getApplicationContext().getServerNamespace() != null || startupThread != null) {
      return; // a management server on its own port, or already started
    }
    int port = event.getWebServer().getPort();
    startupThread = new Thread(() -> recoverAndServe(port), "tributary-startup");
    startupThread.start();
  }

  private void recoverAndServe(int port) {
    try {
      broker.startup(port);
      metrics.refresh();
      scheduler.scheduleWithFixedDelay(this::housekeeping, broker.config().logPeriodicTaskIntervalMs());
    } catch (InterruptedException e) {
      logger.info("Broker startup interrupted by shutdown");
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
    Thread startup;
    synchronized (this) {
      startup = startupThread;
    }
    if (startup != null) {
      broker.beginShutdown();
      if (!broker.isReady()) {
        startup.interrupt(); // still waiting for a controller or recovering: give up
      }
      try {
        startup.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
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
