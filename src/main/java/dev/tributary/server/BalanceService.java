package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ErrorCodeException;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.BalanceOptions;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.metadata.BalancePlanner;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in balancer (what Kafka leaves to Cruise Control): proposes a plan with {@link
 * BalancePlanner} over this broker's metadata image, and carries one out as reassignments, a few at
 * a time, then a preferred leader election for the partitions it moved, so leadership follows the
 * new preferred replicas. Protocol-neutral: REST and the launcher call it.
 *
 * <p>An execution lives on the broker that started it; the moves themselves are metadata-log state
 * ({@link dev.tributary.metadata.ReassignmentControl}), so those already started complete even if
 * this broker stops, and a new balance plans around them. One execution at a time per broker.
 *
 * <p>Concurrency: the execution's state changes under {@code this}; it advances on the scheduler
 * (every {@link #TICK_MS}) and when the controller answers.
 */
public final class BalanceService {
  private static final Logger logger = LoggerFactory.getLogger(BalanceService.class);
  static final long TICK_MS = 250;
  private static final int MAX_ATTEMPTS = 5;
  public static final int DEFAULT_MAX_CONCURRENT_MOVES = 2;

  /** How long a plan waits for the brokers' load figures before it goes on without the late. */
  public static final long DEFAULT_LOAD_TIMEOUT_MS = 2_000;

  private final RunningBroker broker;
  private final AdminService admin;
  private final AccessControl access;
  private final Scheduler scheduler;
  private final Time time;

  /** Where the brokers' load comes from; null: none is gathered, plans even out counts only. */
  private final ClusterLoads loads;

  private BalanceExecution execution;

  /** A balancer that weighs no load: its plans even out replica and leader counts only. */
  public BalanceService(
      RunningBroker broker,
      AdminService admin,
      AccessControl access,
      Scheduler scheduler,
      Time time) {
    this(broker, admin, access, scheduler, time, null, PeerLoads.NONE, DEFAULT_LOAD_TIMEOUT_MS);
  }

  /**
   * A balancer that weighs measured load: before each plan it gathers this broker's ({@code
   * localLoad}) and every other unfenced broker's ({@code peers}) figures, waiting at most {@code
   * loadTimeoutMs} (docs/adr/0026-built-in-balancer.md, amended 2026-12-04).
   */
  public BalanceService(
      RunningBroker broker,
      AdminService admin,
      AccessControl access,
      Scheduler scheduler,
      Time time,
      BrokerLoadService localLoad,
      PeerLoads peers,
      long loadTimeoutMs) {
    this.broker = broker;
    this.admin = admin;
    this.access = access;
    this.scheduler = scheduler;
    this.time = time;
    this.loads =
        localLoad == null ? null : new ClusterLoads(localLoad, peers, scheduler, loadTimeoutMs);
  }

  /**
   * The plan for the cluster as this broker sees it now: replicas and preferred leaders even across
   * the unfenced brokers, the {@code excluded} ones emptied, and each partition's replicas on
   * distinct racks when every such broker has a rack ({@link #racks}). Needs READ on the cluster.
   */
  public BalancePlan propose(RequestContext context, Set<Integer> excluded) {
    return join(proposeAsync(context, excluded)).plan();
  }

  /**
   * As {@link #propose}, weighing the load gathered from the brokers first (no thread waits for
   * them). Refusals (the ACL, an unknown excluded broker) are thrown at once.
   */
  public CompletableFuture<BalanceProposal> proposeAsync(
      RequestContext context, Set<Integer> excluded) {
    access.require(context, AclOperation.READ, ResourceType.CLUSTER, AccessControl.clusterName());
    Set<Integer> exclude = Set.copyOf(excluded);
    return gather(checkExcluded(exclude)).thenApply(gathered -> plan(exclude, gathered));
  }

  /**
   * Plans afresh and starts carrying the plan out, at most {@code maxConcurrentMoves} moves at a
   * time; returns the execution as it starts (done at once when there is nothing to do). Needs
   * ADMIN on the cluster.
   *
   * @throws ErrorCodeException REASSIGNMENT_IN_PROGRESS while another balance runs here
   */
  public ExecutionStatus execute(
      RequestContext context, Set<Integer> excluded, int maxConcurrentMoves) {
    return execute(context, excluded, maxConcurrentMoves, 0);
  }

  /**
   * As {@link #execute(RequestContext, Set, int)}; with {@code throttleBytesPerSecond} above 0 the
   * moves copy under replication throttles at that rate ({@link BalanceThrottles}), set before the
   * first move starts and removed when the run ends.
   */
  public ExecutionStatus execute(
      RequestContext context,
      Set<Integer> excluded,
      int maxConcurrentMoves,
      long throttleBytesPerSecond) {
    return join(executeAsync(context, excluded, maxConcurrentMoves, throttleBytesPerSecond));
  }

  /**
   * As {@link #execute(RequestContext, Set, int, long)}, planning with the load gathered from the
   * brokers first (no thread waits for them). Refusals are thrown at once; the future fails only
   * with REASSIGNMENT_IN_PROGRESS when another balance started here meanwhile.
   */
  public CompletableFuture<ExecutionStatus> executeAsync(
      RequestContext context,
      Set<Integer> excluded,
      int maxConcurrentMoves,
      long throttleBytesPerSecond) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    if (maxConcurrentMoves < 1 || maxConcurrentMoves > 100) {
      throw Errors.INVALID_REQUEST.exception(
          "max_concurrent_moves must be between 1 and 100, not " + maxConcurrentMoves);
    }
    if (throttleBytesPerSecond < 0) {
      throw Errors.INVALID_REQUEST.exception(
          "throttle_bytes_per_second must be at least 0 (0: no throttle), not "
              + throttleBytesPerSecond);
    }
    requireNoneRunning();
    Set<Integer> exclude = Set.copyOf(excluded);
    return gather(checkExcluded(exclude))
        .thenApply(
            gathered ->
                start(context, exclude, maxConcurrentMoves, throttleBytesPerSecond, gathered));
  }

  private synchronized void requireNoneRunning() {
    if (execution != null && execution.state == State.RUNNING) {
      throw new ErrorCodeException(
          Errors.REASSIGNMENT_IN_PROGRESS,
          "A balance is already running on broker "
              + broker.brokerId()
              + " ("
              + execution.done.size()
              + " of "
              + execution.plan.moves().size()
              + " moves done); wait for it to finish");
    }
  }

  private synchronized ExecutionStatus start(
      RequestContext context,
      Set<Integer> excluded,
      int maxConcurrentMoves,
      long throttleBytesPerSecond,
      ClusterLoads.Gathered gathered) {
    requireNoneRunning(); // one may have started while the load was gathered
    BalanceProposal proposal = plan(excluded, gathered);
    BalancePlan plan = proposal.plan();
    BalanceExecution run =
        new BalanceExecution(
            context, proposal, excluded, maxConcurrentMoves, throttleBytesPerSecond, now());
    execution = run;
    logger.info(
        "Balance started: {} move(s), {} replica(s) to copy, excluding {}{}",
        plan.moves().size(),
        plan.replicasToCopy(),
        excluded,
        throttleBytesPerSecond > 0 ? ", throttled at " + throttleBytesPerSecond + " bytes/s" : "");
    if (throttleBytesPerSecond > 0 && !plan.moves().isEmpty()) {
      run.throttlesSet = true;
      BalanceThrottles.apply(admin, context, plan, throttleBytesPerSecond)
          .whenComplete((done, failure) -> throttled(run, failure));
    } else {
      advance(run);
    }
    return run.status();
  }

  /**
   * Stops the running execution: no new move starts; the moves in flight are metadata-log state and
   * complete by themselves (cancel one with a reassignment cancel). Needs ADMIN on the cluster.
   *
   * @throws ErrorCodeException NO_REASSIGNMENT_IN_PROGRESS when none runs here
   */
  public synchronized ExecutionStatus stop(RequestContext context) {
    access.require(context, AclOperation.ADMIN, ResourceType.CLUSTER, AccessControl.clusterName());
    if (execution == null || execution.state != State.RUNNING) {
      throw new ErrorCodeException(
          Errors.NO_REASSIGNMENT_IN_PROGRESS,
          "No balance is running on broker " + broker.brokerId());
    }
    BalanceExecution run = execution;
    while (!run.pending.isEmpty()) {
      run.fail(run.pending.poll().partition(), "not started: the balance was stopped");
    }
    while (!run.retries.isEmpty()) {
      run.fail(run.retries.poll().partition(), "not started: the balance was stopped");
    }
    run.state = State.STOPPED;
    run.finishedAtMs = now();
    removeThrottles(run); // the moves in flight go on, unthrottled
    logger.info(
        "Balance stopped by request: {} of {} move(s) done, {} still moving",
        run.done.size(),
        run.plan.moves().size(),
        run.inFlight.size());
    return run.status();
  }

  /** The last execution started on this broker, running or finished. */
  public synchronized Optional<ExecutionStatus> execution() {
    return Optional.ofNullable(execution).map(BalanceExecution::status);
  }

  /** The image now, once every excluded broker is found registered in it. */
  private MetadataImage checkExcluded(Set<Integer> excluded) {
    MetadataImage image = broker.replicaManager().metadataImage();
    for (int id : excluded) {
      if (image.broker(id).isEmpty()) {
        throw Errors.INVALID_REQUEST.exception(
            "Broker " + id + " is not registered; registered: " + image.brokers().keySet());
      }
    }
    return image;
  }

  /** The load of this broker and every unfenced one in {@code image}; none without sources. */
  private CompletableFuture<ClusterLoads.Gathered> gather(MetadataImage image) {
    if (loads == null) {
      return CompletableFuture.completedFuture(ClusterLoads.NONE);
    }
    Set<Integer> ids = new TreeSet<>(image.unfencedBrokerIds());
    ids.add(broker.brokerId());
    return loads.gather(broker.brokerId(), ids);
  }

  /** Plans over the image as it is now (the load took a while), weighing what was gathered. */
  private BalanceProposal plan(Set<Integer> excluded, ClusterLoads.Gathered gathered) {
    MetadataImage image = checkExcluded(excluded);
    BalanceOptions options =
        BalanceOptions.NONE.withExcluded(excluded).withRacks(racks(image, excluded));
    if (!gathered.reports().isEmpty()) {
      options = ClusterLoads.weigh(options, image, gathered.reports());
    }
    return BalanceProposal.of(BalancePlanner.plan(image, options), gathered);
  }

  /** The result of a future of this service's, its refusal thrown as it was. */
  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * The racks of the brokers the plan may use (unfenced, not excluded), when every one of them has
   * a rack; else none, and the plan evens counts only. The planner refuses a partial map, as
   * Kafka's rack-aware assignment refuses brokers without rack information; a cluster part-way
   * through getting racks (a rolling restart) still balances, without them.
   */
  static Map<Integer, String> racks(MetadataImage image, Set<Integer> excluded) {
    Map<Integer, String> all = image.brokerRacks();
    Map<Integer, String> racks = new LinkedHashMap<>();
    for (int id : image.unfencedBrokerIds()) {
      if (excluded.contains(id)) {
        continue;
      }
      String rack = all.get(id);
      if (rack == null) {
        return Map.of();
      }
      racks.put(id, rack);
    }
    return racks;
  }

  /**
   * One step: moves that finished leave the in-flight set, new ones start up to the limit; once
   * every move is settled, the preferred leader election; then done. Reschedules itself while
   * running.
   */
  private synchronized void throttled(BalanceExecution run, Throwable failure) {
    if (failure == null) {
      advance(run);
      return;
    }
    if (run != execution || run.state != State.RUNNING) {
      return;
    }
    logger.warn("Balance not started: the replication throttles were not set", failure);
    while (!run.pending.isEmpty()) {
      run.fail(
          run.pending.poll().partition(),
          "not started: the replication throttles could not be set: " + Errors.messageOf(failure));
    }
    finish(run);
  }

  private synchronized void advance(BalanceExecution run) {
    if (run != execution || run.state != State.RUNNING) {
      return;
    }
    try {
      step(run);
    } catch (RuntimeException e) {
      // Refused now (an ACL revoked mid-run), or a bug: the run ends, saying why, rather than stay
      // "running" for good. Moves already started complete by themselves.
      logger.error("Balance stopped", e);
      for (TopicPartition tp : List.copyOf(run.inFlight.keySet())) {
        run.fail(tp, "the balance stopped: " + Errors.messageOf(e));
      }
      while (!run.pending.isEmpty()) {
        run.fail(run.pending.poll().partition(), "not started: the balance stopped");
      }
      while (!run.retries.isEmpty()) {
        run.fail(run.retries.poll().partition(), "not started: the balance stopped");
      }
      finish(run);
    }
  }

  private void step(BalanceExecution run) {
    MetadataImage image = broker.replicaManager().metadataImage();
    for (BalancePlan.Move move : List.copyOf(run.inFlight.values())) {
      if (run.starting.contains(move.partition())) {
        continue; // not committed yet: the image cannot say anything about it
      }
      Optional<PartitionImage> now = partition(image, move.partition());
      if (now.isEmpty()) {
        run.fail(move.partition(), "the partition is gone (its topic was deleted)");
      } else if (!now.get().isReassigning()) {
        if (now.get().replicas().equals(move.targetReplicas())) {
          run.inFlight.remove(move.partition());
          run.done.add(move.partition());
        } else {
          run.fail(
              move.partition(),
              "ended on " + now.get().replicas() + ", not " + move.targetReplicas());
        }
      }
    }
    Map<TopicPartition, Optional<List<Integer>>> next = new LinkedHashMap<>();
    while (run.inFlight.size() < run.maxConcurrentMoves && !run.retries.isEmpty()) {
      BalancePlan.Move move = run.retries.poll();
      next.put(move.partition(), Optional.of(move.targetReplicas()));
      run.inFlight.put(move.partition(), move);
      run.starting.add(move.partition());
    }
    while (run.inFlight.size() < run.maxConcurrentMoves && !run.pending.isEmpty()) {
      BalancePlan.Move move = run.pending.poll();
      Optional<PartitionImage> now = partition(image, move.partition());
      if (now.isEmpty()
          || now.get().isReassigning()
          || !now.get().replicas().equals(move.currentReplicas())) {
        // Someone moved it since the plan was made: a new target here would override theirs.
        run.fail(
            move.partition(),
            "changed since the plan: "
                + now.map(p -> "replicas " + p.replicas() + (p.isReassigning() ? ", moving" : ""))
                    .orElse("gone"));
        continue;
      }
      next.put(move.partition(), Optional.of(move.targetReplicas()));
      run.inFlight.put(move.partition(), move);
      run.starting.add(move.partition());
    }
    if (!next.isEmpty()) {
      admin
          .alterPartitionReassignments(run.context, next)
          .whenComplete((outcomes, failure) -> started(run, next, outcomes, failure));
    }
    if (run.pending.isEmpty() && run.retries.isEmpty() && run.inFlight.isEmpty() && !run.electing) {
      run.electing = true;
      electLeaders(run);
      return;
    }
    scheduler.schedule(TICK_MS, () -> advance(run));
  }

  private synchronized void started(
      BalanceExecution run,
      Map<TopicPartition, Optional<List<Integer>>> requested,
      Map<TopicPartition, PartitionOutcome> outcomes,
      Throwable failure) {
    for (TopicPartition tp : requested.keySet()) {
      run.starting.remove(tp); // committed and applied here (or refused): the image tells from now
      if (failure != null) {
        // No answer (a timeout, a lost response, a controller failover): the move may or may not
        // be committed. Sending the same target again is safe either way (it changes nothing if
        // it was), so it is retried with the next step, a few times.
        BalancePlan.Move move = run.inFlight.remove(tp);
        int attempts = run.attempts.merge(tp, 1, Integer::sum);
        if (move != null && attempts < MAX_ATTEMPTS && run.state == State.RUNNING) {
          run.retries.add(move);
        } else {
          run.fail(
              tp,
              "the controller did not confirm the move after "
                  + attempts
                  + " attempts: "
                  + Errors.messageOf(failure));
        }
        continue;
      }
      PartitionOutcome outcome = outcomes.get(tp);
      if (outcome != null && outcome.error() != Errors.NONE) {
        run.fail(tp, outcome.error() + ": " + outcome.message());
      }
    }
  }

  private void electLeaders(BalanceExecution run) {
    List<TopicPartition> moved = List.copyOf(run.done);
    if (moved.isEmpty()) {
      finish(run);
      return;
    }
    admin
        .electPreferredLeaders(run.context, moved)
        .whenComplete(
            (outcomes, failure) -> {
              if (failure != null) {
                logger.info(
                    "Balance: the preferred leader election failed ({}); leadership follows at"
                        + " the next automatic one",
                    Errors.messageOf(failure));
              }
              finish(run);
            });
  }

  private synchronized void finish(BalanceExecution run) {
    if (run.state != State.RUNNING) {
      return; // stopped by request meanwhile
    }
    run.state = run.failed.isEmpty() ? State.DONE : State.FAILED;
    run.finishedAtMs = now();
    removeThrottles(run);
    logger.info(
        "Balance {}: {} of {} move(s) done, {} failed, in {} ms",
        run.state.name().toLowerCase(java.util.Locale.ROOT),
        run.done.size(),
        run.plan.moves().size(),
        run.failed.size(),
        run.finishedAtMs - run.startedAtMs);
  }

  /** Removes a throttled run's throttles (once), whatever ended it; a failure is logged. */
  private void removeThrottles(BalanceExecution run) {
    if (!run.throttlesSet) {
      return;
    }
    run.throttlesSet = false;
    java.util.Set<String> topics = BalanceThrottles.topicLists(run.plan).keySet();
    BalanceThrottles.remove(admin, run.context, topics)
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                logger.warn(
                    "Balance: could not remove the replication throttles of {}: {}",
                    topics,
                    Errors.messageOf(failure));
              }
            });
  }

  private long now() {
    return time.milliseconds();
  }

  private static Optional<PartitionImage> partition(MetadataImage image, TopicPartition tp) {
    return image.topic(tp.topic()).map(TopicImage::partitions).map(p -> p.get(tp.partition()));
  }

  /** Where an execution is. */
  public enum State {
    RUNNING,
    DONE,
    FAILED,
    /** Stopped by request: no new move started; those in flight went on by themselves. */
    STOPPED
  }

  /**
   * An execution as it stands: its plan, state, and the moves done, in flight and failed (with
   * why), by partition.
   */
  public record ExecutionStatus(
      BalancePlan plan,
      State state,
      Set<Integer> excluded,
      int maxConcurrentMoves,
      List<TopicPartition> done,
      List<TopicPartition> inFlight,
      Map<TopicPartition, String> failed,
      long startedAtMs,
      long finishedAtMs,
      long throttleBytesPerSecond,
      BalanceProposal proposal) {}
}
