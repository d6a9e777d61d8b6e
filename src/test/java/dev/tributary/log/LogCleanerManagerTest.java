package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static dev.tributary.log.KeyedRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.KeyedRecords.Rec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cleaner as LogManager owns it: checkpoint file, thread lifecycle, concurrent use. */
class LogCleanerManagerTest {
  static final long T0 = 1_700_000_000_000L;
  static final TopicPartition PRICES = new TopicPartition("prices", 0);
  static final TopicPartition ORDERS = new TopicPartition("orders", 0);
  static final LogConfig COMPACTED =
      LogConfig.fromMap(
          Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "1024"));
  static final LogConfig DELETED = LogConfig.fromMap(Map.of(LogConfig.SEGMENT_BYTES, "1024"));

  @TempDir Path dataDir;
  final ManualTime time = new ManualTime(T0);

  static void append(PartitionLog log, int records) {
    for (int i = 0; i < records; i++) {
      log.appendAsLeader(batch(T0, "k" + (i % 3), "v" + i), 0);
    }
  }

  @Test
  void theFirstDirtyOffsetIsCheckpointedAndReloaded() throws Exception {
    LogManager manager = new LogManager(dataDir, time);
    PartitionLog prices = manager.getOrCreateLog(PRICES, COMPACTED);
    PartitionLog orders = manager.getOrCreateLog(ORDERS, DELETED);
    append(prices, 60);
    append(orders, 60);

    assertThat(manager.cleaner().cleanOnce()).isTrue();
    assertThat(manager.cleaner().cleanOnce()).as("only the compacted log").isFalse();
    long firstDirty = prices.cleaning().firstDirtyOffset();
    assertThat(firstDirty).isPositive();
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.CLEANER_OFFSET_CHECKPOINT)))
        .containsExactly("0", "1", "prices 0 " + firstDirty);
    List<Rec> cleaned = records(prices);
    manager.shutdown();

    LogManager reloaded = new LogManager(dataDir, time);
    Map<TopicPartition, PartitionLog> logs =
        reloaded.loadLogs(tp -> Optional.of(tp.equals(PRICES) ? COMPACTED : DELETED));
    assertThat(logs.get(PRICES).cleaning().firstDirtyOffset()).isEqualTo(firstDirty);
    assertThat(records(logs.get(PRICES))).isEqualTo(cleaned);
    assertThat(reloaded.cleaner().cleanOnce()).isFalse();
    reloaded.deleteLog(PRICES);
    assertThat(Files.readAllLines(dataDir.resolve(LogManager.CLEANER_OFFSET_CHECKPOINT)))
        .containsExactly("0", "0");
    reloaded.shutdown();
  }

  @Test
  void afterACrashTheCheckpointIsIgnoredAndEveryCompactedLogIsCleanedFromItsStart() {
    LogManager crashed = new LogManager(dataDir, time);
    PartitionLog prices = crashed.getOrCreateLog(PRICES, COMPACTED);
    append(prices, 60);
    crashed.cleaner().cleanOnce();
    crashed.runPeriodicTasks(); // checkpoints, then the process dies without a clean shutdown
    assertThat(prices.cleaning().firstDirtyOffset()).isPositive();

    LogManager restarted = new LogManager(dataDir, time);
    Map<TopicPartition, PartitionLog> logs = restarted.loadLogs(tp -> Optional.of(COMPACTED));
    assertThat(logs.get(PRICES).cleaning().firstDirtyOffset()).isZero();
    assertThat(restarted.cleaner().cleanOnce()).isTrue();
    restarted.shutdown();
  }

  @Test
  void startupStartsTheCleanerThreadAndShutdownStopsIt() throws Exception {
    LogManager manager =
        new LogManager(
            dataDir, time, Runnable::run, new LogCleaner.Config(Long.MAX_VALUE, 10, 1000, 4096));
    PartitionLog prices = manager.getOrCreateLog(PRICES, COMPACTED);
    append(prices, 60);
    manager.startup();
    assertThat(cleanerThread()).isPresent();
    long deadline = System.currentTimeMillis() + 10_000;
    while (prices.cleaning().firstDirtyOffset() == 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(5);
    }
    assertThat(prices.cleaning().firstDirtyOffset()).as("cleaned by the thread").isPositive();
    manager.shutdown();
    assertThat(cleanerThread()).isEmpty();
  }

  private static Optional<Thread> cleanerThread() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(LogCleaner.THREAD_NAME) && t.isAlive())
        .findFirst();
  }

  /**
   * Appends and full reads from the start run on their own threads while the cleaner cleans over
   * and over: every read sees increasing offsets, each record exactly as appended.
   */
  @Test
  void appendsAndReadsContinueWhileTheCleanerSwapsSegments() throws Exception {
    PartitionLog log =
        PartitionLog.open(dataDir.resolve(PRICES.dirName()), PRICES, COMPACTED, 0, true, time);
    LogCleaner cleaner =
        new LogCleaner(LogCleanerTest.UNTHROTTLED, time, () -> List.of(log), () -> {}, time::sleep);
    Map<Long, Rec> appended = new ConcurrentHashMap<>();
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < 3000; i++) {
                  String key = "k" + (i % 7);
                  long offset = log.appendAsLeader(batch(T0 + i, key, "v" + i), 0).firstOffset();
                  appended.put(offset, new Rec(offset, T0 + i, key, "v" + i));
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              } finally {
                done.set(true);
              }
            });
    Thread reader =
        new Thread(
            () -> {
              try {
                while (!done.get()) {
                  long previous = -1;
                  for (Rec rec : records(log)) {
                    assertThat(rec.offset()).isGreaterThan(previous);
                    Rec expected = appended.get(rec.offset());
                    if (expected != null) {
                      assertThat(rec).isEqualTo(expected);
                    }
                    previous = rec.offset();
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              }
            });
    writer.start();
    reader.start();
    int passes = 0;
    while (!done.get()) {
      if (cleaner.cleanOnce()) {
        passes++;
      }
    }
    writer.join();
    reader.join();
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    cleaner.cleanOnce();
    List<Rec> stored = records(log);
    List<Rec> history = new ArrayList<>(new java.util.TreeMap<>(appended).values());
    assertThat(KeyedRecords.replay(stored)).isEqualTo(KeyedRecords.replay(history));
    assertThat(passes).isPositive();
    log.close();
  }
}
