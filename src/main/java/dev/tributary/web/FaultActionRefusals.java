package dev.tributary.web;

import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The refusals every dashboard fault action shares (the buttons, the network faults, the clock
 * skew, the slow disk), in the API's error shape.
 */
final class FaultActionRefusals {
  private FaultActionRefusals() {}

  /** A page of another site pressed the button: 403 40302. */
  static ResponseEntity<Map<String, Object>> crossSite(String origin) {
    return InternalRelay.error(
        HttpStatus.FORBIDDEN,
        40302,
        "Fault actions are accepted only from the cluster's own dashboard pages, not from "
            + origin);
  }

  /** {@code tributary.dashboard.fault-actions} is off on broker {@code brokerId}: 403 40301. */
  static ResponseEntity<Map<String, Object>> off(int brokerId) {
    return InternalRelay.error(
        HttpStatus.FORBIDDEN,
        40301,
        "Fault actions are off on broker "
            + brokerId
            + "; they are for the local demo (./tributary start turns them on:"
            + " tributary.dashboard.fault-actions=true)");
  }
}
