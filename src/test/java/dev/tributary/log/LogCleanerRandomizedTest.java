package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static dev.tributary.log.KeyedRecords.records;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.KeyedRecords.Rec;
import dev.tributary.log.record.CompressionType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random appends (keys from a small set, some tombstones, batches of several records, several
 * codecs), clock moves, cleaning passes and restarts, checked after every pass against the full
 * history of appends:
 *
 * <ol>
 *   <li>every record read is the one appended at that offset (offsets never change);
 *   <li>replaying the log gives the same key → value map as replaying the history;
 *   <li>below the first dirty offset each key appears at most once, and it is that key's latest
 *       record below it;
 *   <li>every key's latest record is present, unless it is a tombstone delete.retention.ms old.
 * </ol>
 *
 * The seed is printed on failure; set {@code -Dtributary.seed=N} to replay one.
 */
class LogCleanerRandomizedTest {
  static final TopicPartition TP = new TopicPartition("prices", 0);
  static final long T0 = 1_700_000_000_000L;
  static final long DELETE_RETENTION_MS = 5_000;

  @TempDir Path root;

  @Test
  void theCleanedLogMatchesTheModelForManySeeds() throws Exception {
    long base = Long.getLong("tributary.seed", System.nanoTime());
    int runs = Long.getLong("tributary.seed") != null ? 1 : 12;
    for (int run = 0; run < runs; run++) {
      long seed = base + run;
      Path dir = Files.createDirectories(root.resolve("run" + run)).resolve(TP.dirName());
      try {
        runOnce(new Random(seed), dir);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("failed with -Dtributary.seed=" + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private void runOnce(Random random, Path dir) {
    ManualTime time = new ManualTime(T0);
    LogConfig config =
        LogConfig.fromMap(
            Map.of(
                LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.SEGMENT_BYTES, String.valueOf(1024 + random.nextInt(3000)),
                LogConfig.INDEX_INTERVAL_BYTES, String.valueOf(50 + random.nextInt(500)),
                LogConfig.DELETE_RETENTION_MS, String.valueOf(DELETE_RETENTION_MS),
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, String.valueOf(random.nextDouble() * 0.6)));
    PartitionLog[] log = {PartitionLog.open(dir, TP, config, 0, true, time)};
    LogCleaner.Config cleanerConfig =
        new LogCleaner.Config(
            Long.MAX_VALUE, 0, 2 + random.nextInt(30), 512 + random.nextInt(4096));
    LogCleaner cleaner =
        new LogCleaner(cleanerConfig, time, () -> List.of(log[0]), () -> {}, time::sleep);
    Map<Long, Rec> history = new HashMap<>();
    List<Rec> ordered = new ArrayList<>();
    int keys = 3 + random.nextInt(20);
    for (int step = 0; step < 400; step++) {
      int action = random.nextInt(100);
      if (action < 80) {
        int count = 1 + random.nextInt(4);
        String[] keyValues = new String[count * 2];
        for (int i = 0; i < count; i++) {
          keyValues[2 * i] = "k" + random.nextInt(keys);
          keyValues[2 * i + 1] = random.nextInt(10) == 0 ? null : "v" + step + "." + i;
        }
        CompressionType codec =
            random.nextInt(4) == 0 ? CompressionType.GZIP : CompressionType.NONE;
        long ts = time.milliseconds();
        long offset = log[0].appendAsLeader(batch(codec, ts, keyValues), step / 100).firstOffset();
        for (int i = 0; i < count; i++) {
          Rec rec = new Rec(offset + i, ts, keyValues[2 * i], keyValues[2 * i + 1]);
          history.put(rec.offset(), rec);
          ordered.add(rec);
        }
      } else if (action < 90) {
        time.sleep(random.nextInt(2_000));
      } else if (action < 98) {
        cleaner.cleanOnce();
        check(log[0], history, ordered, time.milliseconds());
      } else {
        log[0].close();
        log[0] = PartitionLog.open(dir, TP, config, 0, true, time);
        log[0]
            .cleaning()
            .loadFirstDirtyOffset(0); // as after losing the cleaner checkpoint: all dirty
      }
    }
    time.sleep(2 * DELETE_RETENTION_MS);
    cleaner.cleanOnce();
    check(log[0], history, ordered, time.milliseconds());
    log[0].close();
  }

  private static void check(
      PartitionLog log, Map<Long, Rec> history, List<Rec> ordered, long nowMs) {
    List<Rec> stored = records(log);
    for (Rec rec : stored) {
      assertThat(rec).as("record at offset %d", rec.offset()).isEqualTo(history.get(rec.offset()));
    }
    assertThat(KeyedRecords.replay(stored)).isEqualTo(KeyedRecords.replay(ordered));

    long firstDirty = log.cleaning().firstDirtyOffset();
    Map<String, Long> latestBelowDirty = new HashMap<>();
    Map<String, Rec> latest = new HashMap<>();
    for (Rec rec : ordered) {
      if (rec.offset() < firstDirty) {
        latestBelowDirty.put(rec.key(), rec.offset());
      }
      latest.put(rec.key(), rec);
    }
    Set<String> seenBelowDirty = new HashSet<>();
    for (Rec rec : stored) {
      if (rec.offset() < firstDirty) {
        assertThat(seenBelowDirty.add(rec.key()))
            .as("key %s twice below %d", rec.key(), firstDirty)
            .isTrue();
        assertThat(rec.offset()).isEqualTo(latestBelowDirty.get(rec.key()));
      }
    }
    Set<Long> storedOffsets = new HashSet<>();
    stored.forEach(r -> storedOffsets.add(r.offset()));
    for (Rec rec : latest.values()) {
      if (rec.value() != null || rec.timestamp() > nowMs - DELETE_RETENTION_MS) {
        assertThat(storedOffsets).as("latest record of %s", rec.key()).contains(rec.offset());
      }
    }
  }
}
