package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Stops before the web server's graceful shutdown (a higher phase stops earlier) and answers every
 * waiting long poll, so draining in-flight requests takes milliseconds instead of the longest
 * poll's timeout.
 */
@Component
class LongPollDrain implements SmartLifecycle {
  private final BrokerServer broker;
  private volatile boolean running;

  LongPollDrain(BrokerServer broker) {
    this.broker = broker;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    broker.beginShutdown();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Above the web server's graceful-shutdown phase (DEFAULT_PHASE - 1024), so this stops first. */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 512;
  }
}
