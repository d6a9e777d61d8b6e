package dev.tributary.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.ApiException;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.NewTopic;
import dev.tributary.server.ConfigDescriptions;
import dev.tributary.server.ConfigDescriptions.ConfigEntry;
import dev.tributary.server.ConfigDescriptions.Source;
import dev.tributary.server.ConfigDescriptions.Synonym;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.junit.jupiter.api.Test;

/** The admin handlers' translations between Kafka's wire terms and the services'. */
class AdminMappingsTest {
  @Test
  void configSourcesAndTypesAreKafkasAndEachHasOne() {
    assertThat(ConfigEntries.source(Source.DYNAMIC_TOPIC_CONFIG))
        .isEqualTo(ConfigSource.TOPIC_CONFIG);
    assertThat(ConfigEntries.source(Source.STATIC_BROKER_CONFIG))
        .isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
    assertThat(ConfigEntries.source(Source.DEFAULT_CONFIG)).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    for (ConfigDescriptions.Type type : ConfigDescriptions.Type.values()) {
      assertThat(ConfigEntries.type(type).name()).as("same name").isEqualTo(type.name());
    }
    assertThat(ConfigType.LONG.id()).as("Kafka's wire id").isEqualTo((byte) 5);
    assertThat(ConfigEntries.type(ConfigDescriptions.Type.LONG).id()).isEqualTo((byte) 5);
  }

  @Test
  void synonymsAndDocumentationAreToldOnlyWhenAskedFor() {
    ConfigEntry entry =
        new ConfigEntry(
            "retention.ms",
            "1000",
            Source.DYNAMIC_TOPIC_CONFIG,
            false,
            false,
            ConfigDescriptions.Type.LONG,
            "How long",
            List.of(
                new Synonym("retention.ms", "1000", Source.DYNAMIC_TOPIC_CONFIG),
                new Synonym("log.retention.ms", "604800000", Source.DEFAULT_CONFIG)));

    DescribeConfigsResourceResult full = ConfigEntries.described(entry, true, true);
    assertThat(full.configSource()).isEqualTo(ConfigSource.TOPIC_CONFIG.id());
    assertThat(full.configType()).isEqualTo(ConfigType.LONG.id());
    assertThat(full.documentation()).isEqualTo("How long");
    assertThat(full.synonyms()).hasSize(2);
    assertThat(full.synonyms().get(1).source()).isEqualTo(ConfigSource.DEFAULT_CONFIG.id());

    DescribeConfigsResourceResult bare = ConfigEntries.described(entry, false, false);
    assertThat(bare.synonyms()).isEmpty();
    assertThat(bare.documentation()).isNull();
    assertThat(bare.value()).isEqualTo("1000");
  }

  @Test
  void aSensitiveConfigIsNamedWithoutItsValue() {
    ConfigEntry secret =
        new ConfigEntry(
            "tributary.cluster-secret",
            null,
            Source.STATIC_BROKER_CONFIG,
            true,
            true,
            ConfigDescriptions.Type.PASSWORD,
            "secret",
            List.of());

    assertThat(ConfigEntries.created(secret).value()).isNull();
    assertThat(ConfigEntries.created(secret).isSensitive()).isTrue();
    assertThat(ConfigEntries.described(secret, true, true).configType())
        .isEqualTo(ConfigType.PASSWORD.id());
  }

  private static CreatableTopic topic(int partitions, int replicationFactor) {
    return new CreatableTopic()
        .setName("orders")
        .setNumPartitions(partitions)
        .setReplicationFactor((short) replicationFactor);
  }

  private static CreatableReplicaAssignment assignment(int partition, Integer... brokers) {
    return new CreatableReplicaAssignment()
        .setPartitionIndex(partition)
        .setBrokerIds(List.of(brokers));
  }

  @Test
  void aCreatedTopicKeepsKafkasMinusOneAndItsConfigs() {
    CreatableTopic wire = topic(-1, -1);
    wire.configs().add(new CreatableTopicConfig().setName(LogConfig.RETENTION_MS).setValue("9"));

    NewTopic topic = CreateTopicsApi.newTopic(wire);

    assertThat(topic.partitions()).isEqualTo(NewTopic.FROM_ASSIGNMENTS);
    assertThat(topic.replicationFactor()).isEqualTo(NewTopic.FROM_ASSIGNMENTS);
    assertThat(topic.manuallyAssigned()).isFalse();
    assertThat(topic.configs()).isEqualTo(Map.of(LogConfig.RETENTION_MS, "9"));

    CreatableTopic withoutValue = topic(1, 1);
    withoutValue.configs().add(new CreatableTopicConfig().setName("segment.ms").setValue(null));
    assertThatThrownBy(() -> CreateTopicsApi.newTopic(withoutValue))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Null value not supported for topic configs: segment.ms");
  }

  @Test
  void assignmentsMayComeInAnyOrderButMustNamePartitionsZeroToNOnce() {
    CreatableTopic wire = topic(-1, -1);
    wire.assignments().add(assignment(1, 2, 3));
    wire.assignments().add(assignment(0, 3, 1));

    assertThat(CreateTopicsApi.newTopic(wire).assignments())
        .containsExactly(List.of(3, 1), List.of(2, 3));

    CreatableTopic gap = topic(-1, -1);
    gap.assignments().add(assignment(0, 1));
    gap.assignments().add(assignment(2, 1));
    assertThatThrownBy(() -> CreateTopicsApi.newTopic(gap))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.error())
                    .isEqualTo(dev.tributary.common.errors.Errors.INVALID_REPLICA_ASSIGNMENT))
        .hasMessage("partitions should be a consecutive 0-based integer sequence");

    CreatableTopic twice = topic(-1, -1);
    twice.assignments().add(assignment(0, 1));
    twice.assignments().add(assignment(0, 2));
    assertThatThrownBy(() -> CreateTopicsApi.newTopic(twice))
        .hasMessage("Found multiple manual partition assignments for partition 0");
  }

  @Test
  void configOperationsAreKafkasOpTypeIds() {
    for (AlterConfigOp.OpType kafka : AlterConfigOp.OpType.values()) {
      ConfigChange change =
          AlterConfigsApis.Incremental.change("cleanup.policy", kafka.id(), "compact");
      assertThat(change.op().name()).isEqualTo(kafka.name());
    }
    assertThatThrownBy(() -> AlterConfigsApis.Incremental.change("x", (byte) 4, "1"))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> AlterConfigsApis.Incremental.change("x", (byte) -1, "1"))
        .isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> AlterConfigsApis.Incremental.change("x", (byte) 0, null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("Null value not supported for : x");
  }

  @Test
  void authorizedOperationsAreKafkasBitField() {
    assertThat(DescribeClusterApi.bitField(EnumSet.noneOf(AclOperation.class))).isZero();
    assertThat(DescribeClusterApi.bitField(EnumSet.of(AclOperation.DESCRIBE, AclOperation.ALTER)))
        .isEqualTo((1 << 8) | (1 << 7));
  }
}
