package dev.tributary.log;

import dev.tributary.common.Time;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.ClosedChannelException;
import java.nio.file.NoSuchFileException;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Compacts the logs whose {@code cleanup.policy} includes {@code compact} (Kafka's LogCleaner and
 * LogCleanerManager, with one cleaner thread). Each {@link #cleanOnce} picks the filthiest log that
 * {@link LogToClean#shouldClean} (largest dirty ratio) and runs one {@link Cleaner} pass over it;
 * on success the log's first dirty offset moves to where the pass ended, and the owner writes the
 * {@code cleaner-offset-checkpoint}. See docs/adr/0012-log-compaction.md.
 *
 * <p>Threads: {@link #startup} starts one daemon thread, {@code tributary-log-cleaner}, that calls
 * {@link #cleanOnce} and waits {@code backoffMs} whenever there was nothing to clean. The thread is
 * never interrupted (an interrupt during a FileChannel read would close the segment's channel for
 * every reader); {@link #shutdown} sets a flag that the pass checks at every batch, and the pass
 * then deletes its {@code .cleaned} output.
 *
 * <p>Concurrency: one pass at a time (guarded by {@code cleaning}); passes hold no partition lock
 * except inside {@link LogCleaning#replaceSegments}. Lock order: {@code cleaning}, then a partition
 * log's lock.
 */
public final class LogCleaner {
  private static final System.Logger LOG = System.getLogger(LogCleaner.class.getName());

  static final String THREAD_NAME = "tributary-log-cleaner";

  /**
   * Broker-level cleaner settings, with Kafka's names in the docs.
   *
   * @param ioMaxBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}: reads plus writes;
   *     Kafka's default is unlimited, ours 50 MiB/s so that cleaning cannot starve produce
   * @param backoffMs {@code log.cleaner.backoff.ms} (15 s): the wait when no log needs cleaning
   * @param offsetMapMaxKeys distinct keys one pass may map (Kafka sizes this in bytes with {@code
   *     log.cleaner.dedupe.buffer.size}); a log with more dirty keys is cleaned over several passes
   * @param ioBufferBytes {@code log.cleaner.io.buffer.size}: the read chunk and write buffer
   */
  public record Config(
      long ioMaxBytesPerSecond, long backoffMs, int offsetMapMaxKeys, int ioBufferBytes) {
    public static final long DEFAULT_IO_MAX_BYTES_PER_SECOND = 50L * 1024 * 1024;

    public Config {
      if (ioMaxBytesPerSecond < 1 || backoffMs < 0 || offsetMapMaxKeys < 1 || ioBufferBytes < 1) {
        throw new IllegalArgumentException("invalid log cleaner config " + this);
      }
    }

    public static Config defaults() {
      return new Config(DEFAULT_IO_MAX_BYTES_PER_SECOND, 15_000, 1_000_000, 1 << 20);
    }
  }

  /** Waits out the throttle; production waits on the shutdown signal, tests move a clock. */
  public interface Sleeper {
    void sleep(long ms) throws InterruptedException;
  }

  private final Config config;
  private final Time time;
  private final Supplier<Collection<PartitionLog>> logs;
  private final Runnable onCheckpoint;
  private final Cleaner cleaner;
  private final ReentrantLock cleaning = new ReentrantLock();
  private final CountDownLatch shutdownSignal = new CountDownLatch(1);

  /** Logs whose last pass failed, with when to try them again (monotonic ms: a backoff). */
  private final Map<PartitionLog, Long> failedUntilMs = new ConcurrentHashMap<>();

  private volatile boolean stopping;
  private Thread thread;

  /**
   * @param logs the logs to consider on each pass (only compacted ones are cleaned)
   * @param onCheckpoint called after a log's first dirty offset moved, to persist it
   */
  public LogCleaner(
      Config config, Time time, Supplier<Collection<PartitionLog>> logs, Runnable onCheckpoint) {
    this(config, time, logs, onCheckpoint, null);
  }

  /** As above, with the throttle's waits given to {@code sleeper} (for tests). */
  LogCleaner(
      Config config,
      Time time,
      Supplier<Collection<PartitionLog>> logs,
      Runnable onCheckpoint,
      Sleeper sleeper) {
    this.config = config;
    this.time = time;
    this.logs = logs;
    this.onCheckpoint = onCheckpoint;
    Sleeper waits =
        sleeper != null
            ? sleeper
            : ms -> {
              if (shutdownSignal.await(ms, TimeUnit.MILLISECONDS)) {
                throw new Cleaner.StoppedException();
              }
            };
    this.cleaner = new Cleaner(config, time, waits, () -> stopping);
  }

  public Config config() {
    return config;
  }

  /**
   * Cleans the filthiest compacted log that needs it, if any.
   *
   * @return true if a log was cleaned (its pass may have been abandoned because the log changed)
   */
  public boolean cleanOnce() {
    return cleanOnce(LocalLog.SwapObserver.NONE);
  }

  boolean cleanOnce(LocalLog.SwapObserver observer) {
    cleaning.lock();
    try {
      LogToClean filthiest = grabFilthiestLog();
      if (filthiest == null) {
        return false;
      }
      clean(filthiest, observer);
      return true;
    } finally {
      cleaning.unlock();
    }
  }

  private LogToClean grabFilthiestLog() {
    long nowMs = time.milliseconds(); // compaction lags compare with record timestamps
    long nowMonotonicMs = time.monotonicMs();
    LogToClean filthiest = null;
    for (PartitionLog log : logs.get()) {
      if (!log.config().compact()
          || failedUntilMs.getOrDefault(log, Long.MIN_VALUE) > nowMonotonicMs) {
        continue;
      }
      try {
        LogToClean candidate = LogToClean.of(log, nowMs);
        if (candidate != null
            && candidate.shouldClean()
            && (filthiest == null || candidate.cleanableRatio() > filthiest.cleanableRatio())) {
          filthiest = candidate;
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.DEBUG, "could not inspect " + log.topicPartition() + " for cleaning", e);
      }
    }
    return filthiest;
  }

  private void clean(LogToClean toClean, LocalLog.SwapObserver observer) {
    PartitionLog log = toClean.log();
    long startMs = time.monotonicMs();
    try {
      Cleaner.Result result = cleaner.clean(toClean, observer);
      failedUntilMs.remove(log);
      if (!result.completed()) {
        LOG.log(Level.INFO, "cleaning of {0} abandoned: the log changed", log.topicPartition());
        return;
      }
      if (log.cleaning()
          .maybeAdvanceFirstDirtyOffset(result.endOffset(), toClean.snapshot().truncationCount())) {
        onCheckpoint.run();
      }
      LOG.log(
          Level.INFO,
          "cleaned {0} [{1}, {2}) in {3} ms: dirty ratio {4}, {5} segment(s) replaced, {6} record(s)"
              + " removed, {7} bytes read, {8} written",
          log.topicPartition(),
          toClean.firstDirtyOffset(),
          result.endOffset(),
          time.monotonicMs() - startMs,
          String.format("%.2f", toClean.cleanableRatio()),
          result.segmentsReplaced(),
          result.recordsRemoved(),
          result.bytesRead(),
          result.bytesWritten());
    } catch (Cleaner.StoppedException e) {
      throw e;
    } catch (ClosedChannelException | NoSuchFileException e) {
      LOG.log(Level.INFO, "cleaning of {0} abandoned: a segment went away", log.topicPartition());
    } catch (IOException | RuntimeException e) {
      if (e instanceof IOException io) {
        log.storageError(
            "cleaning of " + log.topicPartition(), io); // as Kafka: the dir goes offline
      }
      failedUntilMs.put(log, time.monotonicMs() + 10 * Math.max(config.backoffMs(), 1000));
      LOG.log(Level.WARNING, "cleaning of " + log.topicPartition() + " failed; retrying later", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Cleaner.StoppedException();
    }
  }

  /** Starts the {@code tributary-log-cleaner} daemon thread. Idempotent. */
  public synchronized void startup() {
    if (thread != null || stopping) {
      return;
    }
    thread = new Thread(this::run, THREAD_NAME);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (!stopping) {
      boolean cleaned;
      try {
        cleaned = cleanOnce();
      } catch (Cleaner.StoppedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "log cleaner pass failed", e);
        cleaned = false;
      }
      if (!cleaned) {
        try {
          shutdownSignal.await(config.backoffMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * Stops the thread (an in-flight pass stops at its next batch and deletes its output) and waits
   * for it. Idempotent.
   */
  public void shutdown() {
    Thread running;
    synchronized (this) {
      stopping = true;
      shutdownSignal.countDown();
      running = thread;
    }
    if (running != null && running != Thread.currentThread()) {
      try {
        running.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Forgets a log that was deleted. */
  void forget(PartitionLog log) {
    failedUntilMs.remove(log);
  }
}
