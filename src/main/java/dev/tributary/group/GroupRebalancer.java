package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.JoinedMember;
import dev.tributary.group.CoordinatorApi.Protocol;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.log.record.SimpleRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves classic groups through their rebalances, as Kafka's classic protocol does (the rebalance
 * half of Kafka's {@code GroupMetadataManager}; {@link GroupMetadataManager} answers the requests
 * that set it off). Every state change of a group happens here, by {@link GroupState}'s table,
 * except the end of an expired group ({@link OffsetExpiration}: Empty → Dead):
 *
 * <pre>
 *   restore              (loading) → Stable with the stored generation and members, or Empty
 *   prepareRebalance     Empty | CompletingRebalance | Stable → PreparingRebalance
 *                        a member joined, left, timed out or changed its subscription, or the
 *                        assignment could not be stored; syncs waiting in CompletingRebalance are
 *                        answered REBALANCE_IN_PROGRESS; from Empty, Kafka's initial delayed join
 *   completeJoin         PreparingRebalance → CompletingRebalance (generation + 1, protocol voted,
 *                        leader kept or chosen among those who rejoined), or → Empty if nobody is
 *                        left (generation + 1, the empty group stored); dynamic members that did
 *                        not rejoin are removed first, static ones stay (KIP-345: they keep their
 *                        place across a restart until their session times out)
 *   onAssignmentStored   CompletingRebalance → Stable once the leader's assignment is committed to
 *                        the log; if the write failed, → PreparingRebalance
 *   unload               any state → Dead (the shard moved away)
 * </pre>
 *
 * <p>Timers: one join timer per rebalancing group (the initial delay, then the rebalance timeout)
 * and one session timer per member. A timer may fire after it was cancelled, so each re-checks
 * under the lock that what it was set for still holds.
 *
 * <p>Thread safety: every method expects the coordinator lock ({@link CoordinatorRuntime}'s
 * monitor) held, except the timer callbacks and the assignment write's completion, which take it.
 * Futures complete through {@link CoordinatorRuntime#complete}, never under the lock.
 */
final class GroupRebalancer {
  private static final Logger logger = LoggerFactory.getLogger(GroupRebalancer.class);

  private final GroupCoordinatorConfig config;
  private final CoordinatorRuntime runtime;
  private final Time time;
  private final Scheduler scheduler;

  /**
   * The client ids of the members removed lately, by member id, the newest {@link #MAX_DEPARTED}:
   * the rebalance a departure starts names a member no longer in its group.
   */
  private final Map<String, String> departedClientIds =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
          return size() > MAX_DEPARTED;
        }
      };

  private static final int MAX_DEPARTED = 100;

  GroupRebalancer(
      GroupCoordinatorConfig config, CoordinatorRuntime runtime, Time time, Scheduler scheduler) {
    this.config = config;
    this.runtime = runtime;
    this.time = time;
    this.scheduler = scheduler;
  }

  // ---------------------------------------------------------------------------------------------
  // the join phase

  /** Starts a rebalance unless one is already preparing (or the group is Dead). */
  void maybePrepareRebalance(ConsumerGroup group, String reason, long nowMs) {
    if (group.is(GroupState.STABLE)
        || group.is(GroupState.COMPLETING_REBALANCE)
        || group.is(GroupState.EMPTY)) {
      prepareRebalance(group, reason, nowMs);
    }
  }

  void prepareRebalance(ConsumerGroup group, String reason, long nowMs) {
    if (group.is(GroupState.COMPLETING_REBALANCE)) {
      // The assignment being synced is void: members must join the next generation.
      for (MemberMetadata m : group.members.values()) {
        if (m.awaitingSync != null) {
          runtime.complete(
              m.awaitingSync,
              new SyncResult(GroupError.REBALANCE_IN_PROGRESS, MemberMetadata.NO_ASSIGNMENT));
          m.awaitingSync = null;
        }
        m.assignment = MemberMetadata.NO_ASSIGNMENT;
      }
    }
    boolean fromEmpty = group.is(GroupState.EMPTY);
    group.transitionTo(GroupState.PREPARING_REBALANCE, nowMs);
    group.rebalanceReason = reason;
    group.rebalanceStartMs = time.monotonicMs();
    cancelJoinTimer(group);
    runtime.record(
        new GroupEvent(
            nowMs,
            group.groupId,
            group.generationId,
            GroupEvent.Type.REBALANCE_STARTED,
            "rebalance of group " + group.groupId + " started: " + reason,
            membersNamedIn(group, reason)));
    logger.info(
        "Preparing to rebalance group {} (generation {}): {}",
        group.groupId,
        group.generationId,
        reason);
    int rebalanceTimeoutMs = group.rebalanceTimeoutMs();
    if (fromEmpty && config.initialRebalanceDelayMs() > 0) {
      // Kafka's initial delayed join: wait for more members to arrive before the first generation,
      // extending while they keep arriving, but never past the rebalance timeout.
      long delayMs = Math.min(config.initialRebalanceDelayMs(), rebalanceTimeoutMs);
      group.initialDelayPending = true;
      group.newMemberAdded = false;
      group.initialDelayRemainingMs = Math.max(0, rebalanceTimeoutMs - delayMs);
      scheduleJoinTimer(group, delayMs);
    } else {
      group.initialDelayPending = false;
      scheduleJoinTimer(group, rebalanceTimeoutMs);
    }
  }

  private void scheduleJoinTimer(ConsumerGroup group, long delayMs) {
    group.joinTimer = scheduler.schedule(delayMs, () -> onJoinTimer(group));
  }

  private void onJoinTimer(ConsumerGroup group) {
    synchronized (runtime) {
      if (!group.is(GroupState.PREPARING_REBALANCE)) {
        return;
      }
      if (group.initialDelayPending) {
        if (group.newMemberAdded && group.initialDelayRemainingMs > 0) {
          long delayMs = Math.min(config.initialRebalanceDelayMs(), group.initialDelayRemainingMs);
          group.initialDelayRemainingMs -= delayMs;
          group.newMemberAdded = false;
          scheduleJoinTimer(group, delayMs);
          return;
        }
        group.initialDelayPending = false;
        if (!group.allMembersJoined()) {
          // Some were already known and have not rejoined yet: give them the rebalance timeout.
          scheduleJoinTimer(
              group,
              Math.max(
                  0, group.rebalanceTimeoutMs() - (time.monotonicMs() - group.rebalanceStartMs)));
          return;
        }
      }
      completeJoin(group);
    }
  }

  /** Completes the join if every member has rejoined and no initial delay is running. */
  void maybeCompleteJoin(ConsumerGroup group) {
    if (group.is(GroupState.PREPARING_REBALANCE)
        && !group.initialDelayPending
        && group.allMembersJoined()) {
      completeJoin(group);
    }
  }

  /**
   * Ends the join phase: dynamic members that did not rejoin are out; the rest get the new
   * generation. If only static members that have not rejoined are left, the join waits another
   * rebalance timeout for one of them (or for their sessions to end), as in Kafka.
   */
  void completeJoin(ConsumerGroup group) {
    long nowMs = time.milliseconds();
    cancelJoinTimer(group);
    for (MemberMetadata m : List.copyOf(group.members.values())) {
      if (m.awaitingJoin == null && !m.isStatic()) {
        removeMember(
            group,
            m,
            "it did not rejoin within the rebalance timeout ("
                + group.rebalanceTimeoutMs()
                + " ms)",
            nowMs);
      }
    }
    MemberMetadata joinedLeader =
        group.members.values().stream()
            .filter(m -> m.awaitingJoin != null)
            .findFirst()
            .orElse(null);
    if (joinedLeader == null && !group.members.isEmpty()) {
      logger.warn(
          "Group {} could not complete its rebalance: none of its static members rejoined",
          group.groupId);
      scheduleJoinTimer(group, group.rebalanceTimeoutMs());
      return;
    }
    group.generationId++;
    if (group.members.isEmpty()) {
      group.protocolName = null;
      group.leaderId = null;
      group.transitionTo(GroupState.EMPTY, nowMs);
      runtime.record(
          new GroupEvent(
              nowMs,
              group.groupId,
              group.generationId,
              GroupEvent.Type.GROUP_EMPTY,
              "group " + group.groupId + " is empty (generation " + group.generationId + ")"));
      storeGroup(group, group.generationId, Map.of());
      return;
    }
    group.protocolName = group.selectProtocol();
    MemberMetadata leader = group.leaderId == null ? null : group.members.get(group.leaderId);
    if (leader == null || leader.awaitingJoin == null) {
      group.leaderId = joinedLeader.memberId; // the leader must be there to assign
    }
    group.transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
    logger.info(
        "Group {} generation {} ({} members, protocol {}, leader {}) joined; waiting for the leader's assignment",
        group.groupId,
        group.generationId,
        group.members.size(),
        group.protocolName,
        group.leaderId);
    for (MemberMetadata m : group.members.values()) {
      CompletableFuture<JoinResult> waiting = m.awaitingJoin;
      m.awaitingJoin = null;
      m.assignment = MemberMetadata.NO_ASSIGNMENT;
      if (waiting != null) { // a static member that has not rejoined yet has nobody to tell
        runtime.complete(waiting, joinResultFor(group, m));
      }
      heartbeatReceived(group, m);
    }
  }

  /** The join answer of {@code m} in the group's current generation; the leader's lists members. */
  static JoinResult joinResultFor(ConsumerGroup group, MemberMetadata m) {
    List<JoinedMember> members = new ArrayList<>();
    if (m.memberId.equals(group.leaderId)) {
      for (MemberMetadata each : group.members.values()) {
        members.add(
            new JoinedMember(
                each.memberId,
                each.clientId,
                each.metadata(group.protocolName),
                each.groupInstanceId));
      }
    }
    return new JoinResult(
        GroupError.NONE,
        group.generationId,
        group.protocolName,
        group.leaderId,
        m.memberId,
        members);
  }

  // ---------------------------------------------------------------------------------------------
  // the sync phase

  /**
   * The leader synced {@code given} (by member id; missing members get no partitions): store the
   * generation with them; members get them only once the record is committed.
   */
  void onLeaderSync(ConsumerGroup group, Map<String, byte[]> given) {
    Map<String, byte[]> assignments = new HashMap<>();
    for (MemberMetadata each : group.members.values()) {
      byte[] assignment = given == null ? null : given.get(each.memberId);
      assignments.put(
          each.memberId, assignment == null ? MemberMetadata.NO_ASSIGNMENT : assignment);
    }
    int generation = group.generationId;
    // Memory takes the assignment only once the record holding it is committed.
    storeGroup(group, generation, assignments)
        .thenAccept(error -> onAssignmentStored(group, generation, assignments, error));
  }

  private void onAssignmentStored(
      ConsumerGroup group, int generation, Map<String, byte[]> assignments, GroupError error) {
    synchronized (runtime) {
      if (!group.is(GroupState.COMPLETING_REBALANCE) || group.generationId != generation) {
        return; // the group moved on meanwhile; its members were told then
      }
      long nowMs = time.milliseconds();
      if (error != GroupError.NONE) {
        for (MemberMetadata m : group.members.values()) {
          if (m.awaitingSync != null) {
            runtime.complete(m.awaitingSync, new SyncResult(error, MemberMetadata.NO_ASSIGNMENT));
            m.awaitingSync = null;
          }
        }
        prepareRebalance(group, "its assignment could not be stored (" + error + ")", nowMs);
        return;
      }
      for (MemberMetadata m : group.members.values()) {
        m.assignment = assignments.getOrDefault(m.memberId, MemberMetadata.NO_ASSIGNMENT);
      }
      group.transitionTo(GroupState.STABLE, nowMs);
      StringBuilder who = new StringBuilder();
      for (MemberMetadata m : group.members.values()) {
        if (m.awaitingSync != null) {
          runtime.complete(m.awaitingSync, synced(group, m));
          m.awaitingSync = null;
          // Its session starts now, when it gets its assignment (Kafka's propagateAssignment).
          heartbeatReceived(group, m);
        }
        if (who.length() > 0) {
          who.append("; ");
        }
        who.append(m.memberId).append(" ← ").append(describeAssignment(m.assignment));
      }
      String took =
          group.rebalanceStartMs >= 0
              ? " in " + (time.monotonicMs() - group.rebalanceStartMs) + " ms"
              : "";
      runtime.record(
          new GroupEvent(
              nowMs,
              group.groupId,
              group.generationId,
              GroupEvent.Type.REBALANCE_COMPLETED,
              "group "
                  + group.groupId
                  + " generation "
                  + group.generationId
                  + " stable"
                  + took
                  + " ("
                  + group.protocolName
                  + "): "
                  + who,
              membersNamedIn(group, who.toString())));
      logger.info(
          "Group {} generation {} is stable{}: {}", group.groupId, group.generationId, took, who);
    }
  }

  /** A successful sync's answer: the member's assignment and the group's protocol. */
  static SyncResult synced(ConsumerGroup group, MemberMetadata m) {
    return new SyncResult(GroupError.NONE, m.assignment, group.protocolType, group.protocolName);
  }

  private static String describeAssignment(byte[] assignment) {
    try {
      List<TopicPartition> partitions = ConsumerProtocol.decodeAssignment(assignment);
      return partitions.isEmpty()
          ? "nothing"
          : partitions.stream().map(TopicPartition::toString).sorted().toList().toString();
    } catch (RuntimeException e) {
      return assignment.length + " bytes";
    }
  }

  /** Stores the group's current generation and members (a static member's new id, say). */
  CompletableFuture<GroupError> storeGroup(ConsumerGroup group) {
    return storeGroup(group, group.generationId, Map.of());
  }

  /**
   * Stores the group's generation {@code generation} with {@code assignments} (by member id) in
   * place of the members' current ones where given; completes with NONE once committed, else the
   * error.
   */
  private CompletableFuture<GroupError> storeGroup(
      ConsumerGroup group, int generation, Map<String, byte[]> assignments) {
    CoordinatorShard shard = runtime.shardFor(group.groupId);
    if (shard == null || shard.isLoading()) {
      return CompletableFuture.completedFuture(GroupError.NOT_COORDINATOR);
    }
    byte[] value = GroupRecords.groupValue(group.toStored(assignments));
    SimpleRecord record =
        new SimpleRecord(time.milliseconds(), GroupRecords.groupKey(group.groupId), value);
    return runtime.appendAndThen(shard, List.of(record), () -> {});
  }

  // ---------------------------------------------------------------------------------------------
  // members leaving, and their sessions

  /** After a member was removed: the others must rebalance (or the join may now complete). */
  void memberGone(ConsumerGroup group, String reason, long nowMs) {
    if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE)) {
      prepareRebalance(group, reason, nowMs);
      if (group.members.isEmpty()) {
        completeJoin(group);
      }
    } else if (group.is(GroupState.PREPARING_REBALANCE)) {
      if (group.members.isEmpty()) {
        completeJoin(group);
      } else {
        maybeCompleteJoin(group);
      }
    }
  }

  void removeMember(ConsumerGroup group, MemberMetadata m, String why, long nowMs) {
    group.remove(m);
    if (m.sessionTimer != null) {
      m.sessionTimer.cancel();
    }
    failPending(m, GroupError.UNKNOWN_MEMBER_ID);
    if (m.memberId.equals(group.leaderId)) {
      group.leaderId = null;
    }
    runtime.record(
        new GroupEvent(
            nowMs,
            group.groupId,
            group.generationId,
            GroupEvent.Type.MEMBER_REMOVED,
            "member " + m.memberId + " removed from group " + group.groupId + ": " + why,
            Map.of(m.memberId, clientIdOf(m))));
    departedClientIds.put(m.memberId, clientIdOf(m));
    logger.info("Removed member {} from group {}: {}", m.memberId, group.groupId, why);
  }

  /**
   * The client id of each member, current or lately removed, whose id {@code text} contains (see
   * {@link GroupEvent#members}).
   */
  private Map<String, String> membersNamedIn(ConsumerGroup group, String text) {
    Map<String, String> named = new HashMap<>();
    for (MemberMetadata m : group.members.values()) {
      if (text.contains(m.memberId)) {
        named.put(m.memberId, clientIdOf(m));
      }
    }
    departedClientIds.forEach(
        (memberId, clientId) -> {
          if (text.contains(memberId)) {
            named.putIfAbsent(memberId, clientId);
          }
        });
    return named;
  }

  private static String clientIdOf(MemberMetadata m) {
    return m.clientId == null ? "" : m.clientId;
  }

  /**
   * The member is alive as of now: its session timeout starts again. Sessions are measured on the
   * monotonic clock, so that a jump of the wall clock neither expires a live member nor keeps a
   * silent one in the group for as long as the jump.
   */
  void heartbeatReceived(ConsumerGroup group, MemberMetadata m) {
    m.lastHeartbeatMs = time.monotonicMs();
    if (m.sessionTimer != null) {
      m.sessionTimer.cancel();
    }
    m.sessionTimer = scheduler.schedule(m.sessionTimeoutMs, () -> onSessionTimer(group, m));
  }

  private void onSessionTimer(ConsumerGroup group, MemberMetadata m) {
    synchronized (runtime) {
      if (group.is(GroupState.DEAD) || group.members.get(m.memberId) != m) {
        return;
      }
      if (m.waitingOnCoordinator()) {
        heartbeatReceived(group, m); // it is waiting on us, not dead
        return;
      }
      long silentMs = time.monotonicMs() - m.lastHeartbeatMs;
      if (silentMs < m.sessionTimeoutMs) {
        m.sessionTimer =
            scheduler.schedule(m.sessionTimeoutMs - silentMs, () -> onSessionTimer(group, m));
        return;
      }
      // Kafka expires a member when lastHeartbeat + session.timeout.ms <= now: at the timeout.
      String why = "no heartbeat for " + silentMs + " ms, session.timeout.ms=" + m.sessionTimeoutMs;
      long nowMs = time.milliseconds(); // the events' and the group state's time
      removeMember(group, m, why, nowMs);
      memberGone(group, "member " + m.memberId + " timed out (" + why + ")", nowMs);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // loading and unloading

  /**
   * A stored generation comes back Stable with its members, each on a fresh session timeout (as
   * Kafka's loaded groups); a stored empty group stays Empty with its generation.
   */
  void restore(ConsumerGroup group, GroupRecords.StoredGroup g, long nowMs) {
    group.generationId = g.generationId();
    group.protocolType = g.protocolType();
    group.protocolName = g.protocolName();
    if (g.members().isEmpty()) {
      group.stateTimestampMs = g.stateTimestampMs(); // empty since then, for offset retention
      return; // Empty, with its generation
    }
    group.leaderId = g.leaderId();
    for (GroupRecords.StoredMember sm : g.members()) {
      MemberMetadata m =
          new MemberMetadata(
              sm.memberId(),
              sm.groupInstanceId(),
              sm.clientId(),
              sm.clientHost(),
              sm.sessionTimeoutMs(),
              sm.rebalanceTimeoutMs(),
              List.of(new Protocol(g.protocolName(), sm.subscription())));
      m.assignment = sm.assignment() == null ? MemberMetadata.NO_ASSIGNMENT : sm.assignment();
      group.add(m);
    }
    group.transitionTo(GroupState.PREPARING_REBALANCE, nowMs);
    group.transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
    group.transitionTo(GroupState.STABLE, nowMs);
    group.members.values().forEach(m -> heartbeatReceived(group, m));
  }

  /** The group's shard is gone: timers off, waiting members told NOT_COORDINATOR, group Dead. */
  void unload(ConsumerGroup group, long nowMs) {
    cancelJoinTimer(group);
    for (MemberMetadata m : group.members.values()) {
      if (m.sessionTimer != null) {
        m.sessionTimer.cancel();
      }
    }
    for (MemberMetadata m : group.members.values()) {
      failPending(m, GroupError.NOT_COORDINATOR);
    }
    if (!group.is(GroupState.DEAD)) {
      group.transitionTo(GroupState.DEAD, nowMs);
    }
  }

  /** Answers the member's waiting join or sync with {@code error}. */
  void failPending(MemberMetadata m, GroupError error) {
    if (m.awaitingJoin != null) {
      runtime.complete(m.awaitingJoin, JoinResult.failed(error, m.memberId));
      m.awaitingJoin = null;
    }
    if (m.awaitingSync != null) {
      runtime.complete(m.awaitingSync, new SyncResult(error, MemberMetadata.NO_ASSIGNMENT));
      m.awaitingSync = null;
    }
  }

  private static void cancelJoinTimer(ConsumerGroup group) {
    if (group.joinTimer != null) {
      group.joinTimer.cancel();
      group.joinTimer = null;
    }
  }
}
