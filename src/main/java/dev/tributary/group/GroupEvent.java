package dev.tributary.group;

import java.util.Map;

/**
 * One thing a coordinator did to a group, for the dashboard's timeline and the logs: a rebalance
 * began (and why), a generation completed (who got what), a member was removed (and why).
 *
 * @param members the client id of each member the description names, by member id: the page shows
 *     members by client id, since member ids are long and alike ({@code client-1-} and a UUID)
 */
public record GroupEvent(
    long timeMs,
    String groupId,
    int generationId,
    Type type,
    String description,
    Map<String, String> members) {

  public GroupEvent {
    members = Map.copyOf(members);
  }

  /** An event that names no member. */
  public GroupEvent(long timeMs, String groupId, int generationId, Type type, String description) {
    this(timeMs, groupId, generationId, type, description, Map.of());
  }

  public enum Type {
    REBALANCE_STARTED,
    REBALANCE_COMPLETED,
    MEMBER_REMOVED,
    GROUP_EMPTY,
    COORDINATOR_LOADED
  }
}
