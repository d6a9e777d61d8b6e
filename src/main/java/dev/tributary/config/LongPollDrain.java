package dev.tributary.config;

import dev.tributary.server.BrokerServer;
import dev.tributary.server.GroupServices;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Stops before the web server's graceful shutdown (a higher phase stops earlier): consumer
 * instances leave their groups, the broker hands its leaderships over (controlled shutdown) while
 * it still serves replica fetches, and every waiting long poll is answered, so draining in-flight
 * requests takes milliseconds instead of the longest poll's timeout and no partition is left
 * without a leader.
 */
@Component
class LongPollDrain implements SmartLifecycle {
  private final BrokerServer broker;
  private final GroupServices groups;
  private volatile boolean running;

  LongPollDrain(BrokerServer broker, GroupServices groups) {
    this.broker = broker;
    this.groups = groups;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    if (broker.isReady()) {
      groups.beginShutdown(); // consumer instances leave their groups while coordinators answer
    }
    broker.beginShutdown(); // hands leadership over, then releases long polls
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
