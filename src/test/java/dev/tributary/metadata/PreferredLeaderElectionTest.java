package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Kafka's ElectLeaders with PREFERRED over an image: topic "t" has partitions led by their
 * preferred replica (0), by another one with the preferred in sync (1), with the preferred out of
 * sync (2), and with the preferred fenced (3). Brokers 1 and 2 are alive, 3 is fenced.
 */
class PreferredLeaderElectionTest {
  private static final Uuid TOPIC_ID = new Uuid(9, 9);
  private final MetadataImage image = image();

  private static MetadataImage replayAll(MetadataImage image, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    return image;
  }

  private static MetadataImage image() {
    MetadataImage image = MetadataImage.EMPTY;
    for (int id = 1; id <= 3; id++) {
      image =
          replayAll(
              image, List.of(new MetadataRecord.RegisterBroker(id, new Uuid(id, id), "h", id)));
      if (id < 3) {
        long epoch = image.broker(id).orElseThrow().brokerEpoch();
        image = replayAll(image, List.of(new MetadataRecord.BrokerUnfenced(id, epoch)));
      }
    }
    return replayAll(
        image,
        List.of(
            new MetadataRecord.TopicCreated(TOPIC_ID, "t"),
            new MetadataRecord.PartitionChange(TOPIC_ID, 0, List.of(1, 2), List.of(1, 2), 1, 3, 5),
            new MetadataRecord.PartitionChange(TOPIC_ID, 1, List.of(1, 2), List.of(1, 2), 2, 3, 5),
            new MetadataRecord.PartitionChange(TOPIC_ID, 2, List.of(1, 2), List.of(2), 2, 3, 5),
            new MetadataRecord.PartitionChange(
                TOPIC_ID, 3, List.of(3, 2), List.of(3, 2), 2, 3, 5)));
  }

  private static TopicPartition tp(int partition) {
    return new TopicPartition("t", partition);
  }

  @Test
  void eachNamedPartitionGetsKafkasOutcomeAndOnlyElectedOnesChange() {
    PreferredLeaderElection.Result result =
        PreferredLeaderElection.elect(
            image, List.of(tp(0), tp(1), tp(2), tp(3), tp(7), new TopicPartition("missing", 0)));

    Map<TopicPartition, ElectionOutcome> outcomes = result.outcomes();
    assertThat(outcomes.get(tp(0)).error()).isEqualTo(Errors.ELECTION_NOT_NEEDED);
    assertThat(outcomes.get(tp(1))).isEqualTo(ElectionOutcome.ELECTED);
    assertThat(outcomes.get(tp(2)).error()).isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
    assertThat(outcomes.get(tp(2)).message()).contains("not in the ISR [2]");
    assertThat(outcomes.get(tp(3)).error()).isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
    assertThat(outcomes.get(tp(3)).message()).contains("not alive");
    assertThat(outcomes.get(tp(7)).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(outcomes.get(new TopicPartition("missing", 0)).error())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(outcomes.keySet())
        .as("in the order asked")
        .containsExactly(tp(0), tp(1), tp(2), tp(3), tp(7), new TopicPartition("missing", 0));

    assertThat(result.records())
        .containsExactly(
            new MetadataRecord.PartitionChange(TOPIC_ID, 1, List.of(1, 2), List.of(1, 2), 1, 4, 6));
    PartitionImage elected =
        replayAll(image, result.records()).topic("t").orElseThrow().requirePartition(1);
    assertThat(elected.leader()).isEqualTo(1);
  }

  @Test
  void overEveryPartitionThoseAlreadyLedByTheirPreferredReplicaAreLeftOut() {
    PreferredLeaderElection.Result result = PreferredLeaderElection.elect(image, null);

    assertThat(result.outcomes().keySet()).containsExactly(tp(1), tp(2), tp(3));
    assertThat(result.records()).hasSize(1);
    assertThat(ClusterControl.preferredLeaderChanges(image)).isEqualTo(result.records());
  }

  @Test
  void aPartitionNamedTwiceIsElectedOnce() {
    PreferredLeaderElection.Result result =
        PreferredLeaderElection.elect(image, List.of(tp(1), tp(1)));

    assertThat(result.records()).hasSize(1);
    assertThat(result.outcomes()).containsOnlyKeys(tp(1));
  }

  @Test
  void onceElectedASecondElectionIsNotNeeded() {
    MetadataImage after =
        replayAll(image, PreferredLeaderElection.elect(image, List.of(tp(1))).records());

    PreferredLeaderElection.Result again = PreferredLeaderElection.elect(after, List.of(tp(1)));

    assertThat(again.outcomes().get(tp(1)).error()).isEqualTo(Errors.ELECTION_NOT_NEEDED);
    assertThat(again.records()).isEmpty();
  }
}
