package dev.tributary.group;

/**
 * One thing a coordinator did to a group, for the dashboard's timeline and the logs: a rebalance
 * began (and why), a generation completed (who got what), a member was removed (and why).
 */
public record GroupEvent(
    long timeMs, String groupId, int generationId, Type type, String description) {
  public enum Type {
    REBALANCE_STARTED,
    REBALANCE_COMPLETED,
    MEMBER_REMOVED,
    GROUP_EMPTY,
    COORDINATOR_LOADED
  }
}
