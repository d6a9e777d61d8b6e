package dev.tributary.group;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.common.ManualClock;
import dev.tributary.common.Scheduler;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.DescribeResult;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.Protocol;
import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.assignor.Subscription;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One coordinator over an {@link InMemoryCoordinatorLog} on a {@link ManualClock}, all of {@code
 * __consumer_offsets} in one partition (0), and the request shapes the tests send. Completions run
 * directly on the caller's thread by default; {@link #queuedCompletions} defers them to {@link
 * #drain}, for callers that chain coordinator calls on completions (as members do); {@link
 * #stepwise} also drains them after every timer.
 */
public final class CoordinatorHarness {
  public static final String GROUP = "orders-app";
  public static final int PARTITION = 0;
  public static final int SESSION_MS = 10_000;
  public static final int REBALANCE_MS = 20_000;
  public static final long RETENTION_MS = 7L * 24 * 3600 * 1000;
  public static final long RETENTION_CHECK_MS = 600_000;

  public final ManualClock clock = new ManualClock();
  public final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
  public final GroupCoordinatorConfig config;
  private final Deque<Runnable> completionQueue = new ArrayDeque<>();
  private final Deque<Runnable> loads = new ArrayDeque<>();
  private final boolean queued;
  private final boolean drainAfterTimers;
  private boolean deferLoads;
  private int leaderEpoch;
  public GroupCoordinator coordinator;

  private CoordinatorHarness(
      int initialRebalanceDelayMs, boolean queued, boolean drainAfterTimers) {
    this.config =
        new GroupCoordinatorConfig(
            1, 6_000, 300_000, initialRebalanceDelayMs, 64, RETENTION_MS, RETENTION_CHECK_MS);
    this.queued = queued;
    this.drainAfterTimers = drainAfterTimers;
    this.coordinator = newCoordinator();
  }

  /** Completions run at once, on the thread that completes them. */
  public static CoordinatorHarness direct(int initialRebalanceDelayMs) {
    return new CoordinatorHarness(initialRebalanceDelayMs, false, false);
  }

  /** Completions wait for {@link #drain}, so no continuation runs under the coordinator's lock. */
  public static CoordinatorHarness queuedCompletions(int initialRebalanceDelayMs) {
    return new CoordinatorHarness(initialRebalanceDelayMs, true, false);
  }

  /**
   * Completions wait for {@link #drain}, and are drained after every timer the clock runs, as a
   * broker's completion executor would deliver them soon after: an answer then comes after the
   * events of what caused it, also within one {@link ManualClock#advance}. For the scenario
   * scripts.
   */
  public static CoordinatorHarness stepwise(int initialRebalanceDelayMs) {
    return new CoordinatorHarness(initialRebalanceDelayMs, true, true);
  }

  /** A fresh coordinator (another broker) over the same log and clock; not leading anything yet. */
  public GroupCoordinator newCoordinator() {
    Executor completions = queued ? completionQueue::add : Runnable::run;
    Executor loader =
        task -> {
          if (deferLoads) {
            loads.add(task);
          } else {
            task.run();
          }
        };
    Scheduler scheduler =
        drainAfterTimers
            ? (delayMs, task) ->
                clock.schedule(
                    delayMs,
                    () -> {
                      task.run();
                      drain();
                    })
            : clock;
    return new GroupCoordinator(config, log, clock, scheduler, new Random(7), completions, loader);
  }

  /** Loads go to a queue until {@link #runLoads}; requests meanwhile see the load in progress. */
  public void deferLoads(boolean defer) {
    this.deferLoads = defer;
  }

  public void runLoads() {
    while (!loads.isEmpty()) {
      loads.poll().run();
    }
  }

  /** This coordinator becomes leader of partition 0 in a new epoch (and loads it). */
  public CoordinatorHarness lead() {
    coordinator.onBecomeLeader(PARTITION, ++leaderEpoch);
    return this;
  }

  /** Another broker takes over: the current coordinator resigns, a new one leads and loads. */
  public void failOver() {
    coordinator.onResign(PARTITION);
    coordinator.shutdown();
    coordinator = newCoordinator();
    lead();
  }

  /** Runs queued completions, and what they cause, until none are left. */
  public void drain() {
    while (!completionQueue.isEmpty()) {
      completionQueue.poll().run();
    }
  }

  /** Advances the clock and drains completions. */
  public void advance(long ms) {
    clock.advance(ms);
    drain();
  }

  // ---------------------------------------------------------------------------------------------
  // requests

  public static byte[] subscription(String... topics) {
    return ConsumerProtocol.encodeSubscription(new Subscription(Arrays.asList(topics)));
  }

  public static List<Protocol> protocols(String... names) {
    byte[] metadata = subscription("orders");
    return Arrays.stream(names).map(n -> new Protocol(n, metadata)).toList();
  }

  public CompletableFuture<JoinResult> join(String memberId, String clientId, String... assignors) {
    return join(memberId, clientId, SESSION_MS, REBALANCE_MS, assignors);
  }

  public CompletableFuture<JoinResult> join(
      String memberId, String clientId, int sessionMs, int rebalanceMs, String... assignors) {
    String[] names = assignors.length == 0 ? new String[] {"range"} : assignors;
    JoinRequest request =
        new JoinRequest(
            GROUP,
            memberId,
            clientId,
            "/127.0.0.1",
            sessionMs,
            rebalanceMs,
            ConsumerProtocol.PROTOCOL_TYPE,
            protocols(names),
            "");
    // A new member is first told its id (MEMBER_ID_REQUIRED, KIP-394) and joins again with it.
    return coordinator
        .joinGroup(request)
        .thenCompose(
            first ->
                first.error() == GroupError.MEMBER_ID_REQUIRED
                    ? coordinator.joinGroup(
                        new JoinRequest(
                            GROUP,
                            first.memberId(),
                            clientId,
                            "/127.0.0.1",
                            sessionMs,
                            rebalanceMs,
                            ConsumerProtocol.PROTOCOL_TYPE,
                            protocols(names),
                            ""))
                    : CompletableFuture.completedFuture(first));
  }

  /** One join exactly as sent, without following MEMBER_ID_REQUIRED. */
  public CompletableFuture<JoinResult> rawJoin(String memberId, String clientId) {
    return coordinator.joinGroup(
        new JoinRequest(
            GROUP,
            memberId,
            clientId,
            "/127.0.0.1",
            SESSION_MS,
            REBALANCE_MS,
            ConsumerProtocol.PROTOCOL_TYPE,
            protocols("range"),
            ""));
  }

  public CompletableFuture<SyncResult> sync(
      String memberId, int generation, Map<String, byte[]> assignments) {
    return coordinator.syncGroup(new SyncRequest(GROUP, memberId, generation, assignments));
  }

  public CompletableFuture<SyncResult> sync(String memberId, int generation) {
    return sync(memberId, generation, Map.of());
  }

  public GroupError heartbeat(String memberId, int generation) {
    return now(coordinator.heartbeat(GROUP, memberId, generation));
  }

  public GroupError commit(String memberId, int generation, TopicPartition tp, long offset) {
    return now(commitAsync(memberId, generation, tp, offset));
  }

  public CompletableFuture<GroupError> commitAsync(
      String memberId, int generation, TopicPartition tp, long offset) {
    return coordinator.commitOffsets(GROUP, memberId, generation, Map.of(tp, offset(offset)));
  }

  public OffsetAndMetadata offset(long offset) {
    return new OffsetAndMetadata(offset, -1, "", clock.milliseconds());
  }

  /** The group's committed offsets as a fetch now answers them. */
  public Map<TopicPartition, OffsetAndMetadata> committed() {
    CoordinatorApi.OffsetFetchResult r = now(coordinator.fetchOffsets(GROUP, null));
    assertTrue(r.error() == GroupError.NONE, "fetch answered " + r.error());
    return r.offsets();
  }

  public GroupDescription describe() {
    DescribeResult r = now(coordinator.describeGroup(GROUP));
    assertTrue(r.error() == GroupError.NONE, "describe answered " + r.error());
    return r.group();
  }

  public GroupState state() {
    return describe().state();
  }

  public static byte[] assignment(TopicPartition... partitions) {
    return ConsumerProtocol.encodeAssignment(List.of(partitions));
  }

  /** A future that must be complete now; its value. */
  public <T> T now(CompletableFuture<T> future) {
    drain();
    assertTrue(future.isDone(), "expected the answer by now");
    return future.join();
  }
}
