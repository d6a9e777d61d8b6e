package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.FencedLeaderEpochException;
import dev.tributary.common.errors.UnknownLeaderEpochException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.OffsetOutOfRangeException;
import dev.tributary.log.PartitionLog;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FetchValidation}: KIP-320's leader epoch check, the leader's log bounds, and KIP-595's
 * diverging epoch. The log holds offsets 0-2 from leader epoch 2 and 3-4 from epoch 5.
 */
class FetchValidationTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  @TempDir Path dir;
  private ReplicaHarness harness;
  private PartitionLog log;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    harness.placeTopic("t", Map.of(), replicated(2, 1, 2));
    harness.append(TP, batch("a", "b", "c"));
    harness.move(TP, new Placement(List.of(1, 2), List.of(1, 2), 1, 5));
    harness.append(TP, batch("d", "e"));
    log = harness.partition(TP).log();
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private static PartitionFetch fetch(long fetchOffset, int lastFetchedEpoch) {
    return new PartitionFetch(TP, fetchOffset, 1 << 20, 5, lastFetchedEpoch);
  }

  @Test
  void anOlderEpochIsFencedANewerOneUnknownAndMinusOneSkipsTheCheck() {
    FetchValidation.validateLeaderEpoch(TP, 5, 5, "a fetch");
    FetchValidation.validateLeaderEpoch(TP, -1, 5, "a fetch");

    assertThatThrownBy(() -> FetchValidation.validateLeaderEpoch(TP, 4, 5, "replica 2"))
        .isInstanceOf(FencedLeaderEpochException.class)
        .hasMessageContaining("replica 2 asked for t-0 in leader epoch 4; the current epoch is 5");
    assertThatThrownBy(() -> FetchValidation.validateLeaderEpoch(TP, 6, 5, "a fetch"))
        .isInstanceOf(UnknownLeaderEpochException.class);
  }

  @Test
  void aFollowerFetchesFromWithinTheLeadersLog() {
    FetchValidation.requireInLog(log, 0, "replica 2");
    FetchValidation.requireInLog(log, 5, "replica 2");

    assertThatThrownBy(() -> FetchValidation.requireInLog(log, 6, "replica 2"))
        .isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("outside [0, 5]");
  }

  @Test
  void noLastFetchedEpochMeansNoDivergenceCheck() {
    assertThat(FetchValidation.divergingEpoch(log, fetch(4, PartitionFetch.NO_EPOCH))).isNull();
  }

  @Test
  void aFetcherWhoseEpochEndsWhereItFetchesHasNotDiverged() {
    assertThat(FetchValidation.divergingEpoch(log, fetch(3, 2))).isNull();
    assertThat(FetchValidation.divergingEpoch(log, fetch(2, 2))).isNull();
    assertThat(FetchValidation.divergingEpoch(log, fetch(5, 5))).isNull();
  }

  @Test
  void aFetcherPastTheEndOfItsEpochHereHasDiverged() {
    assertThat(FetchValidation.divergingEpoch(log, fetch(4, 2)))
        .isEqualTo(new EpochEndOffset(2, 3));
  }

  @Test
  void aFetcherWithAnEpochThisLogNeverHadDivergedAtTheEpochBelowIt() {
    assertThat(FetchValidation.divergingEpoch(log, fetch(3, 4)))
        .as("epoch 4 was never written here; epoch 2 ends at 3")
        .isEqualTo(new EpochEndOffset(2, 3));
  }

  @Test
  void anEpochNewerThanAnyHereOrAFetchBelowTheLogStartIsOutOfRange() {
    assertThatThrownBy(() -> FetchValidation.divergingEpoch(log, fetch(5, 7)))
        .isInstanceOf(OffsetOutOfRangeException.class);

    harness.followerFetch(TP, 2, 5);
    log.maybeIncrementLogStartOffset(3);
    assertThatThrownBy(() -> FetchValidation.divergingEpoch(log, fetch(2, 2)))
        .isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("below the log start offset 3");
  }
}
