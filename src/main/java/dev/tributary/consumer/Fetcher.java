package dev.tributary.consumer;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.LeaderNotAvailableException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.consumer.ConsumerInstance.Deliverable;
import dev.tributary.consumer.ConsumerInstance.Delivery;
import dev.tributary.log.OffsetOutOfRangeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one consumer instance's assigned partitions from their leaders through the {@link
 * PartitionReader}: the offsets that pending resets ask for (Kafka's {@code OffsetFetcher}), then
 * records from every position (Kafka's {@code Fetcher}): a first round that does not wait, so that
 * one answer carries what every partition has now, as a Kafka fetch does; only if that is less than
 * {@code fetch.min.bytes} a second round with a long poll, until min bytes or the deadline. What
 * was read goes to the {@link FetchCollector}, which advances the positions.
 *
 * <p>At most one long poll per partition is outstanding, however often the client polls and however
 * early each records call returns: a later call shares it ({@link #pendingFetches}).
 *
 * <p>Thread-safety: this object's lock guards {@link #pendingFetches}. It is held while a long poll
 * is started (the reader only begins the read and calls back nothing of this instance), never while
 * taking another lock: a leaf in the lock order {@link ConsumerInstance} → {@link
 * SubscriptionState} → {@link GroupMembership}. A {@link FetchRound}'s lock is a leaf too.
 */
final class Fetcher {
  private static final Logger logger = LoggerFactory.getLogger(Fetcher.class);

  /** Kafka's max.partition.fetch.bytes default: the most one partition contributes per read. */
  static final int MAX_PARTITION_FETCH_BYTES = 1 << 20;

  private final String groupId;
  private final ConsumerSettings settings;
  private final PartitionReader reader;
  private final SubscriptionState subscriptions;
  private final FetchCollector collector;
  private final Time time;
  private final Scheduler scheduler;

  /**
   * Long polls still waiting, at most one per partition (see {@link #fetchOnce}). Invariant: each
   * entry's future is not done (a done one removes itself).
   */
  private final Map<TopicPartition, PendingFetch> pendingFetches = new HashMap<>();

  Fetcher(
      String groupId,
      ConsumerSettings settings,
      PartitionReader reader,
      SubscriptionState subscriptions,
      Time time,
      Scheduler scheduler) {
    this.groupId = groupId;
    this.settings = settings;
    this.reader = reader;
    this.subscriptions = subscriptions;
    this.collector = new FetchCollector(settings, subscriptions);
    this.time = time;
    this.scheduler = scheduler;
  }

  /**
   * Completes the pending resets of {@code partitions} with the log start offset ({@code earliest})
   * or the high watermark ({@code latest}) from each partition's leader. Fails with {@link
   * NoOffsetForPartitionException} for a partition whose strategy is {@code none}. A lookup that
   * fails (leadership moving) leaves its reset pending for the next read.
   */
  CompletableFuture<Void> resetPositionsIfNeeded(List<TopicPartition> partitions, long epoch) {
    Map<TopicPartition, String> resets = subscriptions.partitionsNeedingReset(partitions);
    List<CompletableFuture<Void>> lookups = new ArrayList<>();
    for (Map.Entry<TopicPartition, String> reset : resets.entrySet()) {
      TopicPartition tp = reset.getKey();
      String strategy = reset.getValue();
      if (strategy.equals("none")) {
        throw new NoOffsetForPartitionException(
            "Partition "
                + tp
                + " has no committed offset in group "
                + groupId
                + " and auto.offset.reset is none; seek first");
      }
      lookups.add(
          reader
              .offsets(tp)
              .handle(
                  (offsets, failure) -> {
                    if (failure == null) {
                      subscriptions.maybeCompleteReset(
                          epoch,
                          tp,
                          strategy,
                          strategy.equals("earliest")
                              ? offsets.logStartOffset()
                              : offsets.highWatermark());
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new));
  }

  /**
   * Reads every one of {@code partitions} that has a position, and delivers what was read: at most
   * {@code maxBytes} of keys and values (at least one record), up to the first record {@code
   * deliverable} refuses.
   *
   * @param deadlineMs when the long poll ends, on the monotonic clock
   */
  CompletableFuture<Delivery> fetchRecords(
      List<TopicPartition> partitions,
      long epoch,
      long deadlineMs,
      long maxBytes,
      Deliverable deliverable) {
    Map<TopicPartition, Long> starts = subscriptions.fetchPositions(partitions);
    if (starts.isEmpty()) {
      return CompletableFuture.completedFuture(new Delivery(-1, List.of()));
    }
    return round(starts, epoch, 0)
        .thenCompose(
            now -> {
              long waitMs = deadlineMs - time.monotonicMs();
              if (enough(now) || waitMs <= 0) {
                return CompletableFuture.completedFuture(now);
              }
              return round(starts, epoch, waitMs);
            })
        .thenApply(read -> collector.collect(read, epoch, maxBytes, deliverable));
  }

  private boolean enough(List<PartitionRecords> read) {
    long bytes = 0;
    for (PartitionRecords p : read) {
      bytes += p.batches().remaining();
    }
    return bytes > 0 && bytes >= settings.fetchMinBytes();
  }

  /**
   * One fetch of each partition from {@code starts}, each waiting up to {@code waitMs}; completes
   * with what was read once every partition answered, once {@code fetch.min.bytes} are in, or at
   * {@code waitMs}.
   */
  private CompletableFuture<List<PartitionRecords>> round(
      Map<TopicPartition, Long> starts, long epoch, long waitMs) {
    CompletableFuture<List<PartitionRecords>> answer = new CompletableFuture<>();
    // Without waiting every partition answers at once: take them all, as one Kafka fetch would.
    FetchRound round = new FetchRound(starts.size(), waitMs <= 0, answer);
    if (waitMs > 0) {
      Scheduler.Cancellable timer = scheduler.schedule(waitMs, round::finish);
      answer.whenComplete((v, e) -> timer.cancel());
    }
    starts.forEach(
        (tp, offset) ->
            fetchOnce(tp, offset, waitMs)
                .whenComplete(
                    (fetched, failure) -> {
                      if (failure != null) {
                        onFetchFailure(tp, offset, epoch, failure);
                        round.partitionDone(null);
                      } else {
                        round.partitionDone(
                            fetched.records().hasRemaining()
                                ? new PartitionRecords(
                                    tp, fetched.records(), offset, Long.MAX_VALUE)
                                : null);
                      }
                    }));
    return answer;
  }

  /**
   * A read of {@code tp} at {@code offset}, sharing the long poll a previous records call left
   * waiting there. Without waiting ({@code waitMs = 0}) a partition with a long poll outstanding
   * has nothing now, or that poll would have answered.
   */
  private synchronized CompletableFuture<PartitionReader.Fetched> fetchOnce(
      TopicPartition tp, long offset, long waitMs) {
    PendingFetch pending = pendingFetches.get(tp);
    if (pending != null && pending.offset() == offset && !pending.future().isDone()) {
      return waitMs <= 0
          ? CompletableFuture.completedFuture(
              new PartitionReader.Fetched(ByteBuffer.allocate(0), -1, -1))
          : pending.future();
    }
    if (waitMs <= 0) {
      return reader.fetch(tp, offset, MAX_PARTITION_FETCH_BYTES, 0);
    }
    CompletableFuture<PartitionReader.Fetched> future =
        reader.fetch(tp, offset, MAX_PARTITION_FETCH_BYTES, waitMs);
    PendingFetch started = new PendingFetch(offset, future);
    pendingFetches.put(tp, started);
    future.whenComplete(
        (v, e) -> {
          synchronized (this) {
            pendingFetches.remove(tp, started);
          }
        });
    return future;
  }

  /** A long poll of one partition that is still waiting. */
  private record PendingFetch(long offset, CompletableFuture<PartitionReader.Fetched> future) {}

  /**
   * The partitions' answers of one fetch round, gathered until all answered or min bytes are in.
   * Thread-safe; its lock is a leaf: the answer is completed, once, after letting go of it (its
   * continuations deliver, under the subscription state's lock).
   */
  private final class FetchRound {
    private final CompletableFuture<List<PartitionRecords>> answer;
    private final boolean waitForAll;
    private final List<PartitionRecords> gathered = new ArrayList<>();
    private int outstanding;

    /** Invariant: set once, by whichever of the last answer, min bytes or the timer came first. */
    private boolean finished;

    FetchRound(
        int partitions, boolean waitForAll, CompletableFuture<List<PartitionRecords>> answer) {
      this.outstanding = partitions;
      this.waitForAll = waitForAll;
      this.answer = answer;
    }

    void partitionDone(PartitionRecords records) {
      List<PartitionRecords> done;
      synchronized (this) {
        outstanding--;
        if (records != null) {
          gathered.add(records);
        }
        done = outstanding == 0 || (!waitForAll && enough(gathered)) ? take() : null;
      }
      if (done != null) {
        answer.complete(done);
      }
    }

    void finish() {
      List<PartitionRecords> done;
      synchronized (this) {
        done = take();
      }
      if (done != null) {
        answer.complete(done);
      }
    }

    /** What was gathered, the first time it is taken; null after. Called under this lock. */
    private List<PartitionRecords> take() {
      if (finished) {
        return null;
      }
      finished = true;
      return List.copyOf(gathered);
    }
  }

  private void onFetchFailure(TopicPartition tp, long offset, long epoch, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof OffsetOutOfRangeException) {
      if (subscriptions.maybeResetOutOfRange(epoch, tp, offset, settings.autoOffsetReset())) {
        logger.info(
            "Position {} of {} is out of range; resetting per auto.offset.reset={}",
            offset,
            tp,
            settings.autoOffsetReset());
      }
    } else if (!(cause instanceof NotLeaderOrFollowerException
        || cause instanceof LeaderNotAvailableException)) {
      logger.debug("Read of {} at {} failed: {}", tp, offset, cause.toString());
    }
  }
}
