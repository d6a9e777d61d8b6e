package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.group.CoordinatorApi.DescribeResult;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.GroupCoordinator.LeaveResult;
import dev.tributary.group.GroupCoordinator.LeavingMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Answers the membership requests of Kafka's classic protocol, JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup, and DescribeGroups (the request half of Kafka's {@code GroupMetadataManager}). It
 * validates each request against the group's state, records what the member asked for, and leaves
 * the state changes to {@link GroupRebalancer}. It owns no state of its own: groups live in their
 * {@link CoordinatorShard}.
 *
 * <p>Thread safety: each request takes the coordinator lock ({@link CoordinatorRuntime}'s monitor)
 * for its whole check-and-change, and is answered through {@link CoordinatorRuntime#complete},
 * never under the lock. A join or a sync may stay unanswered until the rebalance reaches its next
 * step; the member is then kept alive while it waits ({@link MemberMetadata#waitingOnCoordinator}).
 */
final class GroupMetadataManager {
  private final GroupCoordinatorConfig config;
  private final CoordinatorRuntime runtime;
  private final GroupRebalancer rebalancer;
  private final Time time;
  private final Scheduler scheduler;
  private final Random random;

  GroupMetadataManager(
      GroupCoordinatorConfig config,
      CoordinatorRuntime runtime,
      GroupRebalancer rebalancer,
      Time time,
      Scheduler scheduler,
      Random random) {
    this.config = config;
    this.runtime = runtime;
    this.rebalancer = rebalancer;
    this.time = time;
    this.scheduler = scheduler;
    this.random = random;
  }

  CompletableFuture<JoinResult> joinGroup(JoinRequest r) {
    CompletableFuture<JoinResult> answer = new CompletableFuture<>();
    synchronized (runtime) {
      String memberId = r.memberId() == null ? "" : r.memberId();
      GroupError invalid = validateJoin(r);
      if (invalid != GroupError.NONE) {
        return runtime.done(JoinResult.failed(invalid, memberId));
      }
      CoordinatorShard shard = runtime.shardFor(r.groupId());
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(JoinResult.failed(unavailable, memberId));
      }
      long nowMs = time.milliseconds();
      ConsumerGroup group = shard.groups.get(r.groupId());
      if (group == null) {
        if (!memberId.isEmpty()) {
          return runtime.done(JoinResult.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
        group = new ConsumerGroup(r.groupId(), nowMs);
        shard.groups.put(r.groupId(), group);
      }
      if (group.is(GroupState.DEAD)) {
        return runtime.done(JoinResult.failed(GroupError.COORDINATOR_NOT_AVAILABLE, memberId));
      }
      if (!group.supports(r.protocolType(), r.protocols())) {
        return runtime.done(JoinResult.failed(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
      }
      if (memberId.isEmpty() && r.groupInstanceId() == null) {
        return runtime.done(
            JoinResult.failed(GroupError.MEMBER_ID_REQUIRED, newMemberId(group, r)));
      }
      if (memberId.isEmpty()) {
        joinStaticMember(group, r, answer, nowMs);
        return answer;
      }
      if (r.groupInstanceId() == null && group.pendingMembers.containsKey(memberId)) {
        group.pendingMembers.remove(memberId).cancel();
        addMember(group, memberId, r, answer, nowMs);
        return answer;
      }
      GroupError unknown = group.validateMember(memberId, r.groupInstanceId());
      if (unknown != GroupError.NONE) {
        return runtime.done(JoinResult.failed(unknown, memberId));
      }
      rejoin(group, group.members.get(memberId), r, answer, nowMs);
      return answer;
    }
  }

  /** A new member joins, waiting for the rebalance its arrival starts (or joins). */
  private void addMember(
      ConsumerGroup group,
      String memberId,
      JoinRequest r,
      CompletableFuture<JoinResult> answer,
      long nowMs) {
    MemberMetadata m =
        new MemberMetadata(
            memberId,
            r.groupInstanceId(),
            r.clientId(),
            r.clientHost(),
            r.sessionTimeoutMs(),
            r.rebalanceTimeoutMs(),
            r.protocols());
    if (group.members.isEmpty()) {
      group.protocolType = r.protocolType();
    }
    group.add(m);
    m.awaitingJoin = answer;
    if (group.is(GroupState.PREPARING_REBALANCE) && group.generationId == 0) {
      // Only while the group forms its first generation does a newcomer extend the initial
      // delay (Kafka's addMemberAndRebalance).
      group.newMemberAdded = true;
    }
    rebalancer.maybePrepareRebalance(
        group, "member " + memberId + " joined" + reasonSuffix(r.reason()), nowMs);
    rebalancer.maybeCompleteJoin(group);
  }

  /**
   * A static member joins without a member id (KIP-345): it gets one at once. A new instance id
   * joins like any new member; a known one (the instance restarted) takes over its old member id's
   * place, and the old id is fenced. In a Stable group whose protocol that does not change, there
   * is no rebalance: the group is stored with the new id and the member gets the current
   * generation, named as a follower (the leader it had before), so it syncs for its old assignment
   * (Kafka's answer below JoinGroup v9; the v9 skip-assignment leader is not implemented).
   */
  private void joinStaticMember(
      ConsumerGroup group, JoinRequest r, CompletableFuture<JoinResult> answer, long nowMs) {
    String newId = r.groupInstanceId() + "-" + new UUID(random.nextLong(), random.nextLong());
    String oldId = group.staticMemberId(r.groupInstanceId());
    if (oldId == null) {
      addMember(group, newId, r, answer, nowMs);
      return;
    }
    MemberMetadata old = group.members.get(oldId);
    String previousLeader = group.leaderId;
    if (old.sessionTimer != null) {
      old.sessionTimer.cancel();
    }
    rebalancer.failPending(old, GroupError.FENCED_INSTANCE_ID);
    MemberMetadata m = group.replaceStaticMember(old, newId);
    update(m, r);
    rebalancer.heartbeatReceived(group, m);
    String reason =
        "static member "
            + r.groupInstanceId()
            + " rejoined as "
            + newId
            + " (was "
            + oldId
            + ")"
            + reasonSuffix(r.reason());
    switch (group.state()) {
      case STABLE -> {
        if (group.selectProtocol().equals(group.protocolName)) {
          int generation = group.generationId;
          String protocolName = group.protocolName;
          rebalancer
              .storeGroup(group)
              .thenAccept(
                  error ->
                      runtime.complete(
                          answer,
                          error != GroupError.NONE
                              ? JoinResult.failed(error, "")
                              : new JoinResult(
                                  GroupError.NONE,
                                  generation,
                                  protocolName,
                                  previousLeader,
                                  newId,
                                  List.of())));
        } else {
          m.awaitingJoin = answer;
          rebalancer.prepareRebalance(group, reason + " with another protocol", nowMs);
          rebalancer.maybeCompleteJoin(group);
        }
      }
      case COMPLETING_REBALANCE -> {
        // The leader may have assigned to the old id already: assign again.
        m.awaitingJoin = answer;
        rebalancer.prepareRebalance(group, reason, nowMs);
        rebalancer.maybeCompleteJoin(group);
      }
      default -> { // PreparingRebalance: it joins this rebalance under its new id
        m.awaitingJoin = answer;
        rebalancer.maybeCompleteJoin(group);
      }
    }
  }

  /**
   * KIP-394: hand out the id first and add the member only when it joins with it, so a join whose
   * answer was lost (a timed-out HTTP call) cannot leave a member behind that nobody will ever sync
   * or heartbeat for. The id is forgotten after the session timeout if the member does not come.
   */
  private String newMemberId(ConsumerGroup group, JoinRequest r) {
    String newId = r.clientId() + "-" + new UUID(random.nextLong(), random.nextLong());
    group.pendingMembers.put(
        newId,
        scheduler.schedule(
            r.sessionTimeoutMs(),
            () -> {
              synchronized (runtime) {
                group.pendingMembers.remove(newId);
              }
            }));
    return newId;
  }

  /** A join from a known member, by the group's state. */
  private void rejoin(
      ConsumerGroup group,
      MemberMetadata m,
      JoinRequest r,
      CompletableFuture<JoinResult> answer,
      long nowMs) {
    String memberId = m.memberId;
    boolean sameProtocols = m.sameProtocols(r.protocols());
    switch (group.state()) {
      case PREPARING_REBALANCE -> {
        update(m, r);
        if (m.awaitingJoin != null) {
          runtime.complete(
              m.awaitingJoin, JoinResult.failed(GroupError.REBALANCE_IN_PROGRESS, memberId));
        }
        m.awaitingJoin = answer;
        rebalancer.maybeCompleteJoin(group);
      }
      case COMPLETING_REBALANCE -> {
        if (sameProtocols) {
          // a retried join: same generation again
          runtime.complete(answer, GroupRebalancer.joinResultFor(group, m));
        } else {
          update(m, r);
          m.awaitingJoin = answer;
          rebalancer.prepareRebalance(
              group, "member " + memberId + " changed its subscription", nowMs);
          rebalancer.maybeCompleteJoin(group);
        }
      }
      case STABLE -> {
        if (sameProtocols && !memberId.equals(group.leaderId)) {
          runtime.complete(answer, GroupRebalancer.joinResultFor(group, m));
        } else {
          update(m, r);
          m.awaitingJoin = answer;
          rebalancer.prepareRebalance(
              group,
              memberId.equals(group.leaderId)
                  ? "leader " + memberId + " rejoined" + reasonSuffix(r.reason())
                  : "member " + memberId + " changed its subscription" + reasonSuffix(r.reason()),
              nowMs);
          rebalancer.maybeCompleteJoin(group);
        }
      }
      default ->
          runtime.complete(answer, JoinResult.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
    }
  }

  private GroupError validateJoin(JoinRequest r) {
    if (r.groupId() == null || r.groupId().isBlank()) {
      return GroupError.INVALID_GROUP_ID;
    }
    if (r.sessionTimeoutMs() < config.minSessionTimeoutMs()
        || r.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
      return GroupError.INVALID_SESSION_TIMEOUT;
    }
    if (r.protocolType() == null || r.protocols() == null || r.protocols().isEmpty()) {
      return GroupError.INCONSISTENT_GROUP_PROTOCOL;
    }
    return GroupError.NONE;
  }

  private static String reasonSuffix(String reason) {
    return reason == null || reason.isEmpty() ? "" : " (" + reason + ")";
  }

  private static void update(MemberMetadata m, JoinRequest r) {
    m.protocols = List.copyOf(r.protocols());
    m.sessionTimeoutMs = r.sessionTimeoutMs();
    m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
  }

  CompletableFuture<SyncResult> syncGroup(SyncRequest r) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.shardFor(r.groupId());
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(new SyncResult(unavailable, MemberMetadata.NO_ASSIGNMENT));
      }
      ConsumerGroup group = shard.groups.get(r.groupId());
      if (group == null || group.is(GroupState.DEAD)) {
        return runtime.done(
            new SyncResult(
                group == null ? GroupError.UNKNOWN_MEMBER_ID : GroupError.COORDINATOR_NOT_AVAILABLE,
                MemberMetadata.NO_ASSIGNMENT));
      }
      GroupError unknown = group.validateMember(r.memberId(), r.groupInstanceId());
      if (unknown != GroupError.NONE) {
        return runtime.done(new SyncResult(unknown, MemberMetadata.NO_ASSIGNMENT));
      }
      MemberMetadata m = group.members.get(r.memberId());
      if (r.generationId() != group.generationId) {
        return runtime.done(
            new SyncResult(GroupError.ILLEGAL_GENERATION, MemberMetadata.NO_ASSIGNMENT));
      }
      if ((r.protocolType() != null && !r.protocolType().equals(group.protocolType))
          || (r.protocolName() != null && !r.protocolName().equals(group.protocolName))) {
        return runtime.done(
            new SyncResult(GroupError.INCONSISTENT_GROUP_PROTOCOL, MemberMetadata.NO_ASSIGNMENT));
      }
      switch (group.state()) {
        case PREPARING_REBALANCE -> {
          return runtime.done(
              new SyncResult(GroupError.REBALANCE_IN_PROGRESS, MemberMetadata.NO_ASSIGNMENT));
        }
        case STABLE -> {
          rebalancer.heartbeatReceived(group, m);
          return runtime.done(GroupRebalancer.synced(group, m));
        }
        case COMPLETING_REBALANCE -> {
          CompletableFuture<SyncResult> answer = new CompletableFuture<>();
          if (m.awaitingSync != null) {
            runtime.complete(
                m.awaitingSync,
                new SyncResult(GroupError.REBALANCE_IN_PROGRESS, MemberMetadata.NO_ASSIGNMENT));
          }
          m.awaitingSync = answer;
          rebalancer.heartbeatReceived(group, m);
          if (m.memberId.equals(group.leaderId)) {
            rebalancer.onLeaderSync(group, r.assignments());
          }
          return answer;
        }
        default -> {
          return runtime.done(
              new SyncResult(GroupError.UNKNOWN_MEMBER_ID, MemberMetadata.NO_ASSIGNMENT));
        }
      }
    }
  }

  CompletableFuture<GroupError> heartbeat(
      String groupId, String memberId, String groupInstanceId, int generationId) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(unavailable);
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null || group.is(GroupState.EMPTY)) {
        return runtime.done(GroupError.UNKNOWN_MEMBER_ID);
      }
      if (group.is(GroupState.DEAD)) {
        return runtime.done(GroupError.COORDINATOR_NOT_AVAILABLE);
      }
      GroupError unknown = group.validateMember(memberId, groupInstanceId);
      if (unknown != GroupError.NONE) {
        return runtime.done(unknown);
      }
      if (generationId != group.generationId) {
        return runtime.done(GroupError.ILLEGAL_GENERATION);
      }
      rebalancer.heartbeatReceived(group, group.members.get(memberId));
      return runtime.done(
          group.is(GroupState.PREPARING_REBALANCE)
              ? GroupError.REBALANCE_IN_PROGRESS
              : GroupError.NONE);
    }
  }

  /**
   * Members leave (Kafka's LeaveGroup, batched since v3): each by member id, or by instance id
   * alone (an admin removing a static member). One rebalance follows for all who left.
   */
  CompletableFuture<LeaveResult> leaveGroup(String groupId, List<LeavingMember> leaving) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(new LeaveResult(unavailable, List.of()));
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null) {
        return runtime.done(new LeaveResult(GroupError.UNKNOWN_MEMBER_ID, List.of()));
      }
      if (group.is(GroupState.DEAD)) {
        return runtime.done(new LeaveResult(GroupError.COORDINATOR_NOT_AVAILABLE, List.of()));
      }
      long nowMs = time.milliseconds();
      List<GroupError> errors = new ArrayList<>();
      List<String> left = new ArrayList<>();
      for (LeavingMember l : leaving) {
        String memberId = l.memberId() == null ? "" : l.memberId();
        if (memberId.isEmpty()) {
          memberId = l.groupInstanceId() == null ? null : group.staticMemberId(l.groupInstanceId());
          if (memberId == null) {
            errors.add(GroupError.UNKNOWN_MEMBER_ID);
            continue;
          }
        } else if (l.groupInstanceId() == null && group.pendingMembers.containsKey(memberId)) {
          group.pendingMembers.remove(memberId).cancel(); // it never joined: nothing to rebalance
          errors.add(GroupError.NONE);
          continue;
        } else {
          GroupError unknown = group.validateMember(memberId, l.groupInstanceId());
          if (unknown != GroupError.NONE) {
            errors.add(unknown);
            continue;
          }
        }
        rebalancer.removeMember(
            group,
            group.members.get(memberId),
            "it left the group" + reasonSuffix(l.reason()),
            nowMs);
        left.add(memberId + " left" + reasonSuffix(l.reason()));
        errors.add(GroupError.NONE);
      }
      if (!left.isEmpty()) {
        rebalancer.memberGone(group, "member " + String.join(", member ", left), nowMs);
      }
      return runtime.done(new LeaveResult(GroupError.NONE, errors));
    }
  }

  /**
   * Deletes an Empty group with its committed offsets (Kafka's DeleteGroups): tombstones for every
   * offset and for the group are written, and once they are committed the group is gone.
   */
  CompletableFuture<GroupError> deleteGroup(String groupId, OffsetExpiration expiration) {
    synchronized (runtime) {
      if (groupId == null || groupId.isBlank()) {
        return runtime.done(GroupError.INVALID_GROUP_ID);
      }
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(unavailable);
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null || group.is(GroupState.DEAD)) {
        return runtime.done(GroupError.GROUP_ID_NOT_FOUND);
      }
      if (!group.is(GroupState.EMPTY)) {
        return runtime.done(GroupError.NON_EMPTY_GROUP);
      }
      return expiration.remove(shard, group, time.milliseconds(), "deleted by request");
    }
  }

  CompletableFuture<DescribeResult> describeGroup(String groupId) {
    synchronized (runtime) {
      CoordinatorShard shard = runtime.shardFor(groupId);
      GroupError unavailable = CoordinatorRuntime.availability(shard);
      if (unavailable != GroupError.NONE) {
        return runtime.done(new DescribeResult(unavailable, null));
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null) {
        return runtime.done(
            new DescribeResult(
                GroupError.NONE,
                new GroupDescription(
                    groupId, GroupState.DEAD, "", "", -1, null, List.of(), shard.partition)));
      }
      return runtime.done(new DescribeResult(GroupError.NONE, describe(group, shard.partition)));
    }
  }

  /** The group as DescribeGroups shows it. Under the lock. */
  static GroupDescription describe(ConsumerGroup group, int partition) {
    List<MemberDescription> members = new ArrayList<>();
    for (MemberMetadata m : group.members.values()) {
      byte[] metadata = group.protocolName == null ? new byte[0] : m.metadata(group.protocolName);
      members.add(
          new MemberDescription(
              m.memberId, m.clientId, m.clientHost, metadata, m.assignment, m.groupInstanceId));
    }
    return new GroupDescription(
        group.groupId,
        group.state(),
        group.protocolType == null ? "" : group.protocolType,
        group.protocolName == null ? "" : group.protocolName,
        group.generationId,
        group.leaderId,
        members,
        partition);
  }
}
