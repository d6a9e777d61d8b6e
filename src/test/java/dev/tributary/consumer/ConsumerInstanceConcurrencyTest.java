package dev.tributary.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorLog;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real threads, real timers: consumer instances of one group ticked, read, resubscribed, committed
 * and closed from several threads at once against a real coordinator, while the JVM is checked for
 * deadlocked threads. Catches lock-order inversions between {@link ConsumerInstance}, its {@link
 * SubscriptionState}, {@link OffsetCommitter} and {@link Fetcher}, {@link GroupMembership} and the
 * coordinator that the single-threaded tests cannot (one did exist: a member asking its consumer
 * for the subscription under its own lock, while the consumer asked the member for its id under the
 * consumer's lock).
 */
class ConsumerInstanceConcurrencyTest {
  private static final String TOPIC = "t";
  private static final int PARTITIONS = 6;
  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
  private final ExecutorService completions = Executors.newFixedThreadPool(2);
  private final ExecutorService workers = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    workers.shutdownNow();
    timers.shutdownNow();
    completions.shutdownNow();
  }

  @Test
  void consumersDrivenFromManyThreadsAtOnceNeverDeadlock() throws Exception {
    Scheduler scheduler =
        (delayMs, task) -> {
          ScheduledFuture<?> f = timers.schedule(task, delayMs, TimeUnit.MILLISECONDS);
          return () -> f.cancel(false);
        };
    GroupCoordinatorConfig config =
        new GroupCoordinatorConfig(1, 10, 60_000, 0, 4096, Long.MAX_VALUE, 3_600_000);
    GroupCoordinator coordinator =
        new GroupCoordinator(
            config,
            new AlwaysCommittingLog(),
            Time.SYSTEM,
            scheduler,
            new Random(7),
            completions,
            completions);
    coordinator.onBecomeLeader(0, 0);
    ConsumerSettings settings =
        new ConsumerSettings(
            "binary", "earliest", true, 20, 1, 0, 300, 20, List.of("range", "sticky"), 60_000);
    ClusterTopics topics = internal -> Map.of(TOPIC, PARTITIONS);
    PartitionReader reader = new StaticReader();
    List<ConsumerInstance> consumers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ConsumerInstance c =
          new ConsumerInstance(
              "g",
              "c" + i,
              settings,
              coordinator,
              reader,
              topics,
              Time.SYSTEM,
              scheduler,
              "broker-1");
      c.subscribe(List.of(TOPIC), null);
      consumers.add(c);
    }

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<Throwable> unexpected = new AtomicReference<>();
    workers.submit(
        () -> loop(running, unexpected, () -> consumers.forEach(ConsumerInstance::tick)));
    for (int w = 0; w < 3; w++) {
      Random random = new Random(w);
      workers.submit(
          () ->
              loop(
                  running,
                  unexpected,
                  () -> {
                    ConsumerInstance c = consumers.get(random.nextInt(consumers.size()));
                    switch (random.nextInt(6)) {
                      case 0, 1 -> c.records(random.nextInt(5), 1 << 20).exceptionally(e -> null);
                      case 2 -> c.assignedPartitions();
                      case 3 -> c.commit(null).exceptionally(e -> null);
                      case 4 -> c.subscribe(List.of(TOPIC), null);
                      default -> c.subscription();
                    }
                  }));
    }

    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] deadlocked = null;
    long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    while (System.nanoTime() < endNs && deadlocked == null) {
      Thread.sleep(50);
      deadlocked = threads.findDeadlockedThreads();
    }
    running.set(false);
    String report = "";
    if (deadlocked != null) {
      StringBuilder text = new StringBuilder();
      for (ThreadInfo info : threads.getThreadInfo(deadlocked, true, true)) {
        text.append(info);
      }
      report = text.toString();
    }
    assertThat(deadlocked).as(report).isNull();
    assertThat(unexpected.get()).as("an unexpected exception on a worker").isNull();
    for (ConsumerInstance c : consumers) {
      c.close().get(5, TimeUnit.SECONDS);
    }
  }

  private static void loop(
      AtomicBoolean running, AtomicReference<Throwable> unexpected, Runnable step) {
    while (running.get()) {
      try {
        step.run();
      } catch (dev.tributary.common.errors.ApiException expected) {
        // commit refused while rebalancing, and the like: part of the protocol
      } catch (RuntimeException e) {
        unexpected.compareAndSet(null, e);
      }
    }
  }

  /** Every append commits at once; nothing to load. Thread-safe. */
  private static final class AlwaysCommittingLog implements CoordinatorLog {
    @Override
    public CompletableFuture<Void> append(int partition, List<SimpleRecord> records) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public Chunk read(int partition, long fromOffset, int maxBytes) {
      return new Chunk(ByteBuffer.allocate(0), 0, 0);
    }

    @Override
    public GroupError errorFor(Throwable appendFailure) {
      return GroupError.COORDINATOR_NOT_AVAILABLE;
    }
  }

  /** Ten records per partition at offsets 0-9, immutable; past them, nothing. Thread-safe. */
  private static final class StaticReader implements PartitionReader {
    private final ByteBuffer batch;

    StaticReader() {
      List<SimpleRecord> records = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        records.add(new SimpleRecord(1_000 + i, new byte[] {(byte) i}, new byte[16]));
      }
      batch = RecordBatchBuilder.build(records, CompressionType.NONE, 0, 0).asReadOnlyBuffer();
    }

    @Override
    public CompletableFuture<Fetched> fetch(
        TopicPartition tp, long offset, int maxBytes, long maxWaitMs) {
      return CompletableFuture.completedFuture(
          new Fetched(offset < 10 ? batch.duplicate() : ByteBuffer.allocate(0), 10, 0));
    }

    @Override
    public CompletableFuture<Offsets> offsets(TopicPartition tp) {
      return CompletableFuture.completedFuture(new Offsets(0, 10));
    }
  }
}
