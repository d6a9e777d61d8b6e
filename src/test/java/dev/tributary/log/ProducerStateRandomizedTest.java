package dev.tributary.log;

import static dev.tributary.log.IdempotentBatches.batch;
import static dev.tributary.log.IdempotentBatches.copy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random histories of one log: idempotent producers that send, retry any batch they sent,
 * bump their epoch when refused; other clients; truncations; crashes, clean restarts and corrupted
 * snapshots. After every step: (1) the log's producer state equals a replay of its batches from the
 * start, so every rebuild (truncation, snapshot plus replay, a corrupt snapshot skipped) lands on
 * what appending got; (2) no producer's sequence number is stored twice. {@code -Dtributary.seed=N}
 * replays one seed.
 */
class ProducerStateRandomizedTest {
  static final TopicPartition TP = new TopicPartition("t", 0);
  static final Map<String, String> CONFIGS = Map.of(LogConfig.SEGMENT_BYTES, "1024");

  @TempDir Path root;

  @Test
  void rebuiltStateEqualsAReplayOfTheLogAndNoSequenceIsStoredTwice() throws IOException {
    long fixed = Long.getLong("tributary.seed", -1);
    int duplicates = 0;
    int rebuilds = 0;
    for (long seed = fixed >= 0 ? fixed : 0; seed < (fixed >= 0 ? fixed + 1 : 12); seed++) {
      Run run = new Run(seed, root.resolve("seed-" + seed));
      try {
        run.steps(250);
        duplicates += run.duplicates;
        rebuilds += run.rebuilds;
      } catch (Throwable e) {
        throw new AssertionError(
            "seed " + seed + " (rerun with -Dtributary.seed=" + seed + ")\n" + run.history, e);
      } finally {
        run.log.close();
      }
    }
    assertThat(duplicates).as("retries answered as duplicates").isGreaterThan(100);
    assertThat(rebuilds).as("truncations and restarts").isGreaterThan(100);
  }

  private static final class Producer {
    final long id;
    short epoch;
    int nextSeq;
    final List<ByteBuffer> sent = new ArrayList<>();

    Producer(long id) {
      this.id = id;
    }
  }

  private static final class Run {
    final Random random;
    final Path dir;
    final ManualTime time = new ManualTime(1_000_000);
    final List<Producer> producers = List.of(new Producer(11), new Producer(12), new Producer(13));
    final StringBuilder history = new StringBuilder();
    PartitionLog log;
    int duplicates;
    int rebuilds;

    Run(long seed, Path dir) {
      this.random = new Random(seed);
      this.dir = dir;
      log = open(true);
    }

    PartitionLog open(boolean clean) {
      return PartitionLog.open(dir, TP, LogConfig.fromMap(CONFIGS), 0, clean, time);
    }

    void steps(int n) throws IOException {
      for (int i = 0; i < n; i++) {
        history.append(step()).append('\n');
        checkInvariants();
      }
    }

    String step() throws IOException {
      int dice = random.nextInt(100);
      if (dice < 50) {
        return send(producers.get(random.nextInt(producers.size())));
      } else if (dice < 70) {
        Producer producer = producers.get(random.nextInt(producers.size()));
        if (producer.sent.isEmpty()) {
          return "nothing to retry";
        }
        ByteBuffer retry = producer.sent.get(random.nextInt(producer.sent.size()));
        return "retry " + outcome(producer, copy(retry));
      } else if (dice < 80) {
        log.appendAsLeader(TestBatches.batch(1 + random.nextInt(3), time.milliseconds(), 20), 0);
        return "other client";
      } else if (dice < 90) {
        long offset =
            log.logStartOffset()
                + (long) (random.nextDouble() * (log.logEndOffset() - log.logStartOffset() + 1));
        log.truncateTo(offset);
        rebuilds++;
        return "truncate to " + offset + " -> end " + log.logEndOffset();
      }
      return restart();
    }

    String send(Producer producer) {
      int count = 1 + random.nextInt(3);
      ByteBuffer request =
          batch(producer.id, producer.epoch, producer.nextSeq, count, time.milliseconds());
      producer.sent.add(copy(request));
      if (producer.sent.size() > 12) {
        producer.sent.remove(0);
      }
      String outcome = outcome(producer, request);
      if (!outcome.startsWith("refused")) {
        producer.nextSeq += count;
      }
      return "p" + producer.id + " e" + producer.epoch + " sends " + outcome;
    }

    /** Appends {@code request}; a refused producer starts a new epoch at 0 (KIP-360). */
    String outcome(Producer producer, ByteBuffer request) {
      RecordBatch batch = new RecordBatch(request);
      String what = "seq " + batch.baseSequence() + ".." + batch.lastSequence();
      try {
        LogAppendInfo info = log.appendAsLeader(request, 0);
        if (info.recordCount() == 0) {
          duplicates++;
          return what + " duplicate of " + info.firstOffset();
        }
        return what + " at " + info.firstOffset();
      } catch (ApiException e) {
        assertThat(e.error())
            .isIn(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, Errors.INVALID_PRODUCER_EPOCH);
        if (batch.producerEpoch() == producer.epoch) {
          producer.epoch++;
          producer.nextSeq = 0;
        }
        return "refused " + what + ": " + e.error();
      }
    }

    String restart() throws IOException {
      rebuilds++;
      int how = random.nextInt(3);
      if (how == 0) {
        log.close();
        log = open(true);
        return "clean restart";
      }
      log.closeHandlers();
      if (how == 2) {
        corruptLatestSnapshot();
      }
      log = open(false);
      return how == 2 ? "crash with a corrupt snapshot" : "crash";
    }

    void corruptLatestSnapshot() throws IOException {
      try (Stream<Path> files = Files.list(dir)) {
        Path latest =
            files
                .filter(f -> ProducerSnapshotFile.offsetOf(f) >= 0)
                .max(Path::compareTo)
                .orElse(null);
        if (latest != null) {
          byte[] bytes = Files.readAllBytes(latest);
          bytes[bytes.length - 1] ^= 1;
          Files.write(latest, bytes);
        }
      }
    }

    void checkInvariants() throws IOException {
      ProducerStateManager replayed =
          ProducerStateManager.open(
              Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-model")), TP);
      Map<String, Long> stored = new HashMap<>();
      long offset = log.logStartOffset();
      while (offset < log.logEndOffset()) {
        LogReadInfo read = log.read(offset, 1 << 20, Long.MAX_VALUE, true);
        replayed.updateReplicated(read.records());
        for (RecordBatch batch : read.batches()) {
          offset = batch.nextOffset();
          if (batch.hasProducerId()) {
            for (int i = 0; i <= batch.lastOffsetDelta(); i++) {
              String key =
                  batch.producerId()
                      + "/"
                      + batch.producerEpoch()
                      + "/"
                      + (batch.baseSequence() + i);
              Long first = stored.putIfAbsent(key, batch.baseOffset() + i);
              assertThat(first)
                  .as("%s stored at %d and again at %d", key, first, batch.baseOffset() + i)
                  .isNull();
            }
          }
        }
      }
      assertThat(log.activeProducers()).as("state vs replay").isEqualTo(replayed.activeProducers());
    }
  }
}
