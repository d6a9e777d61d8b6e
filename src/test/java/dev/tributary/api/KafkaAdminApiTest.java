package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * kafka-clients' Admin, unmodified, against the broker's Kafka listener: topics created, grown,
 * described and deleted, configs described and changed (and read back over REST), the cluster
 * described, preferred leaders elected, the broker's log directory described; bad input gets
 * Kafka's exception and changes nothing. One broker (see {@link ApiTestSupport}).
 */
class KafkaAdminApiTest extends ApiTestSupport {
  @Autowired KafkaListener kafka;

  private Admin admin;

  @BeforeEach
  void connect() {
    admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + kafka.port(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                20_000));
  }

  @AfterEach
  void close() {
    admin.close();
  }

  private int brokerId() {
    return expectOk(get(v3("/brokers"))).get("data").get(0).get("broker_id").intValue();
  }

  private static Throwable causeOf(Future<?> future) {
    try {
      future.get();
      throw new AssertionError("succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private Set<String> topicNames() throws Exception {
    return admin.listTopics().names().get();
  }

  private Config topicConfig(String topic) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin.describeConfigs(List.of(resource)).all().get().get(resource);
  }

  private String restConfig(String topic, String name) {
    return expectOk(get(v3("/topics/" + topic + "/configs/" + name))).get("value").stringValue();
  }

  @Test
  void topicsAreCreatedWithTheBrokersDefaultsByHandOrWithConfigsAndKeepTheirIds() throws Exception {
    String defaults = newTopicName();
    String byHand = newTopicName();
    int broker = brokerId();
    CreateTopicsResult created =
        admin.createTopics(
            List.of(
                new NewTopic(defaults, Optional.empty(), Optional.empty()),
                new NewTopic(byHand, Map.of(0, List.of(broker), 1, List.of(broker)))
                    .configs(Map.of("retention.ms", "1000"))));
    created.all().get();

    String numPartitions =
        admin
            .describeConfigs(
                List.of(new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(broker))))
            .all()
            .get()
            .values()
            .iterator()
            .next()
            .get("num.partitions")
            .value();
    assertThat(created.numPartitions(defaults).get())
        .as("num.partitions")
        .isEqualTo(Integer.parseInt(numPartitions));
    assertThat(created.replicationFactor(defaults).get()).isEqualTo(1);
    assertThat(created.numPartitions(byHand).get()).isEqualTo(2);
    assertThat(created.config(byHand).get().get("retention.ms").value()).isEqualTo("1000");
    assertThat(created.config(byHand).get().get("retention.ms").source())
        .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);

    Uuid id = created.topicId(byHand).get();
    TopicDescription described =
        admin.describeTopics(List.of(byHand)).allTopicNames().get().get(byHand);
    assertThat(described.topicId()).isEqualTo(id).isNotEqualTo(Uuid.ZERO_UUID);
    assertThat(described.partitions())
        .allSatisfy(p -> assertThat(p.replicas()).extracting(Node::id).containsExactly(broker));
    assertThat(
            admin
                .describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                .allTopicIds()
                .get()
                .get(id)
                .name())
        .as("the same id, asked by id")
        .isEqualTo(byHand);
    assertThat(restConfig(byHand, "retention.ms")).isEqualTo("1000");

    assertThat(causeOf(admin.createTopics(List.of(new NewTopic(byHand, 1, (short) 1))).all()))
        .isInstanceOf(TopicExistsException.class)
        .hasMessageContaining(byHand);
    assertThat(admin.describeTopics(List.of(byHand)).allTopicNames().get().get(byHand).topicId())
        .as("the failed create changed nothing")
        .isEqualTo(id);
  }

  @Test
  void aValidateOnlyCreateAnswersTheTopicAsItWouldBeAndCreatesNothing() throws Exception {
    String topic = newTopicName();

    CreateTopicsResult validated =
        admin.createTopics(
            List.of(new NewTopic(topic, 3, (short) 1).configs(Map.of("cleanup.policy", "compact"))),
            new CreateTopicsOptions().validateOnly(true));

    assertThat(validated.numPartitions(topic).get()).isEqualTo(3);
    assertThat(validated.config(topic).get().get("cleanup.policy").value()).isEqualTo("compact");
    assertThat(topicNames()).doesNotContain(topic);
    assertThat(get(v3("/topics/" + topic)).status()).isEqualTo(404);
  }

  @Test
  void badInputGetsKafkasExceptionAndCreatesOrChangesNothing() throws Exception {
    String topic = newTopicName();
    assertThat(causeOf(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 2))).all()))
        .as("two replicas, one broker")
        .isInstanceOf(InvalidReplicationFactorException.class);
    assertThat(
            causeOf(
                admin
                    .createTopics(
                        List.of(
                            new NewTopic(topic, 1, (short) 1)
                                .configs(Map.of("retention.ms", "soon"))))
                    .all()))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention.ms");
    assertThat(causeOf(admin.createTopics(List.of(new NewTopic(topic, 0, (short) 1))).all()))
        .isInstanceOf(InvalidPartitionsException.class);
    assertThat(
            causeOf(
                admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(9999))))).all()))
        .isInstanceOf(InvalidReplicaAssignmentException.class);
    assertThat(topicNames()).doesNotContain(topic);

    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            resource,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("segment.ms", "100"), AlterConfigOp.OpType.SET),
                                new AlterConfigOp(
                                    new ConfigEntry("retention.ms", "-7"),
                                    AlterConfigOp.OpType.SET))))
                    .all()))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThat(topicConfig(topic).get("segment.ms").source())
        .as("all or none")
        .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    assertThat(causeOf(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(1))).all()))
        .isInstanceOf(InvalidPartitionsException.class);
    assertThat(
            causeOf(
                admin.createPartitions(Map.of("no-such-topic", NewPartitions.increaseTo(2))).all()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
        .hasSize(2);
  }

  @Test
  void partitionsGrowAutomaticallyOrByHand() throws Exception {
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();

    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();
    admin
        .createPartitions(Map.of(topic, NewPartitions.increaseTo(4, List.of(List.of(brokerId())))))
        .all()
        .get();

    assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
        .hasSize(4);
    assertThat(expectOk(get(v3("/topics/" + topic + "/partitions"))).get("data")).hasSize(4);
  }

  @Test
  void topicAndBrokerConfigsAreDescribedWithSynonymsAndDocumentation() throws Exception {
    String topic = newTopicName();
    admin
        .createTopics(
            List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("retention.ms", "60000"))))
        .all()
        .get();
    ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    ConfigResource brokerResource =
        new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokerId()));

    Map<ConfigResource, Config> described =
        admin
            .describeConfigs(
                List.of(topicResource, brokerResource),
                new DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true))
            .all()
            .get();

    ConfigEntry retention = described.get(topicResource).get("retention.ms");
    assertThat(retention.value()).isEqualTo("60000");
    assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
    assertThat(retention.type()).isEqualTo(ConfigEntry.ConfigType.LONG);
    assertThat(retention.documentation()).isNotBlank();
    assertThat(retention.synonyms())
        .extracting(ConfigEntry.ConfigSynonym::name)
        .containsExactly("retention.ms", "log.retention.ms");
    ConfigEntry segment = described.get(topicResource).get("segment.ms");
    assertThat(segment.isDefault()).isTrue();

    Config broker = described.get(brokerResource);
    ConfigEntry partitions = broker.get("num.partitions");
    assertThat(partitions.isReadOnly()).isTrue();
    assertThat(partitions.source()).isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
    assertThat(broker.get("tributary.cluster-secret").isSensitive()).isTrue();
    assertThat(broker.get("tributary.cluster-secret").value()).isNull();

    Config plain = admin.describeConfigs(List.of(topicResource)).all().get().get(topicResource);
    assertThat(plain.get("retention.ms").synonyms()).as("not asked for").isEmpty();
    assertThat(plain.get("retention.ms").documentation()).isNull();

    assertThat(
            causeOf(
                admin
                    .describeConfigs(
                        List.of(new ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic")))
                    .all()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }

  @Test
  void configChangesAreReadBackOverKafkaAndRest() throws Exception {
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);

    admin
        .incrementalAlterConfigs(
            Map.of(
                resource,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", "5000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(
                        new ConfigEntry("cleanup.policy", "compact"),
                        AlterConfigOp.OpType.APPEND))))
        .all()
        .get();

    assertThat(topicConfig(topic).get("retention.ms").value()).isEqualTo("5000");
    assertThat(topicConfig(topic).get("cleanup.policy").value()).isEqualTo("delete,compact");
    assertThat(restConfig(topic, "retention.ms")).isEqualTo("5000");
    assertThat(restConfig(topic, "cleanup.policy")).isEqualTo("delete,compact");

    admin
        .incrementalAlterConfigs(
            Map.of(
                resource,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE))))
        .all()
        .get();
    assertThat(topicConfig(topic).get("retention.ms").source())
        .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    assertThat(restConfig(topic, "retention.ms"))
        .isEqualTo(topicConfig(topic).get("retention.ms").value());

    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            new ConfigResource(
                                ConfigResource.Type.BROKER, String.valueOf(brokerId())),
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("num.partitions", "9"),
                                    AlterConfigOp.OpType.SET))))
                    .all()))
        .as("broker configs are read-only")
        .isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void topicsAreDeletedByNameAndById() throws Exception {
    String byName = newTopicName();
    String byId = newTopicName();
    CreateTopicsResult created =
        admin.createTopics(
            List.of(new NewTopic(byName, 1, (short) 1), new NewTopic(byId, 1, (short) 1)));
    Uuid id = created.topicId(byId).get();

    admin.deleteTopics(TopicCollection.ofTopicNames(List.of(byName))).all().get();
    admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all().get();

    assertThat(topicNames()).doesNotContain(byName, byId);
    assertThat(get(v3("/topics/" + byName)).status()).isEqualTo(404);
    assertThat(get(v3("/topics/" + byId)).status()).isEqualTo(404);
    assertThat(causeOf(admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all()))
        .isInstanceOf(UnknownTopicIdException.class);
    assertThat(causeOf(admin.deleteTopics(List.of(byName)).all()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }

  @Test
  void theClusterIsDescribedWithEveryBrokerItsControllerAndId() throws Exception {
    DescribeClusterResult cluster =
        admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));

    Collection<Node> nodes = cluster.nodes().get();
    assertThat(nodes).extracting(Node::id).containsExactly(brokerId());
    assertThat(nodes).extracting(Node::port).containsExactly(kafka.port());
    assertThat(cluster.clusterId().get()).isEqualTo(clusterId());
    assertThat(cluster.controller().get().id())
        .isEqualTo(expectOk(get(v3(""))).get("controller_id").intValue());
    assertThat(cluster.authorizedOperations().get())
        .as("security is off: everything ACLs can grant")
        .contains(AclOperation.DESCRIBE, AclOperation.CREATE, AclOperation.ALTER_CONFIGS);
  }

  @Test
  void aPreferredElectionIsNotNeededWhenThePreferredReplicaLeadsAndUncleanIsRefused()
      throws Exception {
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    TopicPartition first = new TopicPartition(topic, 0);
    TopicPartition missing = new TopicPartition(topic, 7);

    Map<TopicPartition, Optional<Throwable>> elected =
        admin.electLeaders(ElectionType.PREFERRED, Set.of(first, missing)).partitions().get();

    assertThat(elected.get(first)).containsInstanceOf(ElectionNotNeededException.class);
    assertThat(elected.get(missing)).containsInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(admin.electLeaders(ElectionType.PREFERRED, null).partitions().get())
        .as("every partition: those already led by their preferred replica are left out")
        .doesNotContainKey(first);
    assertThat(causeOf(admin.electLeaders(ElectionType.UNCLEAN, Set.of(first)).partitions()))
        .as("the client tells the request's error, not its message")
        .isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void theBrokersOwnLogDirIsDescribedWithTheReplicasItHosts() throws Exception {
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    produceJson(topic, "{\"records\":[{\"value\":\"a\",\"partition\":0}]}");
    TopicPartition written = new TopicPartition(topic, 0);
    TopicPartition empty = new TopicPartition(topic, 1);
    int broker = brokerId();

    Map<String, LogDirDescription> dirs =
        admin.describeLogDirs(List.of(broker)).allDescriptions().get().get(broker);

    assertThat(dirs).as("one log directory per broker").hasSize(1);
    String logDir = dirs.keySet().iterator().next();
    assertThat(Path.of(logDir)).isAbsolute().endsWith(Path.of("logs"));
    LogDirDescription described = dirs.get(logDir);
    assertThat(described.error()).isNull();
    assertThat(described.totalBytes().orElseThrow()).isPositive();
    assertThat(described.usableBytes().orElseThrow())
        .isBetween(0L, described.totalBytes().getAsLong());
    assertThat(described.replicaInfos()).containsKeys(written, empty);
    ReplicaInfo replica = described.replicaInfos().get(written);
    assertThat(replica.size()).isPositive();
    assertThat(replica.offsetLag()).isZero();
    assertThat(replica.isFuture()).isFalse();
    assertThat(described.replicaInfos().get(empty).size()).isZero();

    // What kafka-reassign-partitions reads: the same API, for the replicas named.
    TopicPartitionReplica named = new TopicPartitionReplica(topic, 0, broker);
    TopicPartitionReplica elsewhere = new TopicPartitionReplica(topic, 7, broker);
    Map<TopicPartitionReplica, ReplicaLogDirInfo> replicas =
        admin.describeReplicaLogDirs(List.of(named, elsewhere)).all().get();
    assertThat(replicas.get(named).getCurrentReplicaLogDir()).isEqualTo(logDir);
    assertThat(replicas.get(named).getFutureReplicaLogDir()).isNull();
    assertThat(replicas.get(elsewhere).getCurrentReplicaLogDir()).as("not hosted here").isNull();
  }

  /**
   * The replication throttles as kafka-reassign-partitions --throttle sets them and --verify
   * removes them: the broker's rates (dynamic broker configs) and the topic's throttled replicas;
   * deleting what is not set is a no-op; a bad value or another broker config is refused.
   */
  @Test
  void theReplicationThrottlesAreSetDescribedAndRemovedAndBadValuesAreRefused() throws Exception {
    ConfigResource broker =
        new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(brokerId()));
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, topic);

    // What kafka-reassign-partitions --verify sends once a reassignment is done, none of it set.
    admin.incrementalAlterConfigs(throttleDeletes(broker, topicResource)).all().get();

    // What --execute --throttle 1000 sends.
    admin
        .incrementalAlterConfigs(
            Map.of(
                broker,
                List.of(
                    setOp("leader.replication.throttled.rate", "1000"),
                    setOp("follower.replication.throttled.rate", "1000")),
                topicResource,
                List.of(
                    setOp("leader.replication.throttled.replicas", "0:" + brokerId()),
                    setOp("follower.replication.throttled.replicas", "0:" + brokerId()))))
        .all()
        .get();
    Config brokerConfig = admin.describeConfigs(List.of(broker)).all().get().get(broker);
    assertThat(brokerConfig.get("leader.replication.throttled.rate").value()).isEqualTo("1000");
    assertThat(brokerConfig.get("leader.replication.throttled.rate").source())
        .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
    assertThat(topicConfig(topic).get("leader.replication.throttled.replicas").value())
        .isEqualTo("0:" + brokerId());

    admin.incrementalAlterConfigs(throttleDeletes(broker, topicResource)).all().get();
    brokerConfig = admin.describeConfigs(List.of(broker)).all().get().get(broker);
    assertThat(brokerConfig.get("leader.replication.throttled.rate").value())
        .isEqualTo(String.valueOf(Long.MAX_VALUE));
    assertThat(topicConfig(topic).get("leader.replication.throttled.replicas").value()).isEmpty();

    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(broker, List.of(setOp("log.retention.ms", "1000"))))
                    .all()))
        .as("other broker configs are read-only")
        .isInstanceOf(InvalidRequestException.class);
    assertThat(
            causeOf(
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            topicResource,
                            List.of(setOp("leader.replication.throttled.replicas", "zero:one"))))
                    .all()))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("partition:broker");
  }

  private static Map<ConfigResource, java.util.Collection<AlterConfigOp>> throttleDeletes(
      ConfigResource broker, ConfigResource topic) {
    return Map.of(
        broker,
        List.of(
            deleteOp("leader.replication.throttled.rate"),
            deleteOp("follower.replication.throttled.rate"),
            deleteOp("replica.alter.log.dirs.io.max.bytes.per.second")),
        topic,
        List.of(
            deleteOp("leader.replication.throttled.replicas"),
            deleteOp("follower.replication.throttled.replicas")));
  }

  private static AlterConfigOp setOp(String name, String value) {
    return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
  }

  private static AlterConfigOp deleteOp(String name) {
    return new AlterConfigOp(new ConfigEntry(name, null), AlterConfigOp.OpType.DELETE);
  }
}
