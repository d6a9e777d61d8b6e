package dev.tributary.log;

import static dev.tributary.log.KeyedRecords.batch;
import static dev.tributary.log.KeyedRecords.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.KeyedRecords.Rec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A crash at each step of a segment swap: the next load either discards the cleaner's output (the
 * log reads as before) or completes the swap (the log reads as cleaned), and leaves no temp files.
 */
class LogCleanerRecoveryTest {
  static final TopicPartition TP = new TopicPartition("prices", 0);
  static final long T0 = 1_700_000_000_000L;

  /** Three small segments (rolled by segment.ms) that one cleaned segment replaces. */
  static final LogConfig CONFIG =
      LogConfig.fromMap(
          Map.of(
              LogConfig.CLEANUP_POLICY, "compact",
              LogConfig.SEGMENT_MS, "100",
              LogConfig.INDEX_INTERVAL_BYTES, "100"));

  @TempDir Path root;
  final ManualTime time = new ManualTime(T0);

  /** Thrown by the swap observer: like a crash, nothing after it runs and nothing cleans up. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(String step) {
      super("crash after " + step);
    }
  }

  Path dir() {
    return root.resolve(TP.dirName());
  }

  PartitionLog openWithThreeInactiveSegments() {
    PartitionLog log = PartitionLog.open(dir(), TP, CONFIG, 0, true, time);
    for (int segment = 0; segment < 3; segment++) {
      for (int i = 0; i < 8; i++) {
        log.appendAsLeader(batch(time.milliseconds(), "k" + (i % 3), "s" + segment + "v" + i), 1);
      }
      time.sleep(200); // the next append rolls
    }
    log.appendAsLeader(batch(time.milliseconds(), "k0", "active"), 1);
    assertThat(log.numberOfSegments()).isEqualTo(4);
    return log;
  }

  LogCleaner cleaner(PartitionLog log) {
    return new LogCleaner(
        LogCleanerTest.UNTHROTTLED, time, () -> List.of(log), () -> {}, time::sleep);
  }

  /** The steps {@link LogCleaning#replaceSegments} and the cleaner report, in order. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "cleaned written",
        "renamed to .swap",
        "deleted 0",
        "deleted 8",
        "deleted 16",
        "swapped"
      })
  void aCrashAfterEachSwapStepRecoversToTheOldOrTheCleanedLog(String crashStep) throws IOException {
    PartitionLog reference = openWithThreeInactiveSegments();
    List<Rec> original = records(reference);
    reference.closeHandlers();
    Path referenceDir = root.resolve("reference");
    copyDirectory(dir(), referenceDir);
    PartitionLog cleanedReference = PartitionLog.open(referenceDir, TP, CONFIG, 0, false, time);
    cleaner(cleanedReference).cleanOnce();
    List<Rec> cleaned = records(cleanedReference);
    cleanedReference.close();
    assertThat(cleaned).hasSizeLessThan(original.size());

    PartitionLog crashing = PartitionLog.open(dir(), TP, CONFIG, 0, false, time);
    assertThatThrownBy(
            () ->
                cleaner(crashing)
                    .cleanOnce(
                        step -> {
                          if (step.equals(crashStep)) {
                            throw new SimulatedCrash(step);
                          }
                        }))
        .isInstanceOf(SimulatedCrash.class);
    crashing.closeHandlers();

    PartitionLog recovered = PartitionLog.open(dir(), TP, CONFIG, 0, false, time);
    boolean committed = !crashStep.equals("cleaned written");
    assertThat(records(recovered)).isEqualTo(committed ? cleaned : original);
    assertThat(tempFiles()).isEmpty();
    assertThat(recovered.logEndOffset()).isEqualTo(original.get(original.size() - 1).offset() + 1);
    cleaner(recovered).cleanOnce();
    assertThat(records(recovered)).as("cleaning again").isEqualTo(cleaned);
    recovered.close();
  }

  @Test
  void aSwapFileWhoseRenameFromCleanedDidNotFinishIsDiscarded() throws IOException {
    PartitionLog log = openWithThreeInactiveSegments();
    List<Rec> original = records(log);
    log.close();
    String name = LogSegment.fileName(0);
    Files.write(dir().resolve(name + ".log.cleaned"), new byte[] {1, 2, 3});
    Files.write(dir().resolve(name + ".index.swap"), new byte[8]);
    Files.write(dir().resolve(name + ".timeindex.swap"), new byte[12]);

    PartitionLog recovered = PartitionLog.open(dir(), TP, CONFIG, 0, false, time);
    assertThat(records(recovered)).isEqualTo(original);
    assertThat(tempFiles()).isEmpty();
    recovered.close();
  }

  List<String> tempFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir())) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".cleaned") || n.endsWith(".swap") || n.endsWith(".deleted"))
          .toList();
    }
  }

  static void copyDirectory(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : files.toList()) {
        Files.copy(file, to.resolve(file.getFileName()));
      }
    }
  }
}
