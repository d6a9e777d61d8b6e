package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.ConfigDescriptions.ConfigEntry;
import dev.tributary.server.ConfigDescriptions.Source;
import dev.tributary.server.ConfigDescriptions.Synonym;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's DescribeConfigs view of broker 1 and its topics. */
class ConfigDescriptionsTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ConfigDescriptions configs;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir, LocalReplicas.config(dir, true, 4, 1, 2, ""));
    configs = new ConfigDescriptions(broker, AccessControl.ALLOW_ALL);
    broker.harness.createTopic("orders", 1, Map.of("retention.ms", "1000"), 1);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static ConfigEntry named(List<ConfigEntry> entries, String name) {
    return entries.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aTopicsOwnValueIsDynamicTopicConfigAndTheRestKafkasDefaults() {
    List<ConfigEntry> entries = configs.topicConfigs(ALICE, "orders");

    assertThat(entries).extracting(ConfigEntry::name).containsExactlyElementsOf(LogConfig.names());
    assertThat(entries)
        .allSatisfy(
            e -> {
              assertThat(e.documentation()).isNotBlank();
              assertThat(e.readOnly()).isFalse();
              assertThat(e.sensitive()).isFalse();
            });
    ConfigEntry retention = named(entries, "retention.ms");
    assertThat(retention.value()).isEqualTo("1000");
    assertThat(retention.source()).isEqualTo(Source.DYNAMIC_TOPIC_CONFIG);
    assertThat(retention.type()).isEqualTo(ConfigDescriptions.Type.LONG);
    assertThat(retention.synonyms())
        .containsExactly(
            new Synonym("retention.ms", "1000", Source.DYNAMIC_TOPIC_CONFIG),
            new Synonym("log.retention.ms", "604800000", Source.DEFAULT_CONFIG));
    ConfigEntry policy = named(entries, LogConfig.CLEANUP_POLICY);
    assertThat(policy.value()).isEqualTo("delete");
    assertThat(policy.source()).isEqualTo(Source.DEFAULT_CONFIG);
    assertThat(policy.type()).isEqualTo(ConfigDescriptions.Type.LIST);
    assertThat(policy.synonyms())
        .containsExactly(new Synonym("log.cleanup.policy", "delete", Source.DEFAULT_CONFIG));
  }

  @Test
  void aTopicAboutToBeCreatedIsDescribedFromItsOwnSettings() {
    List<ConfigEntry> entries =
        ConfigDescriptions.topicConfigs(Map.of(LogConfig.CLEANUP_POLICY, "compact"));

    assertThat(entries).hasSize(LogConfig.names().size());
    assertThat(named(entries, LogConfig.CLEANUP_POLICY).source())
        .isEqualTo(Source.DYNAMIC_TOPIC_CONFIG);
    assertThat(named(entries, "segment.ms").source()).isEqualTo(Source.DEFAULT_CONFIG);
  }

  @Test
  void aTopicThatDoesNotExistOrCannotAndOneNotReadableAreRefused() {
    assertThatThrownBy(() -> configs.topicConfigs(ALICE, "missing"))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThatThrownBy(() -> configs.topicConfigs(ALICE, "bad name"))
        .isInstanceOf(InvalidTopicException.class);

    ConfigDescriptions secured =
        new ConfigDescriptions(broker, broker.accessControl(new AtomicInteger()));
    assertThatThrownBy(() -> secured.topicConfigs(ALICE, "orders"))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED));
    broker.grant("User:alice", AclOperation.READ, ResourceType.TOPIC, "orders");
    assertThat(secured.topicConfigs(ALICE, "orders")).isNotEmpty();
  }

  @Test
  void theBrokerTellsItsStartupSettingsReadOnlyAndHidesItsSecret() {
    List<ConfigEntry> entries = configs.brokerConfigs(ALICE, "1");

    ConfigEntry partitions = named(entries, "num.partitions");
    assertThat(partitions.value()).isEqualTo("4");
    assertThat(partitions.source()).isEqualTo(Source.STATIC_BROKER_CONFIG);
    assertThat(partitions.readOnly()).isTrue();
    assertThat(named(entries, "min.insync.replicas").value()).isEqualTo("2");
    assertThat(named(entries, "advertised.listeners").value()).isEqualTo("HTTP://localhost:9001");
    ConfigEntry secret = named(entries, "tributary.cluster-secret");
    assertThat(secret.sensitive()).isTrue();
    assertThat(secret.value()).isNull();
    assertThat(secret.type()).isEqualTo(ConfigDescriptions.Type.PASSWORD);
    ConfigEntry segmentBytes = named(entries, "log.segment.bytes");
    assertThat(segmentBytes.value()).isEqualTo(LogConfig.defaultValue(LogConfig.SEGMENT_BYTES));
    assertThat(segmentBytes.source()).isEqualTo(Source.DEFAULT_CONFIG);
    assertThat(entries)
        .extracting(ConfigEntry::name)
        .doesNotHaveDuplicates()
        .allSatisfy(name -> assertThat(name).isNotBlank());
  }

  @Test
  void anotherBrokersIdOrNoReadOnTheClusterIsRefused() {
    assertThatThrownBy(() -> configs.brokerConfigs(ALICE, "2"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("Unexpected broker id, expected 1 or empty string, but received 2");
    assertThatThrownBy(() -> configs.brokerConfigs(ALICE, "b1"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("Broker id must be an integer, but it is: b1");
    assertThat(configs.brokerConfigs(ALICE, ""))
        .as("no cluster-wide defaults are set at run time")
        .isEmpty();

    ConfigDescriptions secured =
        new ConfigDescriptions(broker, broker.accessControl(new AtomicInteger()));
    assertThatThrownBy(() -> secured.brokerConfigs(ALICE, "1"))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    broker.grant("User:alice", AclOperation.READ, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    assertThat(secured.brokerConfigs(ALICE, "1")).isNotEmpty();
  }
}
