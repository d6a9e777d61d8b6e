package dev.tributary.replication;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link ReplicaFetcher} per leader broker this broker follows partitions on, each on its
 * own thread ({@code tributary-replica-fetcher-<leader>}): one connection and one long poll per
 * (follower, leader) pair covers all the partitions between them, as in Kafka. A fetcher whose last
 * partition leaves stops.
 *
 * <p>Concurrency: every method is serialized on this object; the fetchers' threads touch only their
 * fetcher.
 */
public final class ReplicaFetcherManager implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(ReplicaFetcherManager.class);

  private final int localBrokerId;
  private final LongSupplier brokerEpoch;
  private final LeaderEndpoint endpoint;
  private final ReplicationConfig config;
  private final Time time;
  private final FollowerEvents events;
  private final ReplicationThrottles throttles;
  private final Map<Integer, Runner> runners = new HashMap<>();
  private final Map<TopicPartition, Integer> leaderOf = new HashMap<>();
  private boolean closed;

  /** False for simulations: no threads; the caller steps each fetcher with {@link #fetcher}. */
  private final boolean startThreads;

  /**
   * Fetching is paused until this monotonic time ({@link Time#monotonicMs}: a jump of the wall
   * clock must neither end the dashboard's "pause replication" fault early nor stretch it); 0 when
   * never paused.
   */
  private volatile long pauseDeadlineMs;

  public ReplicaFetcherManager(
      int localBrokerId,
      LongSupplier brokerEpoch,
      LeaderEndpoint endpoint,
      ReplicationConfig config,
      Time time,
      FollowerEvents events) {
    this(localBrokerId, brokerEpoch, endpoint, config, time, events, true);
  }

  private ReplicaFetcherManager(
      int localBrokerId,
      LongSupplier brokerEpoch,
      LeaderEndpoint endpoint,
      ReplicationConfig config,
      Time time,
      FollowerEvents events,
      boolean startThreads) {
    this.startThreads = startThreads;
    this.localBrokerId = localBrokerId;
    this.brokerEpoch = brokerEpoch;
    this.endpoint = endpoint;
    this.config = config;
    this.time = time;
    this.events = events;
    this.throttles = new ReplicationThrottles(localBrokerId);
  }

  /**
   * The replication throttles of this broker: its fetchers (follower side) and its replica
   * manager's fetch handling (leader side) share them.
   */
  public ReplicationThrottles throttles() {
    return throttles;
  }

  /**
   * A manager that starts no threads: a deterministic simulation steps each fetcher itself ({@link
   * #fetcher}).
   */
  public static ReplicaFetcherManager manual(
      int localBrokerId,
      LongSupplier brokerEpoch,
      LeaderEndpoint endpoint,
      ReplicationConfig config,
      Time time) {
    return new ReplicaFetcherManager(
        localBrokerId, brokerEpoch, endpoint, config, time, FollowerEvents.NONE, false);
  }

  /** The fetcher for {@code leaderId}, if this broker follows anything there. */
  public synchronized java.util.Optional<ReplicaFetcher> fetcher(int leaderId) {
    Runner runner = runners.get(leaderId);
    return runner == null ? java.util.Optional.empty() : java.util.Optional.of(runner.fetcher);
  }

  /** The leaders this broker fetches from. */
  public synchronized java.util.Set<Integer> leaders() {
    return java.util.Set.copyOf(runners.keySet());
  }

  /**
   * Follows {@code partition} on {@code leaderId} in {@code leaderEpoch}, reconciling its log
   * first.
   */
  public synchronized void addPartition(int leaderId, Partition partition, int leaderEpoch) {
    if (closed) {
      return;
    }
    TopicPartition tp = partition.topicPartition();
    removePartition(tp);
    Runner runner = runners.computeIfAbsent(leaderId, this::startRunner);
    runner.fetcher.addPartition(partition, leaderEpoch);
    leaderOf.put(tp, leaderId);
    runner.wake();
  }

  /** Stops following {@code tp} (it leads now, is offline, or was deleted). */
  public synchronized void removePartition(TopicPartition tp) {
    Integer leaderId = leaderOf.remove(tp);
    if (leaderId == null) {
      return;
    }
    Runner runner = runners.get(leaderId);
    runner.fetcher.removePartition(tp);
    if (runner.fetcher.isEmpty()) {
      runners.remove(leaderId);
      runner.stop();
    }
  }

  /** The leader {@code tp} is being fetched from, or -1. */
  public synchronized int leaderFor(TopicPartition tp) {
    return leaderOf.getOrDefault(tp, -1);
  }

  /**
   * Stops every fetch for {@code durationMs} from now (replicas then fall out of the ISR after the
   * lag time). A new pause replaces the one in force, so a short one ends a longer one early: the
   * runners, asleep until the old end, are woken to read the new one.
   */
  public void pauseFor(long durationMs) {
    pauseDeadlineMs = time.monotonicMs() + durationMs;
    synchronized (this) {
      runners.values().forEach(runner -> runner.fetcher.abandonInFlight());
      runners.values().forEach(Runner::wake);
    }
    logger.info("Broker {} pauses replica fetching for {} ms", localBrokerId, durationMs);
  }

  /**
   * Until when fetching is paused, in wall-clock ms for the dashboard (now plus what is left of the
   * pause), or 0 when not paused.
   */
  public long pausedUntilMs() {
    long leftMs = pauseDeadlineMs - time.monotonicMs();
    return leftMs > 0 ? time.milliseconds() + leftMs : 0;
  }

  private Runner startRunner(int leaderId) {
    Runner runner =
        new Runner(
            new ReplicaFetcher(
                localBrokerId, leaderId, brokerEpoch, endpoint, config, time, events, throttles));
    if (startThreads) {
      runner.thread.start();
    }
    return runner;
  }

  @Override
  public synchronized void close() {
    closed = true;
    runners.values().forEach(Runner::stop);
    runners.values().forEach(Runner::join);
    runners.clear();
    leaderOf.clear();
  }

  /**
   * One fetcher's thread: rounds of {@link ReplicaFetcher#doWork}, sleeping the delay each returns.
   */
  private final class Runner {
    final ReplicaFetcher fetcher;
    final Thread thread;
    private final Object signal = new Object();
    private volatile boolean running = true;

    Runner(ReplicaFetcher fetcher) {
      this.fetcher = fetcher;
      this.thread = new Thread(this::run, "tributary-replica-fetcher-" + fetcher.leaderId());
      this.thread.setDaemon(true);
    }

    private void run() {
      while (running) {
        long delayMs;
        long pausedMs = pauseDeadlineMs - time.monotonicMs();
        if (pausedMs > 0) {
          delayMs = pausedMs;
        } else {
          try {
            delayMs = fetcher.doWork();
          } catch (RuntimeException e) {
            logger.warn(
                "Replica fetcher for leader {} failed a round; backing off", fetcher.leaderId(), e);
            delayMs = config.replicaFetchBackoffMs();
          }
        }
        if (delayMs > 0 && running) {
          synchronized (signal) {
            try {
              signal.wait(delayMs);
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }
    }

    void wake() {
      synchronized (signal) {
        signal.notifyAll();
      }
    }

    void stop() {
      running = false;
      wake();
    }

    void join() {
      if (!startThreads) {
        return;
      }
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
