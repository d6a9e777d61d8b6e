package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BalancePlan;
import dev.tributary.server.BalanceService.ExecutionStatus;
import dev.tributary.server.BalanceService.State;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of {@link BalanceService}: its plan, the moves pending, in flight, retried, done and
 * failed, and whether its throttles are set. Guarded by the service's monitor: every field changes
 * under {@code BalanceService.this}.
 */
final class BalanceExecution {
  private static final Logger logger = LoggerFactory.getLogger(BalanceService.class);

  final RequestContext context;
  final BalanceProposal proposal;
  final BalancePlan plan;
  final Set<Integer> excluded;
  final int maxConcurrentMoves;

  /** 0: not throttled. */
  final long throttleBytesPerSecond;

  /** The run's throttles are set (or being set) and not removed yet. */
  boolean throttlesSet;

  final Deque<BalancePlan.Move> pending;
  final Map<TopicPartition, BalancePlan.Move> inFlight = new LinkedHashMap<>();

  /** Moves whose start was not confirmed; sent again (as they were) before new ones. */
  final Deque<BalancePlan.Move> retries = new ArrayDeque<>();

  final Map<TopicPartition, Integer> attempts = new java.util.HashMap<>();

  /** In flight, but the controller has not answered the request that starts them yet. */
  final Set<TopicPartition> starting = new java.util.HashSet<>();

  final List<TopicPartition> done = new ArrayList<>();
  final Map<TopicPartition, String> failed = new LinkedHashMap<>();
  final long startedAtMs;
  long finishedAtMs = -1;
  boolean electing;
  State state = State.RUNNING;

  BalanceExecution(
      RequestContext context,
      BalanceProposal proposal,
      Set<Integer> excluded,
      int maxConcurrentMoves,
      long throttleBytesPerSecond,
      long startedAtMs) {
    this.context = context;
    this.proposal = proposal;
    this.plan = proposal.plan();
    this.excluded = excluded;
    this.maxConcurrentMoves = maxConcurrentMoves;
    this.throttleBytesPerSecond = throttleBytesPerSecond;
    this.pending = new ArrayDeque<>(plan.moves());
    this.startedAtMs = startedAtMs;
  }

  void fail(TopicPartition tp, String why) {
    inFlight.remove(tp);
    failed.put(tp, why);
    logger.info("Balance: the move of {} failed: {}", tp, why);
  }

  ExecutionStatus status() {
    return new ExecutionStatus(
        plan,
        state,
        excluded,
        maxConcurrentMoves,
        List.copyOf(done),
        List.copyOf(inFlight.keySet()),
        java.util.Collections.unmodifiableMap(new LinkedHashMap<>(failed)),
        startedAtMs,
        finishedAtMs,
        throttleBytesPerSecond,
        proposal);
  }
}
