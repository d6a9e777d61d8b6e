package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import dev.tributary.server.GroupServices;
import java.net.BindException;
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
 * Starts the broker core on its own thread once the web server listens, so that liveness answers
 * while logs recover; readiness stays DOWN until recovery has finished. On shutdown it stops the
 * core after the web server has stopped taking requests (graceful shutdown), which flushes logs and
 * writes checkpoints. Readiness comes from {@link BrokerHealthIndicator}.
 *
 * <p>A startup that fails (a port taken, the quorum peer or the data directory unusable, the
 * controller refusing the broker) logs one ERROR line and exits the process with status 1, from a
 * thread of its own: {@code System.exit} runs Spring's shutdown hook, which calls {@link #stop()},
 * which joins the startup thread. A startup still under way when shutdown begins (waiting for a
 * controller, recovering logs) is interrupted and waited for at most {@link #STARTUP_STOP_WAIT_MS};
 * if it is stuck past that, the broker exits without a clean shutdown, which the next start's log
 * recovery handles like a crash.
 */
@Component
class BrokerLifecycle implements SmartLifecycle, ApplicationListener<WebServerInitializedEvent> {
  private static final Logger logger = LoggerFactory.getLogger(BrokerLifecycle.class);
  static final long STARTUP_STOP_WAIT_MS = 10_000;

  private final BrokerServer broker;
  private final ExecutorScheduler scheduler;
  private final ApplicationEventPublisher events;
  private final PartitionMetrics metrics;
  private final GroupServices groups;
  private volatile boolean running;

  /**
   * Set when shutdown begins: a startup failing after that is the shutdown's doing, not a fault.
   */
  private volatile boolean stopping;

  private Thread startupThread;

  BrokerLifecycle(
      BrokerServer broker,
      ExecutorScheduler scheduler,
      ApplicationEventPublisher events,
      PartitionMetrics metrics,
      GroupServices groups) {
    this.broker = broker;
    this.groups = groups;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.events = events;
  }

  @Override
  public void start() {
    running = true;
  }

  /**
   * Starts the core once the web server listens, so the broker registers the port it really bound
   * (which differs from {@code server.port} when that is 0).
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
      scheduler.scheduleWithFixedDelay(
          this::housekeeping, broker.config().logPeriodicTaskIntervalMs());
    } catch (InterruptedException e) {
      logger.info("Broker startup interrupted by shutdown");
    } catch (RuntimeException | Error e) {
      if (stopping) {
        logger.info("Broker startup ended by shutdown: {}", e.toString());
        return;
      }
      String line =
          "Broker "
              + broker.config().brokerId()
              + " failed to start: "
              + describe(e)
              + "; exiting with status 1";
      if (causedBy(e, BindException.class)) {
        logger.error(line); // the message names the port; a stack trace would add nothing
      } else {
        logger.error(line, e);
      }
      AvailabilityChangeEvent.publish(events, this, LivenessState.BROKEN);
      Thread exit = new Thread(() -> System.exit(1), "tributary-fatal-exit");
      exit.start(); // not on this thread: the shutdown hook joins it (see the class doc)
    }
  }

  private static String describe(Throwable failure) {
    String message = failure.getMessage() == null ? failure.toString() : failure.getMessage();
    Throwable cause = failure.getCause();
    return cause == null || message.contains(String.valueOf(cause.getMessage()))
        ? message
        : message + " (" + cause + ")";
  }

  private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
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
    stopping = true;
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
        startup.join(STARTUP_STOP_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (startup.isAlive()) {
        logger.warn(
            "Broker startup did not stop within {} ms of shutdown; exiting without a clean shutdown. Startup is at:{}",
            STARTUP_STOP_WAIT_MS,
            stackOf(startup));
        return;
      }
    }
    broker.close();
    groups.close();
  }

  private static String stackOf(Thread thread) {
    StringBuilder stack = new StringBuilder();
    for (StackTraceElement frame : thread.getStackTrace()) {
      stack.append("\n\tat ").append(frame);
    }
    return stack.toString();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * A low phase: stopped only after the web server has drained its requests (graceful shutdown).
   */
  @Override
  public int getPhase() {
    return Integer.MIN_VALUE + 1000;
  }
}
