package dev.tributary.consumer;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.SubscriptionState.Assignment;
import dev.tributary.consumer.SubscriptionState.Unsubscribed;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.log.record.Record;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One consumer as REST Proxy's consumer API has it: created in a group, then either subscribed to
 * topics (a member of the group, partitions assigned by rebalancing) or manually assigned
 * partitions; it keeps a position per partition, returns records from there, and commits offsets to
 * the group's coordinator. Lives on the broker that created it.
 *
 * <p>A façade over the parts Kafka's consumer has: {@link SubscriptionState} (subscription or
 * assignment, positions, pending resets), {@link GroupMembership} (the member side of the group
 * protocol, while subscribed), {@link OffsetCommitter} (commits, auto-commits, committed offsets)
 * and {@link Fetcher} with its {@link FetchCollector} (reads from partition leaders, the long poll,
 * delivery). A records call runs: wait for a stable assignment (if subscribed) → positions from the
 * committed offsets → pending resets → a round without waiting, then a long poll → delivery.
 *
 * <p>Positions: a partition newly assigned starts from the group's committed offset, else per
 * {@code auto.offset.reset}; a rebalance forgets every position (the eager protocol: partitions
 * come back through the committed offset), so a member never serves a partition past what was
 * committed for it by another member. Positions advance only over records actually returned.
 *
 * <p>Invariant: records are served only from {@link #assignedPartitions()} as it is when the read
 * completes, and only if the assignment did not change while the read was in flight.
 *
 * <p>Thread-safe. This object's lock guards {@link #lastRequestMs} and {@link #closed}, and
 * serializes what changes the mode or the membership (subscribe, assign, unsubscribe, close) with
 * what acts on them (the start of a records call, the tick), so that neither sees a membership half
 * left. Lock order: this → {@link SubscriptionState} → {@link GroupMembership}; the locks of {@link
 * OffsetCommitter}, {@link Fetcher} and its rounds are leaves. The membership's listener takes only
 * the subscription state's lock. I/O futures complete without any of these locks.
 */
public final class ConsumerInstance {
  /** How an instance gets its partitions. */
  public enum Mode {
    /** Neither subscribed nor assigned: records calls are refused. Next: subscribe or assign. */
    NONE,
    /** A member of the group; partitions come from rebalancing. Next: unsubscribe (→ NONE). */
    SUBSCRIBED,
    /**
     * Partitions assigned by hand. Next: assign another list; an empty one, or unsubscribe: NONE.
     */
    ASSIGNED
  }

  private final String groupId;
  private final String instanceId;
  private final ConsumerSettings settings;
  private final CoordinatorApi coordinator;
  private final ClusterTopics topics;
  private final Time time;
  private final Scheduler scheduler;
  private final String clientHost;
  private final String principal;

  private final SubscriptionState subscriptions;
  private final OffsetCommitter committer;
  private final Fetcher fetcher;

  /** When the last request came, on the monotonic clock ({@code consumer.instance.timeout.ms}). */
  private long lastRequestMs;

  /** Set once, by {@link #close}: the instance serves nothing more. */
  private boolean closed;

  public ConsumerInstance(
      String groupId,
      String instanceId,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      PartitionReader reader,
      ClusterTopics topics,
      Time time,
      Scheduler scheduler,
      String clientHost) {
    this(
        groupId,
        instanceId,
        settings,
        coordinator,
        reader,
        topics,
        time,
        scheduler,
        clientHost,
        "User:ANONYMOUS");
  }

  /**
   * @param principal who created this instance: only the same principal may use it
   */
  public ConsumerInstance(
      String groupId,
      String instanceId,
      ConsumerSettings settings,
      CoordinatorApi coordinator,
      PartitionReader reader,
      ClusterTopics topics,
      Time time,
      Scheduler scheduler,
      String clientHost,
      String principal) {
    this.principal = principal;
    this.groupId = groupId;
    this.instanceId = instanceId;
    this.settings = settings;
    this.coordinator = coordinator;
    this.topics = topics;
    this.time = time;
    this.scheduler = scheduler;
    this.clientHost = clientHost;
    this.subscriptions = new SubscriptionState(topics);
    this.committer =
        new OffsetCommitter(
            groupId, instanceId, settings, coordinator, subscriptions, time, scheduler);
    this.fetcher = new Fetcher(groupId, settings, reader, subscriptions, time, scheduler);
    this.lastRequestMs = time.monotonicMs();
  }

  public String groupId() {
    return groupId;
  }

  /** The principal that created this instance (the only one that may use it). */
  public String principal() {
    return principal;
  }

  public String instanceId() {
    return instanceId;
  }

  public ConsumerSettings settings() {
    return settings;
  }

  /** Any request on this instance: it is in use (the idle timeout restarts). */
  public synchronized void touch() {
    lastRequestMs = time.monotonicMs();
  }

  /** How long no request has come, at {@code nowMs} on the monotonic clock. */
  public synchronized long idleMs(long nowMs) {
    return nowMs - lastRequestMs;
  }

  // ---------------------------------------------------------------------------------------------
  // subscription and assignment

  /**
   * Subscribes to {@code topicList}, or to every topic matching {@code pattern}; replaces any
   * subscription.
   */
  public synchronized void subscribe(List<String> topicList, String pattern) {
    touch();
    subscriptions.subscribe(
        topicList,
        pattern,
        () ->
            new GroupMembership(
                groupId,
                instanceId,
                clientHost,
                settings,
                coordinator,
                time,
                new MembershipListener()));
  }

  /** The topics subscribed to (a pattern resolved against the topics that exist now). */
  public List<String> subscription() {
    touch();
    return subscriptions.subscription();
  }

  /** The subscribed pattern, or null. */
  public String topicPattern() {
    return subscriptions.topicPattern();
  }

  /** Leaves the group and forgets subscription, assignment and positions. */
  public void unsubscribe() {
    Unsubscribed left;
    CompletableFuture<Void> committed = CompletableFuture.completedFuture(null);
    synchronized (this) {
      touch();
      left = subscriptions.unsubscribe();
      if (left.membership() != null && settings.autoCommitEnable()) {
        committed = committer.commitConsumed(left.consumed());
      }
    }
    if (left.membership() != null) {
      // Leave only once the commit is in: a LeaveGroup that overtook it would make it fail.
      committed.thenCompose(ignored -> left.membership().leaveNow("the consumer unsubscribed"));
    }
  }

  /** Assigns partitions by hand (no group membership); an empty list unassigns. */
  public synchronized void assign(List<TopicPartition> partitions) {
    touch();
    subscriptions.assign(partitions);
  }

  /** The partitions this instance reads now: its manual assignment, or its group assignment. */
  public List<TopicPartition> assignedPartitions() {
    return subscriptions.assignedPartitions();
  }

  // ---------------------------------------------------------------------------------------------
  // positions

  public void seek(Map<TopicPartition, Long> offsets) {
    touch();
    subscriptions.seek(offsets);
  }

  public void seekToBeginning(List<TopicPartition> partitions) {
    touch();
    subscriptions.requestOffsetReset(partitions, "earliest");
  }

  public void seekToEnd(List<TopicPartition> partitions) {
    touch();
    subscriptions.requestOffsetReset(partitions, "latest");
  }

  // ---------------------------------------------------------------------------------------------
  // records

  /**
   * Returns records from the assigned partitions' positions: as soon as {@code fetch.min.bytes} are
   * in hand, or at {@code timeoutMs} with what there is (perhaps nothing). While the group is still
   * rebalancing, waits for the assignment first (within the same timeout). At most {@code maxBytes}
   * of keys and values, but always at least one record if there is one.
   */
  public CompletableFuture<Delivery> records(long timeoutMs, long maxBytes) {
    return records(timeoutMs, maxBytes, record -> true);
  }

  /**
   * Which records the caller can deliver (the JSON format cannot render bytes that are not JSON).
   * Delivery stops before the first record refused: positions never pass a record the client did
   * not get.
   */
  public interface Deliverable {
    boolean accepts(Record record);
  }

  /**
   * What one records call returns: per partition, the records to deliver; and the group generation
   * they were delivered in (-1 outside a group), so that callers can check that within one
   * generation each partition went to one member.
   */
  public record Delivery(int generationId, List<PartitionRecords> partitions) {}

  /**
   * As {@link #records(long, long)}, delivering only up to the first record {@code deliverable}
   * refuses in each partition; if that is the very first record of the answer, fails with {@link
   * UndeliverableRecordException} and moves nothing.
   */
  public CompletableFuture<Delivery> records(
      long timeoutMs, long maxBytes, Deliverable deliverable) {
    CompletableFuture<Void> ready;
    long deadlineMs;
    GroupMembership polling;
    synchronized (this) {
      touch();
      if (closed) {
        throw new ConsumerInstanceNotFoundException(
            "Consumer instance " + instanceId + " was deleted");
      }
      if (subscriptions.mode() == Mode.NONE) {
        throw new IllegalConsumerStateException(
            "Consumer is not subscribed to any topics or assigned any partitions");
      }
      deadlineMs = time.monotonicMs() + timeoutMs;
      polling = subscriptions.membership();
      ready =
          polling == null ? CompletableFuture.completedFuture(null) : ready(polling, deadlineMs);
    }
    if (polling == null) {
      return ready.thenCompose(ignored -> readAssigned(deadlineMs, maxBytes, deliverable));
    }
    polling.onPollStarted();
    try {
      return ready
          .thenCompose(ignored -> readAssigned(deadlineMs, maxBytes, deliverable))
          .whenComplete((records, failure) -> polling.onPollFinished());
    } catch (RuntimeException e) {
      polling.onPollFinished();
      throw e;
    }
  }

  /** Completes once {@code member} has a stable assignment, or at the deadline. */
  private CompletableFuture<Void> ready(GroupMembership member, long deadlineMs) {
    GroupError fatal = member.fatalError();
    if (fatal != null) {
      member.onClientPoll(); // reported once; the next call tries to join again
      throw new IllegalConsumerStateException(
          "The consumer cannot join group " + groupId + ": " + describe(fatal));
    }
    if (member.isStable()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> stable = member.awaitStable();
    CompletableFuture<Void> out = new CompletableFuture<>();
    Scheduler.Cancellable timer =
        scheduler.schedule(
            Math.max(0, deadlineMs - time.monotonicMs()),
            () -> {
              member.forgetWaiter(stable);
              out.complete(null);
            });
    stable.whenComplete(
        (v, e) -> {
          timer.cancel();
          out.complete(null);
        });
    return out;
  }

  private static String describe(GroupError error) {
    return switch (error) {
      case INVALID_SESSION_TIMEOUT ->
          "its session.timeout.ms is outside the broker's group.min/max.session.timeout.ms";
      case INCONSISTENT_GROUP_PROTOCOL ->
          "none of its partition.assignment.strategy is supported by every member";
      default -> error.toString();
    };
  }

  private CompletableFuture<Delivery> readAssigned(
      long deadlineMs, long maxBytes, Deliverable deliverable) {
    Assignment assignment = subscriptions.assignment();
    List<TopicPartition> partitions = assignment.partitions();
    long epoch = assignment.epoch();
    if (partitions.isEmpty()) {
      return CompletableFuture.completedFuture(new Delivery(-1, List.of()));
    }
    return committer
        .refreshCommittedOffsetsIfNeeded(partitions, epoch, deadlineMs)
        .thenCompose(ignored -> fetcher.resetPositionsIfNeeded(partitions, epoch))
        .thenCompose(
            ignored -> fetcher.fetchRecords(partitions, epoch, deadlineMs, maxBytes, deliverable));
  }

  // ---------------------------------------------------------------------------------------------
  // offsets

  /**
   * Commits {@code offsets} (the next offset to read, per partition), or, if null, the position of
   * every assigned partition: everything returned so far.
   */
  public CompletableFuture<Void> commit(Map<TopicPartition, Long> offsets) {
    touch();
    return committer.commit(offsets);
  }

  /** The group's committed offsets for {@code partitions}. */
  public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> committed(
      List<TopicPartition> partitions) {
    touch();
    return committer.committed(partitions);
  }

  // ---------------------------------------------------------------------------------------------
  // lifecycle

  /** Periodic work: the group protocol, and auto-commit when due. */
  public void tick() {
    GroupMembership current;
    synchronized (this) {
      if (closed) {
        return;
      }
      current = subscriptions.membership();
      committer.maybeAutoCommit(time.monotonicMs());
    }
    if (current != null) {
      current.tick();
    }
  }

  /** Commits (with auto-commit), leaves the group; the instance is unusable afterwards. */
  public CompletableFuture<Void> close() {
    Unsubscribed left;
    CompletableFuture<Void> committed;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.completedFuture(null);
      }
      closed = true;
      left = subscriptions.unsubscribe(); // reads in flight now deliver nothing
      committed =
          settings.autoCommitEnable()
              ? committer.commitConsumed(left.consumed())
              : CompletableFuture.completedFuture(null);
    }
    if (left.membership() == null) {
      return committed;
    }
    return committed.thenCompose(
        ignored -> left.membership().leaveNow("the consumer instance was deleted"));
  }

  /** A one-line status for logs and the admin views. */
  public String statusLine() {
    return instanceId + " " + subscriptions.statusLine();
  }

  /** The membership, for admin views (null unless subscribed). */
  public GroupMembership membership() {
    return subscriptions.membership();
  }

  /**
   * Connects the group protocol to this instance: the subscription, the topics' partition counts,
   * and the positions, which every change of the assignment forgets (after committing the revoked
   * partitions', with auto-commit). Called by the membership without its lock; takes only the
   * subscription state's (and the committer's) locks.
   */
  private final class MembershipListener implements GroupMembership.Listener {
    @Override
    public Set<String> subscribedTopics() {
      return subscriptions.subscribedTopics();
    }

    @Override
    public Map<String, Integer> partitionCounts(Set<String> wanted) {
      Map<String, Integer> all = topics.partitionCounts(true);
      Map<String, Integer> out = new HashMap<>();
      for (String t : wanted) {
        Integer count = all.get(t);
        if (count != null && !t.equals(GroupCoordinatorConfig.OFFSETS_TOPIC)) {
          out.put(t, count);
        }
      }
      return out;
    }

    @Override
    public CompletableFuture<Void> onRevoked(
        List<TopicPartition> partitions, String memberId, int generationId) {
      SubscriptionState.Consumed consumed =
          subscriptions.revoke(partitions, memberId, generationId);
      return settings.autoCommitEnable()
          ? committer.commitConsumed(consumed)
          : CompletableFuture.completedFuture(null);
    }

    @Override
    public void onLost(List<TopicPartition> partitions) {
      subscriptions.clearPositions();
    }

    @Override
    public void onAssigned(List<TopicPartition> partitions) {
      subscriptions.clearPositions();
    }
  }
}
