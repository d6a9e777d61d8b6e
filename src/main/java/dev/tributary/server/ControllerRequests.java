package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.replication.AlterPartitionRequest;
import dev.tributary.replication.FollowerEvents;
import dev.tributary.replication.Truncation;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the replication layer tells the controller, sent off the request and fetcher threads on one
 * thread of its own, {@code tributary-controller-requests}: a leader's ISR changes (AlterPartition)
 * and a fetcher's report that a leader refused its connection (the controller then checks and
 * fences it at once: docs/adr/0010-failure-detection.md).
 */
final class ControllerRequests implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(ControllerRequests.class);

  /**
   * At most one unreachable report per broker this often: often enough that a report lost to a
   * controller that was itself dying is soon sent again to its successor.
   */
  static final long UNREACHABLE_REPORT_INTERVAL_MS = 250;

  private final int brokerId;
  private final Supplier<ControllerClient> controller;
  private final Time time;
  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "tributary-controller-requests");
            thread.setDaemon(true);
            return thread;
          });

  /** When this broker last reported each broker unreachable (monotonic ms). */
  private final Map<Integer, Long> lastUnreachableReportMs = new ConcurrentHashMap<>();

  private volatile boolean closed;

  /**
   * @param controller the broker's controller client once it has one (startup creates it)
   */
  ControllerRequests(int brokerId, Supplier<ControllerClient> controller, Time time) {
    this.brokerId = brokerId;
    this.controller = controller;
    this.time = time;
  }

  /** A leader's ISR change; see {@link ControllerChannel#alterPartition}. */
  CompletableFuture<Void> alterPartition(AlterPartitionRequest request) {
    return CompletableFuture.runAsync(
        () ->
            controller
                .get()
                .alterPartition(
                    new ControllerChannel.AlterPartition(
                        request.topicId(),
                        request.topicPartition().topic(),
                        request.topicPartition().partition(),
                        request.leaderId(),
                        request.leaderEpoch(),
                        request.partitionEpoch(),
                        request.newIsr(),
                        request.brokerEpochs(),
                        request.reason())),
        executor);
  }

  /** A fetcher could not connect to {@code unreachableId}: tell the controller (rate-limited). */
  void reportUnreachable(int unreachableId) {
    long nowMs = time.monotonicMs();
    Long last = lastUnreachableReportMs.get(unreachableId);
    if (closed || (last != null && nowMs - last < UNREACHABLE_REPORT_INTERVAL_MS)) {
      return;
    }
    lastUnreachableReportMs.put(unreachableId, nowMs);
    try {
      executor.execute(
          () -> {
            try {
              controller.get().reportUnreachable(brokerId, unreachableId);
            } catch (RuntimeException e) {
              logger.debug(
                  "Could not report broker {} unreachable: {}", unreachableId, e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      // shutting down
    }
  }

  /**
   * What the replica fetchers report: an unreachable leader (rate-limited) and truncations, each
   * sent to the controller off the fetcher's thread.
   */
  FollowerEvents followerEvents() {
    return new FollowerEvents() {
      @Override
      public void leaderUnreachable(int leaderId) {
        reportUnreachable(leaderId);
      }

      @Override
      public void truncated(Truncation truncation) {
        reportTruncation(truncation);
      }
    };
  }

  /**
   * A replica here dropped records its leader never had: tell the controller, which puts it on the
   * cluster's timeline. Only the timeline misses it if the controller cannot be reached.
   */
  void reportTruncation(Truncation truncation) {
    if (closed) {
      return;
    }
    try {
      executor.execute(
          () -> {
            try {
              controller.get().reportTruncation(truncation);
            } catch (RuntimeException e) {
              logger.debug(
                  "Could not report the truncation of {}: {}",
                  truncation.topicPartition(),
                  e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      // shutting down
    }
  }

  /** No more reports; the ISR changes in flight are abandoned (the leader is stopping). */
  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
  }
}
