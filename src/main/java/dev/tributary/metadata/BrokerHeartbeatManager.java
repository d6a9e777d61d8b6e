package dev.tributary.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * When each broker was last heard from, as seen by the active controller (Kafka's
 * BrokerHeartbeatManager). Soft state: never in the metadata log, lost when controllership moves;
 * the new active controller calls {@link #resetAll} so that every registered broker gets a full
 * session before it can be fenced (it cannot know how long a broker had been silent under the
 * previous controller, and must not punish it for the failover).
 *
 * <p>A session lasts {@code sessionTimeoutMs}: a broker last heard from at {@code t} is stale from
 * {@code t + sessionTimeoutMs} on (silent for the whole session timeout). Time comes in as {@code
 * nowMs}; nothing here reads a clock. Callers pass monotonic time ({@link
 * dev.tributary.common.Time#monotonicMs}), as Kafka's BrokerHeartbeatManager reads nanoseconds: on
 * the wall clock a forward jump would fence every live broker at once, and a backward one would
 * keep a dead broker unfenced for as long as the jump.
 *
 * <p>Invariant: {@code sessionTimeoutMs > 0}; a broker's last contact never moves backwards.
 *
 * <p>Concurrency: not thread-safe; the {@link Controller} calls it under its own lock.
 */
public final class BrokerHeartbeatManager {
  private final long sessionTimeoutMs;

  /** Broker id → last contact; sorted so that every listing comes out in id order. */
  private final TreeMap<Integer, Long> lastContactMs = new TreeMap<>();

  public BrokerHeartbeatManager(long sessionTimeoutMs) {
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException(
          "sessionTimeoutMs must be positive, got " + sessionTimeoutMs);
    }
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  public long sessionTimeoutMs() {
    return sessionTimeoutMs;
  }

  /** Records contact from {@code brokerId} at {@code nowMs} (a heartbeat or a registration). */
  public void touch(int brokerId, long nowMs) {
    lastContactMs.merge(brokerId, nowMs, Math::max);
  }

  /**
   * Forgets everything and starts a fresh session for each of {@code brokerIds} at {@code nowMs}.
   */
  public void resetAll(Collection<Integer> brokerIds, long nowMs) {
    lastContactMs.clear();
    brokerIds.forEach(id -> lastContactMs.put(id, nowMs));
  }

  /** True if {@code brokerId} has contact on record (a heartbeat, registration or reset). */
  public boolean tracks(int brokerId) {
    return lastContactMs.containsKey(brokerId);
  }

  /**
   * The moment {@code brokerId}'s session ends (it is stale from then on), or {@link
   * Long#MAX_VALUE} if untracked.
   */
  public long sessionDeadlineMs(int brokerId) {
    Long last = lastContactMs.get(brokerId);
    return last == null ? Long.MAX_VALUE : last + sessionTimeoutMs;
  }

  /** True if {@code brokerId} is tracked and its session has ended at {@code nowMs}. */
  public boolean isStale(int brokerId, long nowMs) {
    return nowMs >= sessionDeadlineMs(brokerId);
  }

  /** Tracked brokers whose session has ended at {@code nowMs}, in id order. */
  public List<Integer> staleBrokers(long nowMs) {
    List<Integer> stale = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : lastContactMs.entrySet()) {
      if (nowMs >= e.getValue() + sessionTimeoutMs) {
        stale.add(e.getKey());
      }
    }
    return stale;
  }

  /**
   * The earliest session deadline among {@code brokerIds} (the ones whose staleness matters: the
   * unfenced ones), or {@link Long#MAX_VALUE} if none is tracked.
   */
  public long nextDeadlineMs(Collection<Integer> brokerIds) {
    long next = Long.MAX_VALUE;
    for (int id : brokerIds) {
      next = Math.min(next, sessionDeadlineMs(id));
    }
    return next;
  }
}
