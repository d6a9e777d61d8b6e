package dev.tributary.replication;

import static dev.tributary.replication.ReplicaHarness.batch;
import static dev.tributary.replication.ReplicaHarness.values;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.replication.ReplicaHarness.Placement;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication throttles (KIP-73) on the leader: broker 1 leads "moving"-0 on [1, 2, 3] with broker
 * 3 outside the ISR (a replica being added), its replica throttled on the leader side ({@code
 * leader.replication.throttled.replicas=0:1}). Over {@code leader.replication.throttled.rate}, the
 * out-of-sync follower gets no bytes while the in-sync one still gets everything; the measured rate
 * falls as the window passes, and the follower is served again. Plus the rate window itself and
 * what the configs select.
 */
class ReplicationThrottlesTest {
  private static final TopicPartition MOVING = new TopicPartition("moving", 0);
  private static final TopicPartition OTHER = new TopicPartition("moving", 1);

  @TempDir Path dir;
  private ReplicaHarness harness;

  @BeforeEach
  void setUp() {
    harness = new ReplicaHarness(dir);
    Placement adding = new Placement(List.of(1, 2, 3), List.of(1, 2), 1, 0);
    harness.placeTopic(
        "moving",
        Map.of(ReplicationThrottles.LEADER_THROTTLED_REPLICAS, "0:1,1:2"),
        adding,
        adding);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private void leaderRate(long bytesPerSecond) {
    harness.apply(
        List.of(
            new MetadataRecord.BrokerConfigChanged(
                1, BrokerConfigControl.LEADER_THROTTLED_RATE, Long.toString(bytesPerSecond))));
  }

  @Test
  void overItsRateTheLeaderSendsNothingToAnOutOfSyncFollowerAndEverythingToAnInSyncOne() {
    int size = batch("aaaaaaaaaa").remaining();
    leaderRate(size / 10); // a tenth of a batch per second: over the 10 s window, one batch
    harness.append(MOVING, batch("aaaaaaaaaa"));
    harness.append(MOVING, batch("bbbbbbbbbb"));

    FetchPartitionData first = harness.followerFetch(MOVING, 3, 0);
    assertThat(values(first.records())).as("under the rate: served").contains("aaaaaaaaaa");
    FetchPartitionData held = harness.followerFetch(MOVING, 3, 1);
    assertThat(held.records().hasRemaining()).as("over the rate: held back").isFalse();
    assertThat(held.error()).isEqualTo(dev.tributary.common.errors.Errors.NONE);
    assertThat(values(harness.followerFetch(MOVING, 2, 0).records()))
        .as("an in-sync follower is never throttled")
        .containsExactly("aaaaaaaaaa", "bbbbbbbbbb");

    harness.clock.advance(60_000); // the window passes
    assertThat(values(harness.followerFetch(MOVING, 3, 1).records())).containsExactly("bbbbbbbbbb");
  }

  @Test
  void aPartitionWhoseReplicaIsNotThrottledHereAndAnUnboundedRateAreNeverHeldBack() {
    harness.append(OTHER, batch("x")); // "1:2": throttled on broker 2, not on this leader
    leaderRate(1);
    for (int i = 0; i < 3; i++) {
      assertThat(values(harness.followerFetch(OTHER, 3, 0).records())).containsExactly("x");
    }
    harness.apply(
        List.of(
            new MetadataRecord.BrokerConfigChanged(
                1, BrokerConfigControl.LEADER_THROTTLED_RATE, null)));
    harness.append(MOVING, batch("y"));
    for (int i = 0; i < 3; i++) {
      assertThat(values(harness.followerFetch(MOVING, 3, 0).records())).containsExactly("y");
    }
  }

  @Test
  void theRateIsTheWindowsBytesOverAtLeastTenSecondsAndFallsAsSamplesAge() {
    ByteRate rate = new ByteRate();
    assertThat(rate.isExceeded(0)).as("unbounded").isFalse();
    rate.bound(1_000);
    rate.record(5_000, 0);
    assertThat(rate.rate(0)).isEqualTo(500.0);
    assertThat(rate.isExceeded(0)).isFalse();
    rate.record(6_000, 500);
    assertThat(rate.rate(500)).isEqualTo(1_100.0);
    assertThat(rate.isExceeded(500)).isTrue();
    assertThat(rate.rate(11_500)).as("the first second aged out").isLessThan(1_000.0);
    assertThat(rate.rate(30_000)).isZero();
  }

  @Test
  void theRatesFollowTheBrokersOwnValueElseTheClusterDefaultAndStarThrottlesEveryPartition() {
    ReplicationThrottles throttles = new ReplicationThrottles(2);
    MetadataImage image = harness.image();
    image =
        image.replay(
            image.lastOffset() + 1,
            new MetadataRecord.BrokerConfigChanged(
                MetadataImage.DEFAULT_BROKER, BrokerConfigControl.FOLLOWER_THROTTLED_RATE, "1"));
    throttles.onMetadata(image);
    throttles.followerFetched(OTHER, List.of(1), 100_000, 0);
    assertThat(throttles.followerHoldsBack(OTHER, List.of(1), 0))
        .as("no follower.replication.throttled.replicas on this topic")
        .isFalse();

    image =
        image.replay(
            image.lastOffset() + 1,
            new MetadataRecord.TopicConfigChanged(
                image.topic("moving").orElseThrow().topicId(),
                ReplicationThrottles.FOLLOWER_THROTTLED_REPLICAS,
                "*"));
    throttles.onMetadata(image);
    throttles.followerFetched(OTHER, List.of(1), 100_000, 0);
    assertThat(throttles.followerHoldsBack(OTHER, List.of(1), 0)).as("*: every replica").isTrue();
    assertThat(throttles.followerHoldsBack(OTHER, List.of(1, 2), 0))
        .as("never an in-sync one")
        .isFalse();

    assertThat(image.brokerConfig(2, BrokerConfigControl.FOLLOWER_THROTTLED_RATE)).hasValue("1");
    MetadataImage own =
        image.replay(
            image.lastOffset() + 1,
            new MetadataRecord.BrokerConfigChanged(
                2, BrokerConfigControl.FOLLOWER_THROTTLED_RATE, "5"));
    assertThat(own.brokerConfig(2, BrokerConfigControl.FOLLOWER_THROTTLED_RATE)).hasValue("5");
    assertThat(own.brokerConfig(3, BrokerConfigControl.FOLLOWER_THROTTLED_RATE)).hasValue("1");
  }
}
