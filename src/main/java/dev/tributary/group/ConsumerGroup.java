package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.Protocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One group on its coordinator: state, generation, members and committed offsets. Guarded by the
 * coordinator lock ({@link CoordinatorRuntime}'s monitor); every state change goes through {@link
 * #transitionTo}, which checks {@link GroupState}'s table.
 *
 * <p>Invariants: {@code members.isEmpty()} iff state is Empty or Dead (outside a rebalance in
 * progress); {@code leaderId} is a member while the group is CompletingRebalance or Stable; {@code
 * generationId} only grows, by one per completed join; {@code staticMembers} maps exactly the
 * instance ids of the static members to their member ids (kept by {@link #add}, {@link #remove} and
 * {@link #replaceStaticMember}, the only places members come and go).
 */
final class ConsumerGroup {
  final String groupId;
  private GroupState state = GroupState.EMPTY;
  int generationId;
  String protocolType;
  String protocolName;
  String leaderId;
  long stateTimestampMs;
  final Map<String, MemberMetadata> members = new LinkedHashMap<>();

  /** Static members: {@code group.instance.id} to the member id that holds it now (KIP-345). */
  private final Map<String, String> staticMembers = new HashMap<>();

  final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

  /**
   * Member ids handed out with MEMBER_ID_REQUIRED and not yet joined with (KIP-394), each with the
   * timer that forgets it after its session timeout.
   */
  final Map<String, Scheduler.Cancellable> pendingMembers = new HashMap<>();

  /** Offset commits written but not yet committed; offsets are not expired while any is. */
  int pendingOffsetCommits;

  /** The pending join completion of the rebalance in progress. */
  Scheduler.Cancellable joinTimer;

  /**
   * A member joined for the first time during the current initial delay of the group's first
   * rebalance (generation 0), which extends the delay. Never set for a later generation, as in
   * Kafka.
   */
  boolean newMemberAdded;

  /** What is left of the rebalance timeout after the initial delays so far. */
  long initialDelayRemainingMs;

  boolean initialDelayPending;
  String rebalanceReason = "";

  /**
   * When the current or last rebalance started, on the monotonic clock (the rebalance timeout
   * counts from it); -1 if none has started since the group was loaded.
   */
  long rebalanceStartMs = -1;

  ConsumerGroup(String groupId, long nowMs) {
    this.groupId = groupId;
    this.stateTimestampMs = nowMs;
  }

  GroupState state() {
    return state;
  }

  boolean is(GroupState s) {
    return state == s;
  }

  void transitionTo(GroupState next, long nowMs) {
    if (!next.validPrevious().contains(state)) {
      throw new IllegalStateException(
          "group " + groupId + " cannot go from " + state.kafkaName + " to " + next.kafkaName);
    }
    state = next;
    stateTimestampMs = nowMs;
  }

  void add(MemberMetadata m) {
    members.put(m.memberId, m);
    if (m.isStatic()) {
      staticMembers.put(m.groupInstanceId, m.memberId);
    }
  }

  /** Removes the member; its instance id is free again if it still held it. */
  void remove(MemberMetadata m) {
    members.remove(m.memberId);
    if (m.isStatic()) {
      staticMembers.remove(m.groupInstanceId, m.memberId);
    }
  }

  /** The member id that holds {@code groupInstanceId} now, or null. */
  String staticMemberId(String groupInstanceId) {
    return staticMembers.get(groupInstanceId);
  }

  /**
   * A static member rejoined without its member id (it restarted): the new id takes the old one's
   * place, with its protocols, timeouts and assignment, and the leadership if it had it (Kafka's
   * {@code replaceStaticMember}). The caller fences the old member's waiting requests.
   */
  MemberMetadata replaceStaticMember(MemberMetadata old, String newMemberId) {
    MemberMetadata replacement =
        new MemberMetadata(
            newMemberId,
            old.groupInstanceId,
            old.clientId,
            old.clientHost,
            old.sessionTimeoutMs,
            old.rebalanceTimeoutMs,
            old.protocols);
    replacement.assignment = old.assignment;
    members.remove(old.memberId);
    members.put(newMemberId, replacement);
    staticMembers.put(old.groupInstanceId, newMemberId);
    if (old.memberId.equals(leaderId)) {
      leaderId = newMemberId;
    }
    return replacement;
  }

  /**
   * Whether a request naming {@code memberId} (and {@code groupInstanceId}, if static) comes from a
   * current member: UNKNOWN_MEMBER_ID if not; FENCED_INSTANCE_ID if the instance id now belongs to
   * another member id (Kafka's {@code validateMember}).
   */
  GroupError validateMember(String memberId, String groupInstanceId) {
    if (groupInstanceId != null) {
      String holder = staticMembers.get(groupInstanceId);
      if (holder == null) {
        return GroupError.UNKNOWN_MEMBER_ID;
      }
      if (!holder.equals(memberId)) {
        return GroupError.FENCED_INSTANCE_ID;
      }
    }
    return members.containsKey(memberId) ? GroupError.NONE : GroupError.UNKNOWN_MEMBER_ID;
  }

  boolean allMembersJoined() {
    return members.values().stream().allMatch(m -> m.awaitingJoin != null);
  }

  int rebalanceTimeoutMs() {
    return members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
  }

  /**
   * A new member's protocols are acceptable if its type is the group's and it shares at least one
   * assignor with every current member.
   */
  boolean supports(String type, List<Protocol> protocols) {
    if (members.isEmpty()) {
      return type != null && !type.isEmpty() && !protocols.isEmpty();
    }
    if (!type.equals(protocolType)) {
      return false;
    }
    Set<String> shared = candidateProtocols();
    return protocols.stream().anyMatch(p -> shared.contains(p.name()));
  }

  /** The assignors every member supports. */
  Set<String> candidateProtocols() {
    Set<String> shared = null;
    for (MemberMetadata m : members.values()) {
      Set<String> names = new java.util.HashSet<>();
      m.protocols.forEach(p -> names.add(p.name()));
      if (shared == null) {
        shared = names;
      } else {
        shared.retainAll(names);
      }
    }
    return shared == null ? Set.of() : shared;
  }

  /**
   * Kafka's vote: each member votes for the first assignor in its list that all members support;
   * the most votes wins, ties going to the name first in sort order (so every coordinator picks the
   * same).
   */
  String selectProtocol() {
    Set<String> candidates = candidateProtocols();
    Map<String, Integer> votes = new TreeMap<>();
    for (MemberMetadata m : members.values()) {
      for (Protocol p : m.protocols) {
        if (candidates.contains(p.name())) {
          votes.merge(p.name(), 1, Integer::sum);
          break;
        }
      }
    }
    return votes.entrySet().stream()
        .max(
            Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(e -> e.getKey(), java.util.Comparator.reverseOrder()))
        .map(Map.Entry::getKey)
        .orElseThrow();
  }

  /** The metadata record this group's current generation is stored as. */
  GroupRecords.StoredGroup toStored() {
    return toStored(Map.of());
  }

  /**
   * The metadata record of this generation with {@code assignments} (by member id) in place of the
   * members' current ones where given.
   */
  GroupRecords.StoredGroup toStored(Map<String, byte[]> assignments) {
    List<GroupRecords.StoredMember> stored = new ArrayList<>();
    for (MemberMetadata m : members.values()) {
      stored.add(
          new GroupRecords.StoredMember(
              m.memberId,
              m.groupInstanceId,
              m.clientId,
              m.clientHost,
              m.rebalanceTimeoutMs,
              m.sessionTimeoutMs,
              protocolName == null ? new byte[0] : m.metadata(protocolName),
              assignments.getOrDefault(m.memberId, m.assignment)));
    }
    return new GroupRecords.StoredGroup(
        protocolType == null ? ConsumerProtocol.PROTOCOL_TYPE : protocolType,
        generationId,
        protocolName,
        leaderId,
        stateTimestampMs,
        stored);
  }
}
