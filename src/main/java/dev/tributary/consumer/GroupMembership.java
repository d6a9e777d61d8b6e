package dev.tributary.consumer;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.GroupError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member side of Kafka's classic group protocol for one consumer instance, as the Java
 * consumer's coordinator client runs it: join, sync (computing the assignment when it is the
 * leader), heartbeat, rejoin when the coordinator says a rebalance is in progress, leave. The eager
 * protocol: every member gives up its partitions (after {@link Listener#onRevoked}, which commits
 * with auto-commit) before it rejoins, so no partition is read by two members of one generation.
 *
 * <p>Liveness is the client's: the instance heartbeats on its client's behalf only while the client
 * has polled within the session timeout; past that it leaves the group at once (Kafka's
 * max.poll.interval rule, with the interval = the session timeout, since a curl user's poll is its
 * only sign of life). A member that has not had a heartbeat answered within the session timeout
 * considers its assignment lost and serves nothing from it ({@link #ownedPartitions}), so a broker
 * frozen past its members' sessions cannot hand out partitions the group has given to others.
 *
 * <p>This class is Kafka's {@code AbstractCoordinator} for one member: the phases, the requests and
 * their answers. Its timers are in {@link Heartbeat}; what the consumer protocol puts into the
 * requests (subscription, the leader's assignment) is in {@link EmbeddedProtocol}.
 *
 * <p>Driven by {@link #tick()}, which the owner schedules; at most one coordinator request is in
 * flight. Thread-safe (guarded by this object). Lock order: {@link ConsumerInstance} → {@link
 * SubscriptionState} → this member; so the listener's methods that take the consumer's locks
 * ({@link Listener#subscribedTopics}, the callbacks) are never called with this lock held. The
 * heartbeat and the embedded protocol are confined to this lock.
 */
public final class GroupMembership {
  private static final Logger logger = LoggerFactory.getLogger(GroupMembership.class);
  static final long RETRY_BACKOFF_MS = 100;

  /**
   * What the member tells its consumer, and asks of it. Every method but {@link #partitionCounts}
   * is called without the member's lock held, and may take the consumer's.
   */
  public interface Listener {
    /** The topics the consumer is subscribed to now (a pattern resolved against metadata). */
    Set<String> subscribedTopics();

    /**
     * The partition count of each topic that exists. May be called with the member's lock held:
     * must take no lock of the consumer's.
     */
    Map<String, Integer> partitionCounts(Set<String> topics);

    /**
     * The member is about to give up {@code partitions} (still as {@code memberId} of {@code
     * generationId}): commit what must be committed. The rejoin waits for the returned future.
     */
    CompletableFuture<Void> onRevoked(
        List<TopicPartition> partitions, String memberId, int generationId);

    /** The member lost its partitions without a chance to commit (session gone, or fenced). */
    void onLost(List<TopicPartition> partitions);

    /** The new generation's assignment. */
    void onAssigned(List<TopicPartition> partitions);
  }

  enum Phase {
    /** Not in the group (never joined, left, or removed). */
    UNJOINED,
    /** A JoinGroup is in flight or about to be sent. */
    JOINING,
    /** Joined; a SyncGroup is in flight. */
    SYNCING,
    /** Has its generation's assignment; heartbeating. */
    STABLE
  }

  private final String groupId;
  private final String clientId;
  private final String clientHost;
  private final ConsumerSettings settings;
  private final CoordinatorApi coordinator;

  /** Read on its monotonic clock only: every time here feeds {@link Heartbeat}'s timers. */
  private final Time time;

  private final Listener listener;
  private final Heartbeat heartbeat;
  private final EmbeddedProtocol protocol;

  private Phase phase = Phase.UNJOINED;
  private String memberId = "";
  private int generationId = -1;
  private boolean leader;

  /**
   * Invariant: empty unless STABLE; served only while the session holds ({@link #ownedPartitions}).
   */
  private List<TopicPartition> assignment = List.of();

  private boolean inFlight;
  private boolean rejoinNeeded;

  /** The client has polled since it last went quiet: the member should be in the group. */
  private boolean active;

  private GroupError fatalError;

  /** Set by {@link #leaveNow}: no more joins or heartbeats, whatever the client does. */
  private boolean closed;

  private Runnable pendingLeave;
  private String lastRebalanceReason = "";
  private final List<CompletableFuture<Void>> stableWaiters = new ArrayList<>();

  public GroupMembership(
      String groupId,
      String clientId,
      String clientHost,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      Time time,
      Listener listener) {
    this.groupId = groupId;
    this.clientId = clientId;
    this.clientHost = clientHost;
    this.settings = settings;
    this.coordinator = coordinator;
    this.time = time;
    this.listener = listener;
    this.heartbeat = new Heartbeat(settings, RETRY_BACKOFF_MS, time.monotonicMs());
    this.protocol = new EmbeddedProtocol(settings.assignors(), listener);
  }

  /**
   * The client polled (or otherwise showed it is alive): stay in, or get back in, the group. A
   * client waiting in a long poll is alive for as long as it waits ({@link #onPollStarted}).
   */
  public synchronized void onClientPoll() {
    heartbeat.poll(time.monotonicMs());
    active = true;
    if (fatalError != null && phase == Phase.UNJOINED) {
      fatalError = null; // try again on the client's next request, as a new consumer would
    }
  }

  /** A records call began: the client is alive until it ends. */
  public synchronized void onPollStarted() {
    heartbeat.pollStarted();
    onClientPoll();
  }

  /** A records call ended: the session timeout counts from now. */
  public synchronized void onPollFinished() {
    heartbeat.pollFinished(time.monotonicMs());
  }

  /** The subscription changed: rejoin with the new one. */
  public synchronized void requestRejoin(String reason) {
    rejoinNeeded = true;
    lastRebalanceReason = reason;
  }

  public synchronized boolean isStable() {
    return phase == Phase.STABLE && !rejoinNeeded;
  }

  /**
   * The error that stopped this member (invalid session timeout, incompatible assignors), if any.
   */
  public synchronized GroupError fatalError() {
    return fatalError;
  }

  public synchronized String memberId() {
    return memberId;
  }

  public synchronized int generationId() {
    return generationId;
  }

  /**
   * The partitions this member may serve now: its stable assignment, if the coordinator confirmed
   * it within the session timeout; otherwise none.
   */
  public synchronized List<TopicPartition> ownedPartitions() {
    if (phase != Phase.STABLE || heartbeat.sessionTimeoutExpired(time.monotonicMs())) {
      return List.of();
    }
    return assignment;
  }

  /** Completes when the member next has a stable assignment (now, if it has one). */
  public synchronized CompletableFuture<Void> awaitStable() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (isStable()) {
      f.complete(null);
    } else {
      stableWaiters.add(f);
    }
    return f;
  }

  /**
   * One step of the protocol, as the state requires: leave if the client went quiet, (re)join if
   * needed, heartbeat when due. Returns at once; answers arrive asynchronously and call tick again.
   */
  public void tick() {
    // Asked before taking this member's lock: the consumer answers under its subscription state's
    // lock, and calls into this member under that lock (lock order: subscription state, member).
    Set<String> topics = listener.subscribedTopics();
    Runnable action;
    synchronized (this) {
      action = nextAction(time.monotonicMs(), topics);
    }
    if (action != null) {
      action.run();
    }
  }

  private Runnable nextAction(long nowMs, Set<String> topics) {
    if (inFlight || heartbeat.inBackoff(nowMs) || closed) {
      return null;
    }
    if (!active || heartbeat.pollTimeoutExpired(nowMs)) {
      if (active) {
        active = false;
        lastRebalanceReason = "";
        if (phase != Phase.UNJOINED) {
          logger.info(
              "Consumer {} of group {} has not polled for {} ms > session.timeout.ms={}; leaving the group",
              clientId,
              groupId,
              heartbeat.msSinceLastPoll(nowMs),
              settings.sessionTimeoutMs());
        }
      }
      if (phase == Phase.UNJOINED && memberId.isEmpty()) {
        return null;
      }
      return leave(
          "the consumer stopped polling for longer than session.timeout.ms="
              + settings.sessionTimeoutMs(),
          new CompletableFuture<>());
    }
    if (fatalError != null) {
      return null;
    }
    if (phase == Phase.STABLE && !rejoinNeeded) {
      String reason = protocol.rejoinReason(topics);
      if (reason != null) {
        rejoinNeeded = true;
        lastRebalanceReason = reason;
      }
    }
    if (phase == Phase.UNJOINED || rejoinNeeded) {
      return revokeThenJoin();
    }
    if (phase == Phase.STABLE && heartbeat.shouldHeartbeat(nowMs)) {
      return sendHeartbeat();
    }
    return null;
  }

  private Runnable revokeThenJoin() {
    inFlight = true;
    rejoinNeeded = false;
    List<TopicPartition> revoked = assignment;
    String revokingMember = memberId;
    int revokingGeneration = generationId;
    assignment = List.of();
    phase = Phase.JOINING;
    return () -> {
      CompletableFuture<Void> revokedDone =
          revoked.isEmpty()
              ? CompletableFuture.completedFuture(null)
              : safely(() -> listener.onRevoked(revoked, revokingMember, revokingGeneration));
      revokedDone.whenComplete((ok, e) -> sendJoin());
    };
  }

  private void sendJoin() {
    JoinRequest request;
    Set<String> topics = listener.subscribedTopics(); // not under this lock (see tick)
    synchronized (this) {
      request =
          new JoinRequest(
              groupId,
              memberId,
              clientId,
              clientHost,
              settings.sessionTimeoutMs(),
              settings.sessionTimeoutMs(),
              ConsumerProtocol.PROTOCOL_TYPE,
              protocol.joinProtocols(topics, generationId),
              lastRebalanceReason);
    }
    coordinator.joinGroup(request).whenComplete((result, failure) -> onJoinAnswer(result, failure));
  }

  private void onJoinAnswer(JoinResult result, Throwable failure) {
    SyncRequest sync = null;
    List<CompletableFuture<Void>> released = List.of();
    synchronized (this) {
      if (failure != null || result.error() != GroupError.NONE) {
        GroupError error = failure != null ? GroupError.COORDINATOR_NOT_AVAILABLE : result.error();
        inFlight = false;
        phase = Phase.UNJOINED;
        switch (error) {
          case UNKNOWN_MEMBER_ID -> memberId = "";
          case MEMBER_ID_REQUIRED -> memberId = result.memberId(); // join again with it, at once
          case REBALANCE_IN_PROGRESS -> {}
          case INVALID_SESSION_TIMEOUT, INCONSISTENT_GROUP_PROTOCOL, INVALID_GROUP_ID -> {
            fatalError = error;
            logger.warn("Consumer {} cannot join group {}: {}", clientId, groupId, error);
            released = drainWaiters();
          }
          default -> heartbeat.backOff(time.monotonicMs());
        }
      } else {
        memberId = result.memberId();
        generationId = result.generationId();
        leader = memberId.equals(result.leaderId());
        heartbeat.joined(time.monotonicMs());
        phase = Phase.SYNCING;
        Map<String, byte[]> assignments = Map.of();
        if (leader) {
          try {
            assignments = protocol.assignAsLeader(result);
          } catch (RuntimeException e) {
            logger.error(
                "Group {} leader {} could not compute an assignment", groupId, memberId, e);
            assignments = Map.of();
          }
        }
        sync = new SyncRequest(groupId, memberId, generationId, assignments);
      }
    }
    released.forEach(w -> w.complete(null));
    if (sync != null) {
      long sentMs = time.monotonicMs();
      coordinator
          .syncGroup(sync)
          .whenComplete((answer, error) -> onSyncAnswer(answer, error, sentMs));
    } else {
      runPendingLeave();
    }
  }

  /** As for heartbeats, the assignment is confirmed as of when the sync was sent. */
  private void onSyncAnswer(SyncResult result, Throwable failure, long sentMs) {
    List<TopicPartition> assigned = null;
    List<CompletableFuture<Void>> waiters = List.of();
    synchronized (this) {
      inFlight = false;
      GroupError error = failure != null ? GroupError.COORDINATOR_NOT_AVAILABLE : result.error();
      if (error != GroupError.NONE) {
        phase = Phase.UNJOINED;
        if (error == GroupError.UNKNOWN_MEMBER_ID) {
          memberId = "";
        } else if (error != GroupError.REBALANCE_IN_PROGRESS) {
          heartbeat.backOff(time.monotonicMs());
        }
      } else {
        assignment = List.copyOf(ConsumerProtocol.decodeAssignment(result.assignment()));
        if (!leader) {
          protocol.onFollowerAssigned();
        }
        phase = Phase.STABLE;
        heartbeat.synced(sentMs, time.monotonicMs());
        assigned = assignment;
        if (!rejoinNeeded) {
          waiters = List.copyOf(stableWaiters);
          stableWaiters.clear();
        }
        logger.info(
            "Consumer {} ({}) of group {} generation {} got {}",
            clientId,
            memberId,
            groupId,
            generationId,
            assignment);
      }
    }
    if (assigned != null) {
      listener.onAssigned(assigned);
    }
    waiters.forEach(w -> w.complete(null));
    runPendingLeave();
  }

  private Runnable sendHeartbeat() {
    inFlight = true;
    String member = memberId;
    int generation = generationId;
    long sentMs = time.monotonicMs();
    return () ->
        coordinator
            .heartbeat(groupId, member, generation)
            .whenComplete((answer, failure) -> onHeartbeatAnswer(answer, failure, sentMs));
  }

  /**
   * The coordinator received the heartbeat no earlier than {@code sentMs}, so its answer confirms
   * this member as of then, not as of its arrival here.
   */
  private void onHeartbeatAnswer(GroupError answer, Throwable failure, long sentMs) {
    List<TopicPartition> lost = List.of();
    synchronized (this) {
      inFlight = false;
      long nowMs = time.monotonicMs();
      GroupError error = failure != null ? GroupError.COORDINATOR_NOT_AVAILABLE : answer;
      switch (error) {
        case NONE -> {
          heartbeat.receiveHeartbeat(sentMs);
          heartbeat.resetHeartbeatTimer(nowMs);
        }
        case REBALANCE_IN_PROGRESS -> {
          heartbeat.receiveHeartbeat(sentMs);
          rejoinNeeded = true;
          lastRebalanceReason = "";
        }
        case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> {
          // Removed from the group (or it moved on without us): the partitions are someone else's
          // already, so they are lost, not revoked (no commit could succeed).
          lost = assignment;
          assignment = List.of();
          phase = Phase.UNJOINED;
          if (error == GroupError.UNKNOWN_MEMBER_ID) {
            memberId = "";
          }
          generationId = -1;
        }
        default -> heartbeat.backOff(nowMs);
      }
    }
    if (!lost.isEmpty()) {
      listener.onLost(lost);
    }
    runPendingLeave();
  }

  /**
   * Gives up the assignment and the member id now; returns what to run once this lock is let go:
   * release the waiters, commit the revoked partitions (the listener), then LeaveGroup.
   */
  private Runnable leave(String reason, CompletableFuture<Void> left) {
    List<TopicPartition> revoked = assignment;
    String member = memberId;
    int generation = generationId;
    assignment = List.of();
    phase = Phase.UNJOINED;
    memberId = "";
    generationId = -1;
    List<CompletableFuture<Void>> waiters = drainWaiters();
    if (member.isEmpty()) {
      return () -> {
        waiters.forEach(w -> w.complete(null));
        left.complete(null);
      };
    }
    inFlight = true;
    return () -> {
      waiters.forEach(
          w -> w.complete(null)); // never under this lock: they continue into the consumer
      CompletableFuture<Void> revokedDone =
          revoked.isEmpty()
              ? CompletableFuture.completedFuture(null)
              : safely(() -> listener.onRevoked(revoked, member, generation));
      revokedDone
          .thenCompose(ok -> coordinator.leaveGroup(groupId, member, reason))
          .whenComplete(
              (answer, e) -> {
                synchronized (this) {
                  inFlight = false;
                }
                left.complete(null);
              });
    };
  }

  /** Leaves the group now (close or unsubscribe); completes when the coordinator has answered. */
  public CompletableFuture<Void> leaveNow(String reason) {
    CompletableFuture<Void> left = new CompletableFuture<>();
    Runnable action;
    synchronized (this) {
      active = false;
      closed = true;
      if (inFlight) {
        // A request is in flight: leave as soon as it is answered.
        pendingLeave =
            () -> {
              Runnable later;
              synchronized (this) {
                later = leave(reason, left);
              }
              later.run();
            };
        return left;
      }
      action = leave(reason, left);
    }
    action.run();
    return left;
  }

  /** Runs a leave that waited for the request in flight. Called with the lock not held. */
  private void runPendingLeave() {
    Runnable leave;
    synchronized (this) {
      leave = inFlight ? null : pendingLeave;
      if (leave != null) {
        pendingLeave = null;
      }
    }
    if (leave != null) {
      leave.run();
    }
  }

  /**
   * Takes the callers waiting for a stable assignment; the caller completes them once it has let go
   * of this lock (a waiter's continuation takes the consumer's lock: see the lock order).
   */
  private List<CompletableFuture<Void>> drainWaiters() {
    List<CompletableFuture<Void>> waiters = List.copyOf(stableWaiters);
    stableWaiters.clear();
    return waiters;
  }

  /** A records call gave up waiting: forget its waiter, so waiters cannot pile up. */
  public synchronized void forgetWaiter(CompletableFuture<Void> waiter) {
    stableWaiters.remove(waiter);
  }

  private static CompletableFuture<Void> safely(Supplier<CompletableFuture<Void>> call) {
    try {
      return call.get().exceptionally(e -> null);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(null);
    }
  }

  /** A one-line status for logs and admin views. */
  public synchronized String statusLine() {
    return phase
        + " member="
        + memberId
        + " generation="
        + generationId
        + (leader ? " leader" : "")
        + " assignment="
        + assignment;
  }
}
