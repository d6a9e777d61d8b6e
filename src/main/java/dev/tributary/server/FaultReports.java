package dev.tributary.server;

import dev.tributary.common.NetworkFailures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the faults a user injects on purpose (the dashboard's network actions) on the cluster's
 * timeline, through the active controller, so that a learner sees the cut before the fence and the
 * elections it causes. Best effort: a report the controller cannot take (none elected, or cut off
 * by the very fault) is logged and the action goes on; the timeline then shows only the
 * consequences.
 */
public final class FaultReports {
  private static final Logger logger = LoggerFactory.getLogger(FaultReports.class);

  private final RunningBroker broker;
  private final int localBrokerId;

  public FaultReports(RunningBroker broker, int localBrokerId) {
    this.broker = broker;
    this.localBrokerId = localBrokerId;
  }

  /**
   * Reports {@code text} about broker {@code brokerId} (-1: the whole network) as done by the
   * dashboard's action through this broker. Blocking, for at most the controller call's timeout;
   * returns whether the controller recorded it.
   */
  public boolean dashboardAction(int brokerId, String text) {
    ControllerChannel.FaultReport fault =
        new ControllerChannel.FaultReport(
            brokerId, text, "the dashboard's network action, through broker " + localBrokerId);
    try {
      broker.controller().reportFault(fault);
      return true;
    } catch (RuntimeException e) {
      logger.info(
          "The timeline misses \"{}\": the controller did not take it ({})",
          text,
          NetworkFailures.describe(e));
      return false;
    }
  }
}
