package dev.tributary.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's bytes-in meter, the balancer's produce rate ({@link LeaderBytesIn}): the bytes of
 * the batches produce appended, as stored, over Kafka's 11 one-second samples (never less than 10
 * s), on the harness's manual clock.
 */
class PartitionBytesInTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  @TempDir Path dir;
  private ReplicaHarness harness;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    harness.placeTopic("t", Map.of(), Placement.replicated(0, 1, 2));
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private double bytesInPerSec() {
    return harness.partition(TP).bytesIn().perSecond(harness.clock.monotonicMs()).orElseThrow();
  }

  @Test
  void aLeaderThatNothingWasProducedToMeasuresZero() {
    assertThat(bytesInPerSec()).isZero();
  }

  @Test
  void theBytesAppendedByProduceAreSpreadOverAtLeastTenSeconds() {
    harness.append(TP, ReplicaHarness.batch("a", "b", "c"));
    long stored = harness.partition(TP).log().size();
    assertThat(stored).isPositive();

    assertThat(bytesInPerSec()).as("one batch, as stored, over 10 s").isEqualTo(stored / 10.0);

    harness.clock.advance(1_000);
    harness.append(TP, ReplicaHarness.batch("d", "e", "f"));
    long storedNow = harness.partition(TP).log().size();
    assertThat(bytesInPerSec()).isEqualTo(storedNow / 10.0);
  }

  @Test
  void bytesOlderThanTheWindowNoLongerCount() {
    harness.append(TP, ReplicaHarness.batch("a"));
    harness.clock.advance(12_000);
    long before = harness.partition(TP).log().size();
    harness.append(TP, ReplicaHarness.batch("b"));
    long second = harness.partition(TP).log().size() - before;

    assertThat(bytesInPerSec()).isEqualTo(second / 10.0);
  }

  @Test
  void aPartitionNoLongerLedHereStopsReportingAndStartsAfreshWhenLedAgain() {
    harness.append(TP, ReplicaHarness.batch("a", "b"));

    harness.move(TP, Placement.replicated(1, 2, 1));
    assertThat(harness.partition(TP).bytesIn().perSecond(harness.clock.monotonicMs())).isEmpty();

    harness.move(TP, Placement.replicated(2, 1, 2));
    assertThat(bytesInPerSec()).as("what was measured in the earlier epoch is gone").isZero();
  }

  @Test
  void aFollowerRecordsNothingEvenWhenAskedTo() {
    harness.move(TP, Placement.replicated(1, 2, 1));
    harness.partition(TP).bytesIn().record(1_000, harness.clock.monotonicMs());
    harness.move(TP, Placement.replicated(2, 1, 2));

    assertThat(bytesInPerSec()).isZero();
  }
}
