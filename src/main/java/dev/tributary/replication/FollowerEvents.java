package dev.tributary.replication;

/**
 * What a broker's replica fetchers tell the rest of the broker, which may pass it on to the
 * controller. Called on fetcher threads: implementations hand the work off and return at once.
 */
public interface FollowerEvents {
  /** Nobody listens (tests, a broker that follows nobody). */
  FollowerEvents NONE = new FollowerEvents() {};

  /**
   * A connection to {@code leaderId} failed (the broker may report it, so that the controller
   * notices a dead broker before its session expires).
   */
  default void leaderUnreachable(int leaderId) {}

  /** This replica dropped records its leader never had (for the cluster's timeline). */
  default void truncated(Truncation truncation) {}
}
