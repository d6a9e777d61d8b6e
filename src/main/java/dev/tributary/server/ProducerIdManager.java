package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.errors.ErrorCodeException;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.ProducerIdsBlock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out this broker's producer ids (Kafka's RPCProducerIdManager): from the block the
 * controller last gave it ({@link dev.tributary.metadata.ProducerIdControl}), one id per
 * InitProducerId. Once 90% of the block is used it asks for the next one in the background
 * (AllocateProducerIds), so a busy broker rarely waits; a request that finds no id left waits for
 * the block in flight. While the controller cannot be reached, requests fail with
 * COORDINATOR_LOAD_IN_PROGRESS (retriable, as in Kafka), and the next request asks again after
 * {@value #RETRY_BACKOFF_MS} ms.
 *
 * <p>Invariant (enforced in {@link #takeLocked}, the only place an id is handed out): the ids
 * handed out strictly increase, and each lies in a block the controller committed for this broker
 * (a block that does not start above every id handed out so far is refused). Blocks are committed
 * to the metadata log before the controller answers and the log's next producer id only moves up,
 * so no id goes to two producers: not across brokers, not after a restart (the unused rest of a
 * block is lost, never reused), not after a controller failover. See
 * docs/adr/0018-idempotent-producers.md.
 *
 * <p>Concurrency: thread-safe; state is guarded by this object's monitor. The allocator is called,
 * and futures completed, outside it.
 */
public final class ProducerIdManager {
  private static final Logger logger = LoggerFactory.getLogger(ProducerIdManager.class);

  /** Kafka's PidPrefetchThreshold: the next block is asked for once this much is used. */
  static final double PREFETCH_THRESHOLD = 0.90;

  /** Kafka's RetryBackoffMs: how long after a failed allocation the next may be tried. */
  static final long RETRY_BACKOFF_MS = 50;

  /** Asks the active controller for this broker's next block. */
  @FunctionalInterface
  public interface BlockAllocator {
    CompletableFuture<ProducerIdsBlock> allocate();
  }

  private final int brokerId;
  private final BlockAllocator allocator;
  private final Time time;

  /** The block ids come from; null until the first arrives. Guarded by {@code this}. */
  private ProducerIdsBlock current;

  /** The next id of {@code current} to hand out; past its end once it is used up. */
  private long nextProducerId;

  /** The block fetched ahead, taken once {@code current} is used up. */
  private ProducerIdsBlock prefetched;

  /** An allocation is in flight (at most one at a time). */
  private boolean fetching;

  /** No allocation before this monotonic time ({@link Time#monotonicMs}), after one failed. */
  private long retryNotBeforeMs;

  /** The last id handed out; the next must be above it (see the class invariant). */
  private long lastProducerId = -1;

  /** Requests that found no id left, in arrival order, waiting for the block in flight. */
  private final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();

  public ProducerIdManager(int brokerId, BlockAllocator allocator, Time time) {
    this.brokerId = brokerId;
    this.allocator = allocator;
    this.time = time;
  }

  /**
   * The next producer id: at once while the current block has one, else once the next block
   * arrives. Fails with COORDINATOR_LOAD_IN_PROGRESS when no block can be had now.
   */
  public CompletableFuture<Long> generateProducerId() {
    CompletableFuture<Long> answer;
    boolean fetch;
    synchronized (this) {
      long id = waiting.isEmpty() ? takeLocked() : -1; // first come, first served
      fetch = claimFetchLocked();
      if (id >= 0) {
        answer = CompletableFuture.completedFuture(id);
      } else if (fetching) {
        answer = new CompletableFuture<>();
        waiting.add(answer);
      } else {
        answer =
            CompletableFuture.failedFuture(
                loadInProgress("the last request for a block failed moments ago"));
      }
    }
    if (fetch) {
      fetchBlock();
    }
    return answer;
  }

  /** The next id, or -1 if both blocks are used up. The only place an id is handed out. */
  private long takeLocked() {
    if (current == null || nextProducerId > current.lastProducerId()) {
      if (prefetched == null) {
        return -1;
      }
      current = prefetched;
      prefetched = null;
      nextProducerId = current.firstProducerId();
    }
    long id = nextProducerId++;
    if (id <= lastProducerId) {
      throw new IllegalStateException(
          "producer id " + id + " would follow " + lastProducerId + ": ids must increase");
    }
    lastProducerId = id;
    return id;
  }

  /** True if the caller must ask for the next block now (and it is then in flight). */
  private boolean claimFetchLocked() {
    boolean running =
        current == null
            || nextProducerId
                >= current.firstProducerId() + (long) (current.size() * PREFETCH_THRESHOLD);
    if (fetching || prefetched != null || !running || time.monotonicMs() < retryNotBeforeMs) {
      return false;
    }
    fetching = true;
    return true;
  }

  private void fetchBlock() {
    CompletableFuture<ProducerIdsBlock> allocation;
    try {
      allocation = allocator.allocate();
    } catch (RuntimeException e) {
      allocation = CompletableFuture.failedFuture(e);
    }
    allocation.whenComplete(this::onBlock);
  }

  private void onBlock(ProducerIdsBlock block, Throwable failure) {
    List<Runnable> completions = new ArrayList<>();
    boolean fetch;
    synchronized (this) {
      fetching = false;
      String refusal = failure != null ? Errors.messageOf(failure) : refusalOf(block);
      if (refusal == null) {
        prefetched = block;
        logger.debug("Broker {} got producer ids {}", brokerId, block);
      } else {
        logger.warn("Broker {} could not get producer ids: {}", brokerId, refusal);
        retryNotBeforeMs = time.monotonicMs() + RETRY_BACKOFF_MS;
        ErrorCodeException error = loadInProgress(refusal);
        while (!waiting.isEmpty()) {
          CompletableFuture<Long> request = waiting.poll();
          completions.add(() -> request.completeExceptionally(error));
        }
      }
      while (!waiting.isEmpty()) {
        long id = takeLocked();
        if (id < 0) {
          break;
        }
        CompletableFuture<Long> request = waiting.poll();
        completions.add(() -> request.complete(id));
      }
      fetch = claimFetchLocked();
    }
    completions.forEach(Runnable::run);
    if (fetch) {
      fetchBlock();
    }
  }

  /** Why {@code block} cannot be used, or null: it must lie above every id handed out. */
  private String refusalOf(ProducerIdsBlock block) {
    long floor =
        current == null ? lastProducerId : Math.max(lastProducerId, current.lastProducerId());
    if (block == null || block.firstProducerId() <= floor) {
      return "the controller answered block " + block + ", not above producer id " + floor;
    }
    return null;
  }

  private static ErrorCodeException loadInProgress(String why) {
    return new ErrorCodeException(
        Errors.COORDINATOR_LOAD_IN_PROGRESS,
        "No producer id is available yet (" + why + "); retry");
  }

  @Override
  public synchronized String toString() {
    return "ProducerIdManager(broker "
        + brokerId
        + ", current "
        + current
        + ", next "
        + nextProducerId
        + ", prefetched "
        + prefetched
        + ", waiting "
        + waiting.size()
        + ")";
  }
}
