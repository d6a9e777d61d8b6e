package dev.tributary.web;

import dev.tributary.common.NetworkFailures;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * Where a fault action on one broker's own state runs (its clock, {@link ClockSkewController}; its
 * disk, {@link SlowDiskController}): here when {@code {id}} is this broker, else passed on to that
 * broker's internal path over {@link InternalRelay}; 404 40406 for a broker the cluster does not
 * know, and a 503 naming why when the target does not answer.
 */
final class OneBrokerAction {
  private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(2);

  private final MetadataCache broker;
  private final BrokerConfig config;
  private final InternalRelay relay;
  private final String internalPath;

  OneBrokerAction(
      MetadataCache broker, BrokerConfig config, InternalRelay relay, String internalPath) {
    this.broker = broker;
    this.config = config;
    this.relay = relay;
    this.internalPath = internalPath;
  }

  /** A read: {@code here} on this broker, else a GET of the internal path on the target. */
  CompletableFuture<ResponseEntity<Map<String, Object>>> read(
      int brokerId, Supplier<ResponseEntity<Map<String, Object>>> here) {
    return onTarget(
        brokerId,
        here,
        target -> relay.get(target, internalPath, FORWARD_TIMEOUT, e -> silent(target, e)));
  }

  /** A change: {@code here} on this broker, else {@code body} POSTed to the target's path. */
  CompletableFuture<ResponseEntity<Map<String, Object>>> change(
      int brokerId, byte[] body, Supplier<ResponseEntity<Map<String, Object>>> here) {
    return onTarget(
        brokerId,
        here,
        target -> relay.post(target, internalPath, body, FORWARD_TIMEOUT, e -> silent(target, e)));
  }

  static CompletableFuture<ResponseEntity<Map<String, Object>>> done(
      ResponseEntity<Map<String, Object>> answer) {
    return CompletableFuture.completedFuture(answer);
  }

  private CompletableFuture<ResponseEntity<Map<String, Object>>> onTarget(
      int brokerId,
      Supplier<ResponseEntity<Map<String, Object>>> here,
      java.util.function.Function<
              BrokerImage, CompletableFuture<ResponseEntity<Map<String, Object>>>>
          there) {
    if (brokerId == config.brokerId()) {
      return done(here.get());
    }
    Optional<BrokerImage> target = broker.metadata().broker(brokerId);
    if (target.isEmpty()) {
      return done(
          InternalRelay.error(
              HttpStatus.NOT_FOUND,
              40406,
              "Broker " + brokerId + " is not registered in this cluster"));
    }
    return there.apply(target.get());
  }

  private static String silent(BrokerImage target, Throwable e) {
    return "Broker "
        + target.brokerId()
        + " did not answer ("
        + NetworkFailures.describe(e)
        + "); is it down?";
  }
}
