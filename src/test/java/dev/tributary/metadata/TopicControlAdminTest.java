package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.Uuid;
import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidPartitionsException;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What Kafka's admin APIs ask of {@link TopicControl} beyond the REST API: topics and partitions
 * placed by hand, Kafka's order of checks, and incremental config changes (all or nothing). Brokers
 * 1 and 2 are alive, broker 3 is registered but fenced.
 */
class TopicControlAdminTest {
  private final TopicControl control = new TopicControl(new Random(7));
  private final MetadataImage cluster = cluster();

  private static MetadataImage replayAll(MetadataImage image, List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    return image;
  }

  private static MetadataImage cluster() {
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
    return image;
  }

  private static Errors errorOf(Runnable request) {
    try {
      request.run();
    } catch (ApiException e) {
      return e.error();
    }
    throw new AssertionError("not refused");
  }

  @Test
  void aTopicPlacedByHandGetsExactlyThoseReplicasWithFencedOnesOutsideTheIsr() {
    NewTopic topic =
        NewTopic.assigned(
            "orders", List.of(List.of(2, 1), List.of(3, 2)), Map.of("retention.ms", "9"));

    TopicImage created =
        replayAll(cluster, control.createTopic(cluster, topic)).topic("orders").orElseThrow();

    assertThat(created.configs()).containsEntry("retention.ms", "9");
    PartitionImage p0 = created.requirePartition(0);
    assertThat(p0.replicas()).containsExactly(2, 1);
    assertThat(p0.isr()).containsExactly(2, 1);
    assertThat(p0.leader()).as("the preferred replica").isEqualTo(2);
    PartitionImage p1 = created.requirePartition(1);
    assertThat(p1.replicas()).containsExactly(3, 2);
    assertThat(p1.isr()).as("fenced broker 3 starts out of sync").containsExactly(2);
    assertThat(p1.leader()).as("a fenced broker leads nothing").isEqualTo(2);
  }

  @Test
  void aManualAssignmentIsCheckedAsKafkaChecksIt() {
    assertThat(errorOf(() -> control.createTopic(cluster, assigned(List.of()))))
        .as("an empty replica list")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(errorOf(() -> control.createTopic(cluster, assigned(List.of(1, 9)))))
        .as("an unregistered broker")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(errorOf(() -> control.createTopic(cluster, assigned(List.of(1, 1)))))
        .as("a broker twice")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(errorOf(() -> control.createTopic(cluster, assigned(List.of(1, 2), List.of(1)))))
        .as("replication factors that differ")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(errorOf(() -> control.createTopic(cluster, assigned(List.of(3)))))
        .as("only fenced brokers")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThatThrownBy(
            () ->
                control.createTopic(
                    cluster, new NewTopic("t", 2, -1, List.of(List.of(1)), Map.of())))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("numPartitions was not set to -1");
    assertThatThrownBy(
            () ->
                control.createTopic(
                    cluster, new NewTopic("t", -1, 1, List.of(List.of(1)), Map.of())))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("replication factor was not set to -1");
  }

  private static NewTopic assigned(List<Integer>... partitions) {
    return NewTopic.assigned("t", List.of(partitions), Map.of());
  }

  @Test
  void checksComeInKafkasOrderNameExistenceConfigsThenPlacement() {
    MetadataImage withA =
        replayAll(cluster, control.createTopic(cluster, NewTopic.placed("a", 1, 1, Map.of())));

    assertThatThrownBy(
            () -> control.createTopic(withA, NewTopic.placed("bad name", 0, 9, Map.of("x", "1"))))
        .isInstanceOf(InvalidTopicException.class);
    assertThatThrownBy(
            () -> control.createTopic(withA, NewTopic.placed("a", 0, 9, Map.of("x", "1"))))
        .isInstanceOf(TopicExistsException.class);
    assertThatThrownBy(
            () -> control.createTopic(withA, NewTopic.placed("b", 0, 9, Map.of("x", "1"))))
        .isInstanceOf(InvalidConfigException.class);
    assertThatThrownBy(() -> control.createTopic(withA, NewTopic.placed("b", 0, 0, Map.of())))
        .as("the replication factor before the partition count")
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessageContaining("must be larger than 0");
    assertThatThrownBy(() -> control.createTopic(withA, NewTopic.placed("b", 0, 1, Map.of())))
        .isInstanceOf(InvalidPartitionsException.class);
    assertThatThrownBy(() -> control.createTopic(withA, NewTopic.placed("b", 1, 3, Map.of())))
        .as("only brokers 1 and 2 are alive")
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessageContaining("2 of 3 registered broker(s) are alive");
  }

  @Test
  void newPartitionsPlacedByHandNeedOneListPerNewPartitionOfTheTopicsReplicationFactor() {
    MetadataImage image =
        replayAll(
            cluster,
            control.createTopic(cluster, NewTopic.assigned("t", List.of(List.of(1, 2)), Map.of())));

    assertThat(
            errorOf(
                () ->
                    control.createPartitions(
                        image, new NewPartitions("t", 3, List.of(List.of(2, 1))))))
        .as("two new partitions, one assignment")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(
            errorOf(
                () ->
                    control.createPartitions(
                        image, new NewPartitions("t", 2, List.of(List.of(2))))))
        .as("replication factor 1 for a topic of 2")
        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    assertThat(errorOf(() -> control.createPartitions(image, new NewPartitions("t", 1, List.of()))))
        .isEqualTo(Errors.INVALID_PARTITIONS);

    TopicImage grown =
        replayAll(
                image,
                control.createPartitions(
                    image, new NewPartitions("t", 3, List.of(List.of(2, 1), List.of(1, 3)))))
            .topic("t")
            .orElseThrow();
    assertThat(grown.requirePartition(1).replicas()).containsExactly(2, 1);
    assertThat(grown.requirePartition(1).leader()).isEqualTo(2);
    assertThat(grown.requirePartition(2).replicas()).containsExactly(1, 3);
    assertThat(grown.requirePartition(2).isr()).containsExactly(1);
  }

  @Test
  void configChangesApplyTogetherOrNotAtAll() {
    MetadataImage image =
        replayAll(
            cluster,
            control.createTopic(
                cluster, NewTopic.placed("t", 1, 1, Map.of("retention.ms", "1000"))));

    assertThatThrownBy(
            () ->
                control.alterConfigs(
                    image,
                    "t",
                    List.of(
                        ConfigChange.set("segment.ms", "5000"),
                        ConfigChange.delete("retention.ms"),
                        ConfigChange.set("max.message.bytes", "-5"))))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("max.message.bytes");

    MetadataImage altered =
        replayAll(
            image,
            control.alterConfigs(
                image,
                "t",
                List.of(
                    ConfigChange.set("segment.ms", "5000"), ConfigChange.delete("retention.ms"))));
    assertThat(altered.topic("t").orElseThrow().configs()).isEqualTo(Map.of("segment.ms", "5000"));
  }

  @Test
  void aChangeThatLeavesTheValueAsItWasWritesNoRecord() {
    MetadataImage image =
        replayAll(
            cluster,
            control.createTopic(
                cluster, NewTopic.placed("t", 1, 1, Map.of("retention.ms", "1000"))));

    assertThat(
            control.alterConfigs(
                image,
                "t",
                List.of(
                    ConfigChange.set("retention.ms", "1000"), ConfigChange.delete("segment.ms"))))
        .isEmpty();
  }

  @Test
  void appendAndSubtractChangeAListStartingFromItsDefault() {
    MetadataImage image =
        replayAll(cluster, control.createTopic(cluster, NewTopic.placed("t", 1, 1, Map.of())));

    MetadataImage appended =
        replayAll(
            image,
            control.alterConfigs(
                image,
                "t",
                List.of(
                    new ConfigChange(
                        LogConfig.CLEANUP_POLICY, ConfigChange.Op.APPEND, "compact,delete"))));
    assertThat(appended.topic("t").orElseThrow().configs())
        .containsEntry(LogConfig.CLEANUP_POLICY, "delete,compact");

    MetadataImage subtracted =
        replayAll(
            appended,
            control.alterConfigs(
                appended,
                "t",
                List.of(
                    new ConfigChange(
                        LogConfig.CLEANUP_POLICY, ConfigChange.Op.SUBTRACT, "delete"))));
    assertThat(subtracted.topic("t").orElseThrow().configs())
        .containsEntry(LogConfig.CLEANUP_POLICY, "compact");

    assertThatThrownBy(
            () ->
                control.alterConfigs(
                    subtracted,
                    "t",
                    List.of(
                        new ConfigChange(
                            LogConfig.CLEANUP_POLICY, ConfigChange.Op.SUBTRACT, "compact"))))
        .as("an empty cleanup.policy is refused")
        .isInstanceOf(InvalidConfigException.class);
    assertThatThrownBy(
            () ->
                control.alterConfigs(
                    image,
                    "t",
                    List.of(new ConfigChange("retention.ms", ConfigChange.Op.APPEND, "5"))))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("not LIST");
  }

  @Test
  void aConfigNamedTwiceOrAnUnknownOneIsRefused() {
    MetadataImage image =
        replayAll(cluster, control.createTopic(cluster, NewTopic.placed("t", 1, 1, Map.of())));

    assertThatThrownBy(
            () ->
                control.alterConfigs(
                    image,
                    "t",
                    List.of(
                        ConfigChange.set("retention.ms", "1"),
                        ConfigChange.delete("retention.ms"))))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(
            () -> control.alterConfigs(image, "t", List.of(ConfigChange.delete("no.such"))))
        .isInstanceOf(InvalidConfigException.class);
    assertThatThrownBy(() -> new ConfigChange("retention.ms", ConfigChange.Op.SET, null))
        .isInstanceOf(InvalidRequestException.class);
  }
}
