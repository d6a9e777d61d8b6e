package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.log.record.SimpleRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of one broker: Kafka's classic protocol (join, sync, heartbeat, leave,
 * offset commit and fetch) for every group whose {@code __consumer_offsets} partition this broker
 * leads. Each such partition is a <em>shard</em>: becoming its leader loads the shard by reading
 * the partition back ({@link #onBecomeLeader}); losing leadership drops it ({@link #onResign}), and
 * whichever broker leads next rebuilds the same state from the same records. There is no other
 * replication of group state.
 *
 * <p>What is written, and when (with {@code acks=all}, through {@link CoordinatorLog}): an offset
 * commit's records before the commit is answered (the in-memory offsets change only once they are
 * committed, so an acknowledged commit survives any broker's death while one in-sync replica of the
 * partition does); a group's metadata when a generation's assignment is synced and when the group
 * becomes empty. Member liveness (heartbeats) is memory only, as in Kafka: a new coordinator gives
 * each stored member a fresh session timeout.
 *
 * <p>Concurrency: one lock (this object) guards every shard and group. Futures are completed on
 * {@code completions}, never under the lock, so a caller's continuation cannot re-enter or stall
 * the coordinator. Timers run on {@code scheduler}; all time comes from {@code time}, so tests
 * drive it with a manual clock.
 */
public final class GroupCoordinator implements CoordinatorApi {
  private static final Logger logger = LoggerFactory.getLogger(GroupCoordinator.class);
  private static final int LOAD_CHUNK_BYTES = 1 << 20;
  private static final int MAX_EVENTS = 200;
  private static final long LOAD_RETRY_MS = 1_000;

  private final GroupCoordinatorConfig config;
  private final CoordinatorLog log;
  private final Time time;
  private final Scheduler scheduler;
  private final Random random;
  private final Executor completions;
  private final Executor loader;

  /** Invariant: a shard is here iff this broker leads its partition in the shard's leader epoch. */
  private final Map<Integer, Shard> shards = new HashMap<>();

  private final Deque<GroupEvent> events = new ArrayDeque<>();
  private boolean closed;

  /** One loaded (or loading) partition of {@code __consumer_offsets}. */
  private static final class Shard {
    final int partition;
    final int leaderEpoch;
    boolean loading = true;
    final Map<String, ConsumerGroup> groups = new HashMap<>();

    Shard(int partition, int leaderEpoch) {
      this.partition = partition;
      this.leaderEpoch = leaderEpoch;
    }
  }

  public GroupCoordinator(
      GroupCoordinatorConfig config,
      CoordinatorLog log,
      Time time,
      Scheduler scheduler,
      Random random,
      Executor completions,
      Executor loader) {
    this.config = config;
    this.log = log;
    this.time = time;
    this.scheduler = scheduler;
    this.random = random;
    this.completions = completions;
    this.loader = loader;
    scheduleRetentionCheck();
  }

  public GroupCoordinatorConfig config() {
    return config;
  }

  // ---------------------------------------------------------------------------------------------
  // shards

  /**
   * This broker now leads {@code partition} of {@code __consumer_offsets} in {@code leaderEpoch}:
   * (re)load its groups in the background. Requests for them get COORDINATOR_LOAD_IN_PROGRESS until
   * the load is done. Harmless if already loaded in this epoch.
   */
  public void onBecomeLeader(int partition, int leaderEpoch) {
    Shard shard;
    synchronized (this) {
      Shard current = shards.get(partition);
      if (closed || (current != null && current.leaderEpoch == leaderEpoch)) {
        return;
      }
      if (current != null) {
        unload(current, "its leadership changed to epoch " + leaderEpoch);
      }
      shard = new Shard(partition, leaderEpoch);
      shards.put(partition, shard);
    }
    loader.execute(() -> load(shard));
  }

  /** This broker no longer leads {@code partition}: its groups go to whoever does. */
  public void onResign(int partition) {
    synchronized (this) {
      Shard shard = shards.remove(partition);
      if (shard != null) {
        unload(
            shard,
            "this broker no longer leads "
                + GroupCoordinatorConfig.OFFSETS_TOPIC
                + "-"
                + partition);
      }
    }
  }

  /** The partitions this coordinator has loaded or is loading, with their leader epochs. */
  public synchronized Map<Integer, Integer> shardEpochs() {
    Map<Integer, Integer> out = new HashMap<>();
    shards.forEach((p, s) -> out.put(p, s.leaderEpoch));
    return out;
  }

  public synchronized void shutdown() {
    closed = true;
    for (Shard shard : List.copyOf(shards.values())) {
      unload(shard, "the broker is shutting down");
    }
    shards.clear();
  }

  private void unload(Shard shard, String why) {
    for (ConsumerGroup group : shard.groups.values()) {
      cancelTimers(group);
      for (MemberMetadata m : group.members.values()) {
        failPending(m, GroupError.NOT_COORDINATOR);
      }
      if (!group.is(GroupState.DEAD)) {
        group.transitionTo(GroupState.DEAD, time.milliseconds());
      }
    }
    logger.info(
        "Unloaded {} group(s) of {}-{}: {}",
        shard.groups.size(),
        GroupCoordinatorConfig.OFFSETS_TOPIC,
        shard.partition,
        why);
    shard.groups.clear();
  }

  /** Replays the partition from its log start to its log end, then opens the shard for requests. */
  private void load(Shard shard) {
    long startNs = time.nanoseconds();
    Map<String, GroupRecords.StoredGroup> stored = new LinkedHashMap<>();
    Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = new LinkedHashMap<>();
    long records = 0;
    try {
      long next = 0;
      while (true) {
        synchronized (this) {
          if (shards.get(shard.partition) != shard) {
            return; // leadership moved on while loading
          }
        }
        CoordinatorLog.Chunk chunk = log.read(shard.partition, next, LOAD_CHUNK_BYTES);
        next = Math.max(next, chunk.logStartOffset());
        if (!chunk.batches().hasRemaining()) {
          if (next >= chunk.logEndOffset()) {
            break;
          }
          throw new IllegalStateException(
              "read at " + next + " returned nothing before log end " + chunk.logEndOffset());
        }
        for (RecordBatch batch : BatchIterator.lenient(chunk.batches())) {
          if (!batch.isControlBatch()) {
            for (Record record : batch.records()) {
              if (record.offset() >= next) {
                replay(record, stored, offsets);
                records++;
              }
            }
          }
          next = Math.max(next, batch.nextOffset());
        }
      }
    } catch (RuntimeException e) {
      logger.warn(
          "Could not load {}-{} yet; retrying in {} ms",
          GroupCoordinatorConfig.OFFSETS_TOPIC,
          shard.partition,
          LOAD_RETRY_MS,
          e);
      scheduler.schedule(
          LOAD_RETRY_MS,
          () -> {
            synchronized (this) {
              if (shards.get(shard.partition) != shard) {
                return;
              }
            }
            loader.execute(() -> load(shard));
          });
      return;
    }
    synchronized (this) {
      if (shards.get(shard.partition) != shard) {
        return;
      }
      long nowMs = time.milliseconds();
      Set<String> ids = new TreeSet<>(stored.keySet());
      offsets.forEach(
          (groupId, groupOffsets) -> {
            if (!groupOffsets.isEmpty()) {
              ids.add(groupId); // a group with offsets but no metadata is Empty, as in Kafka
            }
          });
      for (String groupId : ids) {
        ConsumerGroup group = new ConsumerGroup(groupId, nowMs);
        group.offsets.putAll(offsets.getOrDefault(groupId, Map.of()));
        GroupRecords.StoredGroup g = stored.get(groupId);
        if (g != null) {
          restore(group, g, nowMs);
        }
        shard.groups.put(groupId, group);
      }
      shard.loading = false;
      long tookMs = (time.nanoseconds() - startNs) / 1_000_000;
      record(
          new GroupEvent(
              nowMs,
              "",
              -1,
              GroupEvent.Type.COORDINATOR_LOADED,
              "coordinator for "
                  + GroupCoordinatorConfig.OFFSETS_TOPIC
                  + "-"
                  + shard.partition
                  + " (leader epoch "
                  + shard.leaderEpoch
                  + ") loaded "
                  + shard.groups.size()
                  + " group(s) from "
                  + records
                  + " record(s) in "
                  + tookMs
                  + " ms"));
    }
  }

  private static void replay(
      Record record,
      Map<String, GroupRecords.StoredGroup> stored,
      Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets) {
    if (record.key() == null) {
      return;
    }
    GroupRecords.Key key;
    try {
      key = GroupRecords.readKey(record.key());
    } catch (RuntimeException e) {
      logger.warn(
          "Skipping a record of unknown kind at offset {}: {}", record.offset(), e.getMessage());
      return;
    }
    if (key instanceof GroupRecords.OffsetKey ok) {
      Map<TopicPartition, OffsetAndMetadata> groupOffsets =
          offsets.computeIfAbsent(ok.groupId(), g -> new HashMap<>());
      if (record.value() == null) {
        groupOffsets.remove(ok.topicPartition());
      } else {
        groupOffsets.put(ok.topicPartition(), GroupRecords.readOffsetValue(record.value()));
      }
    } else if (key instanceof GroupRecords.GroupKey gk) {
      if (record.value() == null) {
        stored.remove(gk.groupId()); // its offsets have tombstones of their own, as in Kafka
      } else {
        stored.put(gk.groupId(), GroupRecords.readGroupValue(record.value()));
      }
    }
  }

  /** A stored generation comes back Stable with its members, each on a fresh session timeout. */
  private void restore(ConsumerGroup group, GroupRecords.StoredGroup g, long nowMs) {
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
              sm.clientId(),
              sm.clientHost(),
              sm.sessionTimeoutMs(),
              sm.rebalanceTimeoutMs(),
              List.of(new Protocol(g.protocolName(), sm.subscription())));
      m.assignment = sm.assignment() == null ? MemberMetadata.NO_ASSIGNMENT : sm.assignment();
      group.members.put(m.memberId, m);
    }
    group.transitionTo(GroupState.PREPARING_REBALANCE, nowMs);
    group.transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
    group.transitionTo(GroupState.STABLE, nowMs);
    group.members.values().forEach(m -> heartbeatReceived(group, m, nowMs));
  }

  // ---------------------------------------------------------------------------------------------
  // join, sync, heartbeat, leave

  @Override
  public CompletableFuture<JoinResult> joinGroup(JoinRequest r) {
    CompletableFuture<JoinResult> answer = new CompletableFuture<>();
    synchronized (this) {
      String memberId = r.memberId() == null ? "" : r.memberId();
      GroupError invalid = validateJoin(r);
      if (invalid != GroupError.NONE) {
        return done(JoinResult.failed(invalid, memberId));
      }
      Shard shard = shardFor(r.groupId());
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(JoinResult.failed(unavailable, memberId));
      }
      long nowMs = time.milliseconds();
      ConsumerGroup group = shard.groups.get(r.groupId());
      if (group == null) {
        if (!memberId.isEmpty()) {
          return done(JoinResult.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
        group = new ConsumerGroup(r.groupId(), nowMs);
        shard.groups.put(r.groupId(), group);
      }
      if (group.is(GroupState.DEAD)) {
        return done(JoinResult.failed(GroupError.COORDINATOR_NOT_AVAILABLE, memberId));
      }
      if (!group.supports(r.protocolType(), r.protocols())) {
        return done(JoinResult.failed(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
      }
      if (memberId.isEmpty()) {
        // KIP-394: hand out the id first and add the member only when it joins with it, so a join
        // whose answer was lost (a timed-out HTTP call) cannot leave a member behind that nobody
        // will ever sync or heartbeat for.
        String newId =
            r.clientId() + "-" + new java.util.UUID(random.nextLong(), random.nextLong());
        ConsumerGroup target = group;
        group.pendingMembers.put(
            newId,
            scheduler.schedule(
                r.sessionTimeoutMs(),
                () -> {
                  synchronized (this) {
                    target.pendingMembers.remove(newId);
                  }
                }));
        return done(JoinResult.failed(GroupError.MEMBER_ID_REQUIRED, newId));
      }
      Scheduler.Cancellable pending = group.pendingMembers.remove(memberId);
      if (pending != null) {
        pending.cancel();
        MemberMetadata m =
            new MemberMetadata(
                memberId,
                r.clientId(),
                r.clientHost(),
                r.sessionTimeoutMs(),
                r.rebalanceTimeoutMs(),
                r.protocols());
        if (group.members.isEmpty()) {
          group.protocolType = r.protocolType();
        }
        group.members.put(memberId, m);
        m.awaitingJoin = answer;
        group.newMemberAdded = true;
        maybePrepareRebalance(
            group, "member " + memberId + " joined" + reasonSuffix(r.reason()), nowMs);
        maybeCompleteJoin(group);
        return answer;
      }
      MemberMetadata m = group.members.get(memberId);
      if (m == null) {
        return done(JoinResult.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
      }
      boolean sameProtocols = m.sameProtocols(r.protocols());
      switch (group.state()) {
        case PREPARING_REBALANCE -> {
          update(m, r);
          if (m.awaitingJoin != null) {
            complete(m.awaitingJoin, JoinResult.failed(GroupError.REBALANCE_IN_PROGRESS, memberId));
          }
          m.awaitingJoin = answer;
          maybeCompleteJoin(group);
        }
        case COMPLETING_REBALANCE -> {
          if (sameProtocols) {
            complete(answer, joinResultFor(group, m)); // a retried join: same generation again
          } else {
            update(m, r);
            m.awaitingJoin = answer;
            prepareRebalance(group, "member " + memberId + " changed its subscription", nowMs);
            maybeCompleteJoin(group);
          }
        }
        case STABLE -> {
          if (sameProtocols && !memberId.equals(group.leaderId)) {
            complete(answer, joinResultFor(group, m));
          } else {
            update(m, r);
            m.awaitingJoin = answer;
            prepareRebalance(
                group,
                memberId.equals(group.leaderId)
                    ? "leader " + memberId + " rejoined" + reasonSuffix(r.reason())
                    : "member " + memberId + " changed its subscription" + reasonSuffix(r.reason()),
                nowMs);
            maybeCompleteJoin(group);
          }
        }
        default -> complete(answer, JoinResult.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
      }
      return answer;
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

  private JoinResult joinResultFor(ConsumerGroup group, MemberMetadata m) {
    List<JoinedMember> members = new ArrayList<>();
    if (m.memberId.equals(group.leaderId)) {
      for (MemberMetadata each : group.members.values()) {
        members.add(
            new JoinedMember(each.memberId, each.clientId, each.metadata(group.protocolName)));
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

  private void maybePrepareRebalance(ConsumerGroup group, String reason, long nowMs) {
    if (group.is(GroupState.STABLE)
        || group.is(GroupState.COMPLETING_REBALANCE)
        || group.is(GroupState.EMPTY)) {
      prepareRebalance(group, reason, nowMs);
    }
  }

  private void prepareRebalance(ConsumerGroup group, String reason, long nowMs) {
    if (group.is(GroupState.COMPLETING_REBALANCE)) {
      // The assignment being synced is void: members must join the next generation.
      for (MemberMetadata m : group.members.values()) {
        if (m.awaitingSync != null) {
          complete(
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
    group.rebalanceStartMs = nowMs;
    cancelJoinTimer(group);
    record(
        new GroupEvent(
            nowMs,
            group.groupId,
            group.generationId,
            GroupEvent.Type.REBALANCE_STARTED,
            "rebalance of group " + group.groupId + " started: " + reason));
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
    synchronized (this) {
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
                  0, group.rebalanceTimeoutMs() - (time.milliseconds() - group.rebalanceStartMs)));
          return;
        }
      }
      completeJoin(group);
    }
  }

  private void maybeCompleteJoin(ConsumerGroup group) {
    if (group.is(GroupState.PREPARING_REBALANCE)
        && !group.initialDelayPending
        && group.allMembersJoined()) {
      completeJoin(group);
    }
  }

  /** Ends the join phase: members that did not rejoin are out; the rest get the new generation. */
  private void completeJoin(ConsumerGroup group) {
    long nowMs = time.milliseconds();
    cancelJoinTimer(group);
    for (MemberMetadata m : List.copyOf(group.members.values())) {
      if (m.awaitingJoin == null) {
        removeMember(
            group,
            m,
            "it did not rejoin within the rebalance timeout ("
                + group.rebalanceTimeoutMs()
                + " ms)",
            nowMs);
      }
    }
    group.generationId++;
    if (group.members.isEmpty()) {
      group.protocolName = null;
      group.leaderId = null;
      group.transitionTo(GroupState.EMPTY, nowMs);
      record(
          new GroupEvent(
              nowMs,
              group.groupId,
              group.generationId,
              GroupEvent.Type.GROUP_EMPTY,
              "group " + group.groupId + " is empty (generation " + group.generationId + ")"));
      storeGroup(group, group.generationId);
      return;
    }
    group.protocolName = group.selectProtocol();
    if (group.leaderId == null || !group.members.containsKey(group.leaderId)) {
      group.leaderId = group.members.keySet().iterator().next();
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
      complete(waiting, joinResultFor(group, m));
      heartbeatReceived(group, m, nowMs);
    }
  }

  @Override
  public CompletableFuture<SyncResult> syncGroup(SyncRequest r) {
    synchronized (this) {
      Shard shard = shardFor(r.groupId());
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(new SyncResult(unavailable, MemberMetadata.NO_ASSIGNMENT));
      }
      ConsumerGroup group = shard.groups.get(r.groupId());
      MemberMetadata m = group == null ? null : group.members.get(r.memberId());
      if (group == null || group.is(GroupState.DEAD)) {
        return done(
            new SyncResult(
                group == null ? GroupError.UNKNOWN_MEMBER_ID : GroupError.COORDINATOR_NOT_AVAILABLE,
                MemberMetadata.NO_ASSIGNMENT));
      }
      if (m == null) {
        return done(new SyncResult(GroupError.UNKNOWN_MEMBER_ID, MemberMetadata.NO_ASSIGNMENT));
      }
      if (r.generationId() != group.generationId) {
        return done(new SyncResult(GroupError.ILLEGAL_GENERATION, MemberMetadata.NO_ASSIGNMENT));
      }
      long nowMs = time.milliseconds();
      switch (group.state()) {
        case PREPARING_REBALANCE -> {
          return done(
              new SyncResult(GroupError.REBALANCE_IN_PROGRESS, MemberMetadata.NO_ASSIGNMENT));
        }
        case STABLE -> {
          heartbeatReceived(group, m, nowMs);
          return done(new SyncResult(GroupError.NONE, m.assignment));
        }
        case COMPLETING_REBALANCE -> {
          CompletableFuture<SyncResult> answer = new CompletableFuture<>();
          if (m.awaitingSync != null) {
            complete(
                m.awaitingSync,
                new SyncResult(GroupError.REBALANCE_IN_PROGRESS, MemberMetadata.NO_ASSIGNMENT));
          }
          m.awaitingSync = answer;
          heartbeatReceived(group, m, nowMs);
          if (m.memberId.equals(group.leaderId)) {
            Map<String, byte[]> assignments = new HashMap<>();
            for (MemberMetadata each : group.members.values()) {
              byte[] given = r.assignments() == null ? null : r.assignments().get(each.memberId);
              assignments.put(each.memberId, given == null ? MemberMetadata.NO_ASSIGNMENT : given);
            }
            int generation = group.generationId;
            // Memory takes the assignment only once the record holding it is committed.
            storeGroup(group, generation, assignments)
                .thenAccept(error -> onAssignmentStored(group, generation, assignments, error));
          }
          return answer;
        }
        default -> {
          return done(new SyncResult(GroupError.UNKNOWN_MEMBER_ID, MemberMetadata.NO_ASSIGNMENT));
        }
      }
    }
  }

  private void onAssignmentStored(
      ConsumerGroup group, int generation, Map<String, byte[]> assignments, GroupError error) {
    synchronized (this) {
      if (!group.is(GroupState.COMPLETING_REBALANCE) || group.generationId != generation) {
        return; // the group moved on meanwhile; its members were told then
      }
      long nowMs = time.milliseconds();
      if (error != GroupError.NONE) {
        for (MemberMetadata m : group.members.values()) {
          if (m.awaitingSync != null) {
            complete(m.awaitingSync, new SyncResult(error, MemberMetadata.NO_ASSIGNMENT));
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
          complete(m.awaitingSync, new SyncResult(GroupError.NONE, m.assignment));
          m.awaitingSync = null;
          // Its session starts now, when it gets its assignment (Kafka's propagateAssignment).
          heartbeatReceived(group, m, nowMs);
        }
        if (who.length() > 0) {
          who.append("; ");
        }
        who.append(m.memberId).append(" ← ").append(describeAssignment(m.assignment));
      }
      String took =
          group.rebalanceStartMs > 0 ? " in " + (nowMs - group.rebalanceStartMs) + " ms" : "";
      record(
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
                  + who));
      logger.info(
          "Group {} generation {} is stable{}: {}", group.groupId, group.generationId, took, who);
    }
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

  @Override
  public CompletableFuture<GroupError> heartbeat(
      String groupId, String memberId, int generationId) {
    synchronized (this) {
      Shard shard = shardFor(groupId);
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(unavailable);
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null || group.is(GroupState.EMPTY)) {
        return done(GroupError.UNKNOWN_MEMBER_ID);
      }
      if (group.is(GroupState.DEAD)) {
        return done(GroupError.COORDINATOR_NOT_AVAILABLE);
      }
      MemberMetadata m = group.members.get(memberId);
      if (m == null) {
        return done(GroupError.UNKNOWN_MEMBER_ID);
      }
      if (generationId != group.generationId) {
        return done(GroupError.ILLEGAL_GENERATION);
      }
      heartbeatReceived(group, m, time.milliseconds());
      return done(
          group.is(GroupState.PREPARING_REBALANCE)
              ? GroupError.REBALANCE_IN_PROGRESS
              : GroupError.NONE);
    }
  }

  @Override
  public CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String reason) {
    synchronized (this) {
      Shard shard = shardFor(groupId);
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(unavailable);
      }
      ConsumerGroup group = shard.groups.get(groupId);
      MemberMetadata m = group == null ? null : group.members.get(memberId);
      if (m == null) {
        return done(GroupError.UNKNOWN_MEMBER_ID);
      }
      long nowMs = time.milliseconds();
      String why = "it left the group" + reasonSuffix(reason);
      removeMember(group, m, why, nowMs);
      memberGone(group, "member " + memberId + " left" + reasonSuffix(reason), nowMs);
      return done(GroupError.NONE);
    }
  }

  /** After a member was removed: the others must rebalance (or the join may now complete). */
  private void memberGone(ConsumerGroup group, String reason, long nowMs) {
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

  private void removeMember(ConsumerGroup group, MemberMetadata m, String why, long nowMs) {
    group.members.remove(m.memberId);
    if (m.sessionTimer != null) {
      m.sessionTimer.cancel();
    }
    failPending(m, GroupError.UNKNOWN_MEMBER_ID);
    if (m.memberId.equals(group.leaderId)) {
      group.leaderId = null;
    }
    record(
        new GroupEvent(
            nowMs,
            group.groupId,
            group.generationId,
            GroupEvent.Type.MEMBER_REMOVED,
            "member " + m.memberId + " removed from group " + group.groupId + ": " + why));
    logger.info("Removed member {} from group {}: {}", m.memberId, group.groupId, why);
  }

  private void heartbeatReceived(ConsumerGroup group, MemberMetadata m, long nowMs) {
    m.lastHeartbeatMs = nowMs;
    if (m.sessionTimer != null) {
      m.sessionTimer.cancel();
    }
    m.sessionTimer = scheduler.schedule(m.sessionTimeoutMs, () -> onSessionTimer(group, m));
  }

  private void onSessionTimer(ConsumerGroup group, MemberMetadata m) {
    synchronized (this) {
      if (group.is(GroupState.DEAD) || group.members.get(m.memberId) != m) {
        return;
      }
      long nowMs = time.milliseconds();
      if (m.waitingOnCoordinator()) {
        heartbeatReceived(group, m, nowMs); // it is waiting on us, not dead
        return;
      }
      long silentMs = nowMs - m.lastHeartbeatMs;
      if (silentMs < m.sessionTimeoutMs) {
        m.sessionTimer =
            scheduler.schedule(m.sessionTimeoutMs - silentMs, () -> onSessionTimer(group, m));
        return;
      }
      String why =
          "no heartbeat for " + silentMs + " ms > session.timeout.ms=" + m.sessionTimeoutMs;
      removeMember(group, m, why, nowMs);
      memberGone(group, "member " + m.memberId + " timed out (" + why + ")", nowMs);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // offsets

  @Override
  public CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    synchronized (this) {
      if (groupId == null || groupId.isBlank()) {
        return done(GroupError.INVALID_GROUP_ID);
      }
      Shard shard = shardFor(groupId);
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(unavailable);
      }
      long nowMs = time.milliseconds();
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null) {
        if (generationId >= 0) {
          return done(GroupError.ILLEGAL_GENERATION);
        }
        group = new ConsumerGroup(groupId, nowMs);
        group.protocolType = ConsumerProtocol.PROTOCOL_TYPE;
        shard.groups.put(groupId, group);
      }
      if (group.is(GroupState.DEAD)) {
        return done(GroupError.COORDINATOR_NOT_AVAILABLE);
      }
      if (!(generationId < 0 && group.is(GroupState.EMPTY))) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
          return done(GroupError.REBALANCE_IN_PROGRESS);
        }
        MemberMetadata m = group.members.get(memberId);
        if (m == null) {
          return done(GroupError.UNKNOWN_MEMBER_ID);
        }
        if (generationId != group.generationId) {
          return done(GroupError.ILLEGAL_GENERATION);
        }
        heartbeatReceived(group, m, nowMs);
      }
      for (OffsetAndMetadata o : offsets.values()) {
        if (o.metadata().length() > config.offsetMetadataMaxBytes()) {
          return done(GroupError.OFFSET_METADATA_TOO_LARGE);
        }
      }
      if (offsets.isEmpty()) {
        return done(GroupError.NONE);
      }
      List<SimpleRecord> records = new ArrayList<>(offsets.size());
      offsets.forEach(
          (tp, o) ->
              records.add(
                  new SimpleRecord(
                      nowMs, GroupRecords.offsetKey(groupId, tp), GroupRecords.offsetValue(o))));
      ConsumerGroup target = group;
      Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
      target.pendingOffsetCommits++;
      CompletableFuture<GroupError> answer =
          appendAndThen(shard, records, () -> target.offsets.putAll(copy));
      answer.whenComplete((error, failure) -> onCommitDone(target));
      return answer;
    }
  }

  private synchronized void onCommitDone(ConsumerGroup group) {
    group.pendingOffsetCommits--;
  }

  @Override
  public CompletableFuture<OffsetFetchResult> fetchOffsets(
      String groupId, List<TopicPartition> partitions) {
    synchronized (this) {
      Shard shard = shardFor(groupId);
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(new OffsetFetchResult(unavailable, Map.of()));
      }
      ConsumerGroup group = shard.groups.get(groupId);
      Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
      if (group != null) {
        if (partitions == null) {
          out.putAll(group.offsets);
        } else {
          for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = group.offsets.get(tp);
            if (o != null) {
              out.put(tp, o);
            }
          }
        }
      }
      return done(new OffsetFetchResult(GroupError.NONE, out));
    }
  }

  @Override
  public CompletableFuture<DescribeResult> describeGroup(String groupId) {
    synchronized (this) {
      Shard shard = shardFor(groupId);
      GroupError unavailable = availability(shard);
      if (unavailable != GroupError.NONE) {
        return done(new DescribeResult(unavailable, null));
      }
      ConsumerGroup group = shard.groups.get(groupId);
      if (group == null) {
        return done(
            new DescribeResult(
                GroupError.NONE,
                new GroupDescription(
                    groupId, GroupState.DEAD, "", "", -1, null, List.of(), shard.partition)));
      }
      return done(new DescribeResult(GroupError.NONE, describe(group, shard.partition)));
    }
  }

  private static GroupDescription describe(ConsumerGroup group, int partition) {
    List<MemberDescription> members = new ArrayList<>();
    for (MemberMetadata m : group.members.values()) {
      byte[] metadata = group.protocolName == null ? new byte[0] : m.metadata(group.protocolName);
      members.add(
          new MemberDescription(m.memberId, m.clientId, m.clientHost, metadata, m.assignment));
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

  @Override
  public CompletableFuture<List<GroupListing>> listGroups() {
    synchronized (this) {
      List<GroupListing> out = new ArrayList<>();
      for (Shard shard : shards.values()) {
        for (ConsumerGroup g : shard.groups.values()) {
          out.add(
              new GroupListing(
                  g.groupId,
                  g.state(),
                  g.protocolType == null ? "" : g.protocolType,
                  shard.partition));
        }
      }
      out.sort(java.util.Comparator.comparing(GroupListing::groupId));
      return done(out);
    }
  }

  /** Every group this coordinator has loaded, described, with its committed offsets. */
  public synchronized List<LoadedGroup> loadedGroups() {
    List<LoadedGroup> out = new ArrayList<>();
    for (Shard shard : shards.values()) {
      if (shard.loading) {
        continue;
      }
      for (ConsumerGroup g : shard.groups.values()) {
        out.add(
            new LoadedGroup(
                describe(g, shard.partition), Map.copyOf(g.offsets), g.stateTimestampMs));
      }
    }
    out.sort(java.util.Comparator.comparing(l -> l.group().groupId()));
    return out;
  }

  /** A loaded group with its committed offsets and when it entered its current state. */
  public record LoadedGroup(
      GroupDescription group,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      long stateTimestampMs) {}

  /** The most recent group events, oldest first (at most 200). */
  public synchronized List<GroupEvent> recentEvents() {
    return List.copyOf(events);
  }

  // ---------------------------------------------------------------------------------------------
  // offset retention

  private void scheduleRetentionCheck() {
    scheduler.schedule(
        config.offsetsRetentionCheckIntervalMs(),
        () -> {
          expireOffsets();
          synchronized (this) {
            if (closed) {
              return;
            }
          }
          scheduleRetentionCheck();
        });
  }

  /**
   * Removes the offsets (and metadata) of groups that have been empty for {@code
   * offsets.retention.minutes}, as Kafka does since KIP-211: tombstones are written, then
   * compaction drops the keys.
   */
  public void expireOffsets() {
    synchronized (this) {
      long nowMs = time.milliseconds();
      for (Shard shard : shards.values()) {
        if (shard.loading) {
          continue;
        }
        for (ConsumerGroup group : List.copyOf(shard.groups.values())) {
          // Empty since stateTimestampMs; a standalone consumer commits without joining, so its
          // newest commit counts too (Kafka expires such offsets by commit timestamp).
          long lastActiveMs = group.stateTimestampMs;
          for (OffsetAndMetadata o : group.offsets.values()) {
            lastActiveMs = Math.max(lastActiveMs, o.commitTimestampMs());
          }
          if (!group.is(GroupState.EMPTY)
              || group.pendingOffsetCommits > 0 // a commit in flight would race the tombstones
              || nowMs - lastActiveMs < config.offsetsRetentionMs()) {
            continue;
          }
          Map<TopicPartition, OffsetAndMetadata> expiring = Map.copyOf(group.offsets);
          List<SimpleRecord> tombstones = new ArrayList<>();
          for (TopicPartition tp : group.offsets.keySet()) {
            tombstones.add(
                new SimpleRecord(nowMs, GroupRecords.offsetKey(group.groupId, tp), null));
          }
          tombstones.add(new SimpleRecord(nowMs, GroupRecords.groupKey(group.groupId), null));
          appendAndThen(
              shard,
              tombstones,
              () -> {
                // Only what the tombstones covered goes: a commit that landed after them (its
                // record is after theirs in the log, too) stays.
                expiring.forEach((tp, o) -> group.offsets.remove(tp, o));
                if (group.is(GroupState.EMPTY)
                    && group.offsets.isEmpty()
                    && group.pendingOffsetCommits == 0
                    && shard.groups.get(group.groupId) == group) {
                  shard.groups.remove(group.groupId);
                  group.transitionTo(GroupState.DEAD, time.milliseconds());
                  logger.info(
                      "Removed group {}: empty for longer than offsets.retention.minutes",
                      group.groupId);
                }
              });
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // helpers

  /** Stores the group's current generation; completes with NONE once committed, else the error. */
  private CompletableFuture<GroupError> storeGroup(ConsumerGroup group, int generation) {
    return storeGroup(group, generation, Map.of());
  }

  /** As {@link #storeGroup(ConsumerGroup, int)}, with the members' new assignments. */
  private CompletableFuture<GroupError> storeGroup(
      ConsumerGroup group, int generation, Map<String, byte[]> assignments) {
    Shard shard = shardFor(group.groupId);
    if (shard == null || shard.loading) {
      return CompletableFuture.completedFuture(GroupError.NOT_COORDINATOR);
    }
    byte[] value = GroupRecords.groupValue(group.toStored(assignments));
    SimpleRecord record =
        new SimpleRecord(time.milliseconds(), GroupRecords.groupKey(group.groupId), value);
    return appendAndThen(shard, List.of(record), () -> {});
  }

  /**
   * Appends to the shard's partition; runs {@code onCommitted} under the lock once the records are
   * committed, if the shard is still this broker's, and answers NONE; otherwise answers the error.
   */
  private CompletableFuture<GroupError> appendAndThen(
      Shard shard, List<SimpleRecord> records, Runnable onCommitted) {
    CompletableFuture<GroupError> answer = new CompletableFuture<>();
    CompletableFuture<Void> appended;
    try {
      appended = log.append(shard.partition, records);
    } catch (RuntimeException e) {
      appended = CompletableFuture.failedFuture(e);
    }
    appended.whenComplete(
        (ok, failure) -> {
          GroupError error;
          synchronized (this) {
            if (failure != null) {
              error = log.errorFor(failure);
            } else if (shards.get(shard.partition) != shard) {
              error = GroupError.NOT_COORDINATOR;
            } else {
              onCommitted.run();
              error = GroupError.NONE;
            }
          }
          complete(answer, error);
        });
    return answer;
  }

  private Shard shardFor(String groupId) {
    return shards.get(config.partitionFor(groupId));
  }

  private static GroupError availability(Shard shard) {
    if (shard == null) {
      return GroupError.NOT_COORDINATOR;
    }
    return shard.loading ? GroupError.COORDINATOR_LOAD_IN_PROGRESS : GroupError.NONE;
  }

  private void failPending(MemberMetadata m, GroupError error) {
    if (m.awaitingJoin != null) {
      complete(m.awaitingJoin, JoinResult.failed(error, m.memberId));
      m.awaitingJoin = null;
    }
    if (m.awaitingSync != null) {
      complete(m.awaitingSync, new SyncResult(error, MemberMetadata.NO_ASSIGNMENT));
      m.awaitingSync = null;
    }
  }

  private static void cancelJoinTimer(ConsumerGroup group) {
    if (group.joinTimer != null) {
      group.joinTimer.cancel();
      group.joinTimer = null;
    }
  }

  private static void cancelTimers(ConsumerGroup group) {
    cancelJoinTimer(group);
    for (MemberMetadata m : group.members.values()) {
      if (m.sessionTimer != null) {
        m.sessionTimer.cancel();
      }
    }
  }

  private void record(GroupEvent event) {
    events.addLast(event);
    while (events.size() > MAX_EVENTS) {
      events.removeFirst();
    }
  }

  private <T> void complete(CompletableFuture<T> future, T value) {
    completions.execute(() -> future.complete(value));
  }

  private <T> CompletableFuture<T> done(T value) {
    CompletableFuture<T> future = new CompletableFuture<>();
    complete(future, value);
    return future;
  }
}
