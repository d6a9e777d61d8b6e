package dev.tributary.consumer;

/**
 * The timers of one group member, as Kafka's {@code Heartbeat}: the session (when the coordinator
 * last confirmed the member), the next heartbeat, the backoff after an error, and the client's
 * polls (Kafka's {@code max.poll.interval.ms}, here folded into {@code session.timeout.ms}, since a
 * REST client's poll is its only sign of life; a records call in progress counts as polling
 * throughout).
 *
 * <p>Every method takes the time, so the member's decisions are deterministic: the monotonic clock
 * ({@code Time.monotonicMs}), since these are all intervals that live only in memory and a jump of
 * the wall clock must not end a session early or keep a lost one serving. Not thread-safe: confined
 * to its {@link GroupMembership}, which calls it with its own lock held.
 */
final class Heartbeat {
  private final long sessionTimeoutMs;
  private final long heartbeatIntervalMs;
  private final long retryBackoffMs;

  /**
   * When the coordinator last confirmed the member: its JoinGroup answered, or, as of when they
   * were sent (the coordinator received them no earlier), its SyncGroup or a heartbeat answered.
   * Heartbeat answers never move it back: one answered late confirms only as of its sending.
   */
  private long lastConfirmedMs;

  private long nextHeartbeatMs;
  private long retryAfterMs;
  private long lastPollMs;

  /** Records calls in progress; while any is, the client is waiting on us, so it is alive. */
  private int pollsInProgress;

  Heartbeat(ConsumerSettings settings, long retryBackoffMs, long nowMs) {
    this.sessionTimeoutMs = settings.sessionTimeoutMs();
    this.heartbeatIntervalMs = settings.heartbeatIntervalMs();
    this.retryBackoffMs = retryBackoffMs;
    this.lastPollMs = nowMs;
  }

  /** The client polled. */
  void poll(long nowMs) {
    lastPollMs = nowMs;
  }

  /** A records call began: the client is alive until it ends. */
  void pollStarted() {
    pollsInProgress++;
  }

  /** A records call ended: the poll timeout counts from now. Invariant: never below zero. */
  void pollFinished(long nowMs) {
    pollsInProgress = Math.max(0, pollsInProgress - 1);
    lastPollMs = nowMs;
  }

  /** The client has neither polled within the session timeout nor a records call in progress. */
  boolean pollTimeoutExpired(long nowMs) {
    return pollsInProgress == 0 && nowMs - lastPollMs >= sessionTimeoutMs;
  }

  long msSinceLastPoll(long nowMs) {
    return nowMs - lastPollMs;
  }

  /** The coordinator accepted the member into a generation. */
  void joined(long nowMs) {
    lastConfirmedMs = nowMs;
  }

  /** The member's assignment arrived, answering a SyncGroup sent at {@code sentMs}. */
  void synced(long sentMs, long nowMs) {
    lastConfirmedMs = sentMs;
    nextHeartbeatMs = nowMs + heartbeatIntervalMs;
  }

  /** The coordinator answered a heartbeat sent at {@code sentMs} without removing the member. */
  void receiveHeartbeat(long sentMs) {
    lastConfirmedMs = Math.max(lastConfirmedMs, sentMs);
  }

  void resetHeartbeatTimer(long nowMs) {
    nextHeartbeatMs = nowMs + heartbeatIntervalMs;
  }

  boolean shouldHeartbeat(long nowMs) {
    return nowMs >= nextHeartbeatMs;
  }

  /**
   * The coordinator has not confirmed the member within the session timeout: it may have removed it
   * and handed its partitions to others.
   */
  boolean sessionTimeoutExpired(long nowMs) {
    return nowMs - lastConfirmedMs >= sessionTimeoutMs;
  }

  /** A request failed in a way worth retrying: not before the backoff. */
  void backOff(long nowMs) {
    retryAfterMs = nowMs + retryBackoffMs;
  }

  boolean inBackoff(long nowMs) {
    return nowMs < retryAfterMs;
  }
}
