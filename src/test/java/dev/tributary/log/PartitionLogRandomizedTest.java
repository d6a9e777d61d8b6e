package dev.tributary.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random appends, reads, flushes, truncations, retention and clean or unclean restarts against a
 * simple model: the list of acknowledged batches. After every step the log must hold exactly the
 * model (reads return the acknowledged batches in order) and the invariants must hold. An unclean
 * restart cuts a random number of unflushed bytes off the active segment, sometimes adds garbage or
 * deletes its index; the model then loses exactly the batches the cut touched, and everything below
 * the recovery point must survive.
 *
 * <p>Seeds 0..59 by default; replay one with {@code -Dtributary.seed=N}.
 */
class PartitionLogRandomizedTest {
  static final TopicPartition TP = new TopicPartition("random", 0);
  static final long T0 = 1_700_000_000_000L;
  static final int SEEDS = 60;
  static final int STEPS = 100;

  @TempDir Path root;

  record Acked(long baseOffset, long lastOffset, int sizeInBytes, byte[] content) {}

  @Test
  void randomOperationsAlwaysReadBackExactlyTheAcknowledgedBatches() {
    String fixed = System.getProperty("tributary.seed");
    long first = fixed == null ? 0 : Long.parseLong(fixed);
    long count = fixed == null ? SEEDS : 1;
    for (long seed = first; seed < first + count; seed++) {
      try {
        new Run(seed, root.resolve("seed-" + seed)).run();
      } catch (Throwable t) {
        throw new AssertionError(
            "seed " + seed + " failed; replay with -Dtributary.seed=" + seed + ": " + t, t);
      }
    }
  }

  static final class Run {
    final Random random;
    final Path dir;
    final ManualTime time = new ManualTime(T0);
    final LogConfig config;
    final List<Acked> model = new ArrayList<>();
    long modelStart;
    long modelEnd;
    PartitionLog log;
    String lastOp = "open";

    Run(long seed, Path dir) {
      this.random = new Random(seed);
      this.dir = dir;
      this.config =
          LogConfig.fromMap(
              Map.of(
                  LogConfig.SEGMENT_BYTES,
                  String.valueOf(1024 + random.nextInt(3072)),
                  LogConfig.INDEX_INTERVAL_BYTES,
                  String.valueOf(random.nextInt(600)),
                  LogConfig.SEGMENT_INDEX_BYTES,
                  String.valueOf(12 * (2 + random.nextInt(40))),
                  LogConfig.FLUSH_MESSAGES,
                  random.nextBoolean()
                      ? String.valueOf(Long.MAX_VALUE)
                      : String.valueOf(1 + random.nextInt(40))));
    }

    void run() throws IOException {
      log = PartitionLog.open(dir, TP, config, 0, true, time);
      try {
        for (int step = 0; step < STEPS; step++) {
          int op = random.nextInt(100);
          if (op < 45) {
            append();
          } else if (op < 65) {
            randomRead();
          } else if (op < 70) {
            lastOp = "flush";
            log.flush();
            assertThat(log.recoveryPoint()).isEqualTo(log.logEndOffset());
          } else if (op < 76) {
            truncate();
          } else if (op < 82) {
            lastOp = "clean restart";
            log.close();
            log =
                PartitionLog.open(
                    dir, TP, config, log.recoveryPoint(), log.logStartOffset(), true, time);
          } else if (op < 92) {
            uncleanRestart();
          } else if (op < 97) {
            retention();
          } else {
            lastOp = "sleep";
            time.sleep(random.nextInt(10_000));
          }
          checkInvariants(step);
        }
      } finally {
        log.close();
      }
    }

    void append() {
      int batches = 1 + random.nextInt(3);
      ByteBuffer[] parts = new ByteBuffer[batches];
      for (int i = 0; i < batches; i++) {
        parts[i] =
            TestBatches.batch(1 + random.nextInt(5), time.milliseconds(), random.nextInt(200));
      }
      ByteBuffer request = TestBatches.concat(parts);
      LogAppendInfo info = log.appendAsLeader(request, 1);
      lastOp = "append " + info.firstOffset() + ".." + info.lastOffset();
      assertThat(info.firstOffset()).isEqualTo(modelEnd);
      for (RecordBatch batch : TestBatches.batches(request)) {
        model.add(
            new Acked(
                batch.baseOffset(),
                batch.lastOffset(),
                batch.sizeInBytes(),
                TestBatches.content(batch)));
        modelEnd = batch.nextOffset();
      }
    }

    void randomRead() {
      long start = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
      int maxBytes = 1 + random.nextInt(3000);
      long maxOffset = random.nextBoolean() ? Long.MAX_VALUE : start + random.nextInt(20);
      boolean minOneBatch = random.nextBoolean();
      lastOp =
          "read "
              + start
              + " maxBytes="
              + maxBytes
              + " maxOffset="
              + maxOffset
              + " minOne="
              + minOneBatch;
      List<RecordBatch> read =
          TestBatches.batches(log.read(start, maxBytes, maxOffset, minOneBatch).records());

      List<Acked> expected = model.stream().filter(b -> b.lastOffset() >= start).toList();
      assertThat(read.size()).isLessThanOrEqualTo(expected.size());
      int total = 0;
      for (int i = 0; i < read.size(); i++) {
        assertThat(read.get(i).baseOffset()).isEqualTo(expected.get(i).baseOffset());
        assertThat(TestBatches.content(read.get(i))).isEqualTo(expected.get(i).content());
        assertThat(read.get(i).lastOffset()).isLessThan(maxOffset);
        total += read.get(i).sizeInBytes();
      }
      if (read.size() > 1 || !minOneBatch) {
        assertThat(total).isLessThanOrEqualTo(maxBytes);
      }
      boolean firstFits =
          !expected.isEmpty()
              && expected.get(0).lastOffset() < maxOffset
              && (minOneBatch || expected.get(0).sizeInBytes() <= maxBytes);
      assertThat(read.isEmpty()).as("empty read").isEqualTo(!firstFits);
    }

    void truncate() {
      long offset = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
      lastOp = "truncateTo " + offset;
      log.truncateTo(offset);
      if (offset >= modelEnd) {
        return;
      }
      long newEnd =
          model.stream()
              .filter(b -> b.lastOffset() >= offset)
              .findFirst()
              .orElseThrow()
              .baseOffset();
      model.removeIf(b -> b.lastOffset() >= offset);
      modelEnd = newEnd;
      if (newEnd
          < modelStart) { // the batch holding the log start offset went: start over at offset
        model.clear();
        modelStart = offset;
        modelEnd = offset;
      }
    }

    void retention() {
      long newStart = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
      lastOp = "retention to " + newStart;
      log.maybeIncrementLogStartOffset(newStart);
      log.deleteOldSegments();
      modelStart = log.logStartOffset();
      assertThat(modelStart).isGreaterThanOrEqualTo(newStart);
      model.removeIf(b -> b.lastOffset() < modelStart);
    }

    void uncleanRestart() throws IOException {
      long recoveryPoint = log.recoveryPoint();
      long logStartOffset = log.logStartOffset();
      List<Long> bases = log.segmentBaseOffsets();
      long activeBase = bases.get(bases.size() - 1);
      log.closeHandlers(); // the crash
      List<Acked> unflushed = model.stream().filter(b -> b.baseOffset() >= recoveryPoint).toList();
      assertThat(unflushed)
          .allMatch(b -> b.baseOffset() >= activeBase, "unflushed data only in the active segment");
      int unflushedBytes = unflushed.stream().mapToInt(Acked::sizeInBytes).sum();
      int cut = random.nextBoolean() ? 0 : random.nextInt(unflushedBytes + 1);
      Path active = dir.resolve(LogSegment.fileName(activeBase) + LogSegment.LOG_SUFFIX);
      try (FileChannel channel = FileChannel.open(active, StandardOpenOption.WRITE)) {
        channel.truncate(channel.size() - cut);
      }
      if (random.nextInt(4) == 0) {
        byte[] garbage = new byte[1 + random.nextInt(100)];
        random.nextBytes(garbage);
        Files.write(active, garbage, StandardOpenOption.APPEND);
      }
      if (random.nextInt(4) == 0) {
        Files.deleteIfExists(
            dir.resolve(LogSegment.fileName(activeBase) + LogSegment.INDEX_SUFFIX));
      }
      int removed = 0;
      while (removed < cut) {
        Acked lost = model.remove(model.size() - 1);
        removed += lost.sizeInBytes();
        modelEnd = lost.baseOffset();
      }
      long checkpointed =
          random.nextBoolean() ? recoveryPoint : (long) (random.nextDouble() * recoveryPoint);
      lastOp = "unclean restart cut=" + cut + " checkpoint=" + checkpointed;
      log = PartitionLog.open(dir, TP, config, checkpointed, logStartOffset, false, time);
      assertThat(log.logEndOffset())
          .as("everything flushed survives")
          .isGreaterThanOrEqualTo(recoveryPoint);
    }

    void checkInvariants(int step) {
      String where = "after step " + step + " (" + lastOp + ") " + log;
      assertThat(log.logStartOffset()).as(where).isEqualTo(modelStart);
      assertThat(log.logEndOffset()).as(where).isEqualTo(modelEnd);
      assertThat(log.recoveryPoint()).as(where).isBetween(log.logStartOffset(), log.logEndOffset());
      assertThat(log.segmentBaseOffsets().get(0))
          .as(where)
          .isLessThanOrEqualTo(log.logStartOffset());
      List<RecordBatch> all = new ArrayList<>();
      long next = modelStart;
      while (next < modelEnd) {
        List<RecordBatch> batches =
            TestBatches.batches(log.read(next, 1 << 16, Long.MAX_VALUE, true).records());
        assertThat(batches).as(where + " read at " + next).isNotEmpty();
        for (RecordBatch batch : batches) {
          batch.validate();
          all.add(batch);
          next = batch.nextOffset();
        }
      }
      assertThat(all).as(where).hasSameSizeAs(model);
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).baseOffset()).as(where).isEqualTo(model.get(i).baseOffset());
        assertThat(TestBatches.content(all.get(i))).as(where).isEqualTo(model.get(i).content());
      }
      assertThatThrownBy(() -> log.read(modelEnd + 1, 100, Long.MAX_VALUE, true))
          .isInstanceOf(OffsetOutOfRangeException.class);
    }
  }
}
