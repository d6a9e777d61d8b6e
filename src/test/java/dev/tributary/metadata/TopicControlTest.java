package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.InvalidConfigException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TopicControlTest {
  private final TopicControl control = new TopicControl(new Random(11));

  private static MetadataImage replayAll(MetadataImage image, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    return image;
  }

  @Test
  void createTopicComputesRecordsThatReplayIntoTheTopic() {
    List<MetadataRecord> records =
        control.createTopic(
            MetadataImage.EMPTY, "orders", 3, 1, Map.of("retention.ms", "1000"), List.of(1));
    assertThat(records).first().isInstanceOf(MetadataRecord.TopicCreated.class);
    MetadataImage image = replayAll(MetadataImage.EMPTY, records);
    TopicImage topic = image.topic("orders").orElseThrow();
    assertThat(topic.partitionCount()).isEqualTo(3);
    assertThat(topic.replicationFactor()).isEqualTo(1);
    assertThat(topic.configs()).containsEntry("retention.ms", "1000");
    assertThat(topic.partitions().values())
        .allSatisfy(
            p -> {
              assertThat(p.leader()).isEqualTo(1);
              assertThat(p.isr()).containsExactly(1);
              assertThat(p.leaderEpoch()).isZero();
            });
  }

  @Test
  void computingRecordsChangesNothingUntilTheyAreReplayed() {
    control.createTopic(MetadataImage.EMPTY, "orders", 1, 1, Map.of(), List.of(1));
    assertThat(MetadataImage.EMPTY.topic("orders")).isEmpty();
  }

  @Test
  void invalidRequestsAreRefusedWithKafkasErrors() {
    MetadataImage image =
        replayAll(
            MetadataImage.EMPTY,
            control.createTopic(MetadataImage.EMPTY, "a", 1, 1, Map.of(), List.of(1)));
    assertThatThrownBy(() -> control.createTopic(image, "a", 1, 1, Map.of(), List.of(1)))
        .isInstanceOf(TopicExistsException.class);
    assertThatThrownBy(() -> control.createTopic(image, "bad name", 1, 1, Map.of(), List.of(1)))
        .isInstanceOf(InvalidTopicException.class);
    assertThatThrownBy(() -> control.createTopic(image, "..", 1, 1, Map.of(), List.of(1)))
        .isInstanceOf(InvalidTopicException.class);
    assertThatThrownBy(
            () -> control.createTopic(image, "x".repeat(250), 1, 1, Map.of(), List.of(1)))
        .isInstanceOf(InvalidTopicException.class);
    assertThatThrownBy(() -> control.createTopic(image, "b", 0, 1, Map.of(), List.of(1)))
        .isInstanceOf(InvalidPartitionsException.class);
    assertThatThrownBy(
            () -> control.createTopic(image, "b", 1, 1, Map.of("no.such.config", "1"), List.of(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("no.such.config");
    assertThatThrownBy(
            () -> control.createTopic(image, "b", 1, 1, Map.of("retention.ms", "soon"), List.of(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("retention.ms");
  }

  @Test
  void partitionsCanOnlyGrow() {
    MetadataImage image =
        replayAll(
            MetadataImage.EMPTY,
            control.createTopic(MetadataImage.EMPTY, "t", 2, 1, Map.of(), List.of(1)));
    MetadataImage grown = replayAll(image, control.createPartitions(image, "t", 5, List.of(1)));
    assertThat(grown.topic("t").orElseThrow().partitions().keySet()).containsExactly(0, 1, 2, 3, 4);
    assertThatThrownBy(() -> control.createPartitions(grown, "t", 3, List.of(1)))
        .isInstanceOf(InvalidPartitionsException.class);
    assertThatThrownBy(() -> control.createPartitions(grown, "missing", 3, List.of(1)))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }

  @Test
  void deleteRemovesTheTopicAndItsId() {
    MetadataImage image =
        replayAll(
            MetadataImage.EMPTY,
            control.createTopic(MetadataImage.EMPTY, "t", 2, 1, Map.of(), List.of(1)));
    var topicId = image.topic("t").orElseThrow().topicId();
    MetadataImage deleted = replayAll(image, control.deleteTopic(image, "t"));
    assertThat(deleted.topic("t")).isEmpty();
    assertThat(deleted.topic(topicId)).isEmpty();
  }

  @Test
  void alterConfigValidatesTheWholeResultAndResetRemovesTheOverride() {
    MetadataImage image =
        replayAll(
            MetadataImage.EMPTY,
            control.createTopic(MetadataImage.EMPTY, "t", 1, 1, Map.of(), List.of(1)));
    MetadataImage set = replayAll(image, control.alterConfig(image, "t", "retention.ms", "5000"));
    assertThat(set.topic("t").orElseThrow().configs()).containsEntry("retention.ms", "5000");
    assertThatThrownBy(() -> control.alterConfig(set, "t", "retention.ms", "-7"))
        .isInstanceOf(InvalidConfigException.class);
    MetadataImage reset = replayAll(set, control.alterConfig(set, "t", "retention.ms", null));
    assertThat(reset.topic("t").orElseThrow().configs()).doesNotContainKey("retention.ms");
    assertThatThrownBy(() -> control.alterConfig(set, "t", "bogus.config", null))
        .isInstanceOf(InvalidConfigException.class);
  }

  @Test
  void replayIsDeterministic() {
    List<MetadataRecord> records =
        control.createTopic(
            MetadataImage.EMPTY, "t", 4, 1, Map.of("segment.bytes", "100000"), List.of(1));
    assertThat(replayAll(MetadataImage.EMPTY, records))
        .isEqualTo(replayAll(MetadataImage.EMPTY, records));
  }

  @Test
  void anImageRebuiltFromItsOwnRecordsIsEqual() {
    MetadataImage image =
        replayAll(
            MetadataImage.EMPTY.replay(
                0,
                new MetadataRecord.RegisterBroker(1, new dev.tributary.common.Uuid(1, 1), "h", 1)),
            control.createTopic(
                MetadataImage.EMPTY, "t", 3, 1, Map.of("retention.ms", "10"), List.of(1)));
    image = replayAll(image, control.createTopic(image, "u", 1, 1, Map.of(), List.of(1)));
    MetadataImage rebuilt =
        replayAll(MetadataImage.EMPTY, image.toRecords()).withLastOffset(image.lastOffset());
    assertThat(rebuilt).isEqualTo(image);
  }

  @Test
  void aNewPartitionStartsWithEveryReplicaInSyncAndItsFirstReplicaLeading() {
    List<MetadataRecord> records =
        control.createTopic(MetadataImage.EMPTY, "t", 5, 3, Map.of(), List.of(1, 2, 3));
    MetadataImage image = replayAll(MetadataImage.EMPTY, records);
    assertThat(image.topic("t").orElseThrow().partitions().values())
        .allSatisfy(
            p -> {
              assertThat(p.replicas()).hasSize(3);
              assertThat(p.isr()).containsExactlyElementsOf(p.replicas());
              assertThat(p.leader()).isEqualTo(p.replicas().get(0));
            });
  }

  @Test
  void withoutBrokerListPlacementUsesTheImagesUnfencedBrokersAndRefusesWhenNoneIsAlive() {
    MetadataImage image =
        MetadataImage.EMPTY.replay(
            0, new MetadataRecord.RegisterBroker(1, new dev.tributary.common.Uuid(1, 1), "h", 1));
    assertThatThrownBy(() -> control.createTopic(image, "t", 1, 1, Map.of()))
        .isInstanceOf(dev.tributary.common.errors.InvalidReplicationFactorException.class)
        .hasMessageContaining("0 of 1 registered broker(s) are alive");
    MetadataImage alive = image.replay(1, new MetadataRecord.BrokerUnfenced(1, 0));
    MetadataImage created = replayAll(alive, control.createTopic(alive, "t", 2, 1, Map.of()));
    assertThat(created.topic("t").orElseThrow().partitions().values())
        .allSatisfy(p -> assertThat(p.leader()).isEqualTo(1));
  }
}
