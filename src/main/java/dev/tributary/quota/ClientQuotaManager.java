package dev.tributary.quota;

import dev.tributary.common.Time;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Produce byte-rate quotas per principal, after Kafka's {@code ClientQuotaManager} (KIP-13,
 * KIP-124): every produce request's bytes are recorded against its principal's {@link SampledRate};
 * when the rate is over the principal's quota the answer is the time to throttle it, {@code (rate -
 * quota) / quota * windowSize}, which is how long the principal would have to stay silent for its
 * rate to fall back to the quota. The caller delays the response by that time (it does not drop the
 * request), so a well-behaved client that waits for answers slows down to its quota.
 *
 * <p>The throttle time is bounded by the whole measured span ({@code numWindows * windowMs}, 11 s
 * by default), so that one huge request is not answered minutes late. Principals not heard from for
 * that span are forgotten (their rate is zero again).
 *
 * <p>Windows are on the monotonic clock (Kafka's metrics use the wall clock): a rate only measures
 * intervals, and after a backward jump of the wall clock the windows would lie in the future.
 *
 * <p>Thread-safe: each principal's rate is guarded by its own lock.
 */
public final class ClientQuotaManager {
  private final QuotaConfig config;
  private final Time time;
  private final Map<String, SampledRate> rates = new ConcurrentHashMap<>();
  private volatile long lastExpiryMs;

  public ClientQuotaManager(QuotaConfig config, Time time) {
    this.config = config;
    this.time = time;
    this.lastExpiryMs = time.monotonicMs();
  }

  public QuotaConfig config() {
    return config;
  }

  /**
   * Records {@code bytes} produced by {@code principal} and returns how long to delay its answer: 0
   * while its rate is within its quota.
   */
  public long recordAndGetThrottleTimeMs(String principal, long bytes) {
    long nowMs = time.monotonicMs();
    maybeExpireIdle(nowMs);
    long quota = config.producerByteRate(principal);
    SampledRate rate =
        rates.computeIfAbsent(
            principal, p -> new SampledRate(config.numWindows(), config.windowMs(), nowMs));
    synchronized (rate) {
      rate.record(bytes, nowMs);
      if (quota == QuotaConfig.UNLIMITED) {
        return 0;
      }
      double observed = rate.rate(nowMs);
      if (observed <= quota) {
        return 0;
      }
      long throttleMs = Math.round((observed - quota) / quota * rate.windowSizeMs(nowMs));
      return Math.min(throttleMs, maxThrottleTimeMs());
    }
  }

  /** The bytes per second {@code principal} has produced lately (0 if none). */
  public double byteRate(String principal) {
    SampledRate rate = rates.get(principal);
    if (rate == null) {
      return 0;
    }
    synchronized (rate) {
      return rate.rate(time.monotonicMs());
    }
  }

  /** The longest delay one request can earn: the whole measured span. */
  public long maxThrottleTimeMs() {
    return config.numWindows() * config.windowMs();
  }

  private void maybeExpireIdle(long nowMs) {
    if (nowMs - lastExpiryMs < maxThrottleTimeMs()) {
      return;
    }
    lastExpiryMs = nowMs;
    rates
        .entrySet()
        .removeIf(
            entry -> {
              synchronized (entry.getValue()) {
                return entry.getValue().idle(nowMs);
              }
            });
  }
}
