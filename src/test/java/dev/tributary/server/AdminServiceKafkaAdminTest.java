package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidReplicationFactorException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.ConfigChange;
import dev.tributary.metadata.ElectionOutcome;
import dev.tributary.metadata.NewPartitions;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link AdminService} calls Kafka's admin APIs add: validate-only requests, topics and
 * partitions placed by hand, several config changes at once, and preferred leader elections. Broker
 * 1 over a {@link FakeController} on broker 2, brokers 1–3 alive, broker default {@code
 * min.insync.replicas} 2.
 */
class AdminServiceKafkaAdminTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private AdminService admin;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir, LocalReplicas.config(dir, true, 2, 1, 2, ""));
    harness = broker.harness;
    admin = new AdminService(broker, broker.config(), AccessControl.ALLOW_ALL, broker.waiters);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static Throwable failureOf(CompletableFuture<?> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
      throw new AssertionError("not failed");
    } catch (CompletionException e) {
      return Errors.unwrap(e);
    }
  }

  @Test
  void aValidateOnlyCreateAnswersTheTopicAsItWouldBeAndCommitsNothing() {
    CompletableFuture<NewTopic> validated =
        admin.validateCreateTopic(ALICE, NewTopic.placed("orders", 3, 3, Map.of()));

    assertThat(validated.join().configs())
        .as("with the broker's min.insync.replicas, as a real create")
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2"));
    assertThat(broker.controller.calls().get(0).arguments()).last().isEqualTo("validate only");
    harness.catchUp();
    assertThat(harness.controllerImage().topic("orders")).isEmpty();

    assertThat(failureOf(admin.validateCreateTopic(ALICE, NewTopic.placed("x", 1, 4, Map.of()))))
        .as("four replicas, three brokers")
        .isInstanceOf(InvalidReplicationFactorException.class);
  }

  @Test
  void aTopicPlacedByHandIsCreatedOnExactlyThoseBrokers() {
    CompletableFuture<TopicImage> created =
        admin.createTopic(ALICE, NewTopic.assigned("orders", List.of(List.of(3, 1)), Map.of()));
    harness.catchUp();

    TopicImage topic = created.join();
    assertThat(topic.requirePartition(0).replicas()).containsExactly(3, 1);
    assertThat(topic.configs())
        .as("min.insync.replicas from the broker, capped by the assignment's two replicas")
        .containsEntry(LogConfig.MIN_IN_SYNC_REPLICAS, "2");
  }

  @Test
  void partitionsGrowByHandOrOnlyValidate() {
    harness.createTopic("orders", 1, Map.of(), 1);

    CompletableFuture<Void> validated =
        admin.createPartitions(ALICE, NewPartitions.placed("orders", 3), true);
    assertThat(validated).isCompleted();
    assertThat(harness.controllerImage().topic("orders").orElseThrow().partitionCount())
        .isEqualTo(1);

    CompletableFuture<Void> grown =
        admin.createPartitions(ALICE, new NewPartitions("orders", 2, List.of(List.of(3))), false);
    assertThat(grown).as("answered once applied here").isNotDone();
    harness.catchUp();
    assertThat(grown).isCompleted();
    assertThat(broker.metadata().topic("orders").orElseThrow().requirePartition(1).replicas())
        .containsExactly(3);
  }

  @Test
  void severalConfigChangesApplyTogetherOrNone() {
    harness.createTopic("orders", 1, Map.of("retention.ms", "1000"), 1);

    CompletableFuture<Void> refused =
        admin.alterConfigs(
            ALICE,
            "orders",
            List.of(ConfigChange.delete("retention.ms"), ConfigChange.set("segment.ms", "0")),
            false);
    assertThat(failureOf(refused)).isInstanceOf(InvalidConfigException.class);
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .isEqualTo(Map.of("retention.ms", "1000"));

    CompletableFuture<Void> onlyValidated =
        admin.alterConfigs(ALICE, "orders", List.of(ConfigChange.set("segment.ms", "9")), true);
    assertThat(onlyValidated).isCompleted();

    CompletableFuture<Void> altered =
        admin.alterConfigs(
            ALICE,
            "orders",
            List.of(ConfigChange.delete("retention.ms"), ConfigChange.set("segment.ms", "7")),
            false);
    harness.catchUp();
    assertThat(altered).isCompleted();
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .isEqualTo(Map.of("segment.ms", "7"));
  }

  @Test
  void aPreferredElectionNeedsAdminOnTheClusterAndAnswersOnceAppliedHere() {
    harness.createTopic("orders", 1, Map.of(), 1);
    TopicPartition orders0 = new TopicPartition("orders", 0);
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.TOPIC, "orders");
    AdminService secured =
        new AdminService(broker, broker.config(), broker.accessControl(denials), broker.waiters);

    assertThatThrownBy(() -> secured.electPreferredLeaders(ALICE, List.of(orders0)))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    assertThat(broker.controller.calls()).isEmpty();
    assertThat(denials).hasValue(1);

    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    CompletableFuture<Map<TopicPartition, ElectionOutcome>> elected =
        secured.electPreferredLeaders(ALICE, List.of(orders0, new TopicPartition("orders", 5)));
    harness.catchUp();

    assertThat(elected.join().get(orders0).error()).isEqualTo(Errors.ELECTION_NOT_NEEDED);
    assertThat(elected.join().get(new TopicPartition("orders", 5)).error())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
  }

  @Test
  void kafkasMinusOneTakesTheBrokersPartitionsAndReplicationFactor() {
    NewTopic validated =
        admin
            .validateCreateTopic(
                ALICE,
                NewTopic.placed(
                    "orders", NewTopic.FROM_ASSIGNMENTS, NewTopic.FROM_ASSIGNMENTS, Map.of()))
            .join();

    assertThat(validated.partitions()).as("num.partitions").isEqualTo(2);
    assertThat(validated.replicationFactor()).as("default.replication.factor").isEqualTo(1);
    assertThat(validated.configs())
        .as("min.insync.replicas capped by the default replication factor")
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "1"));

    CompletableFuture<TopicImage> created =
        admin.createTopic(ALICE, NewTopic.placed("orders", NewTopic.FROM_ASSIGNMENTS, 3, Map.of()));
    harness.catchUp();
    assertThat(created.join().partitionCount()).isEqualTo(2);
    assertThat(created.join().replicationFactor()).isEqualTo(3);
  }

  @Test
  void aCreateNeedsAdminOnTheClusterOrOnTheTopic() {
    AtomicInteger denials = new AtomicInteger();
    AdminService secured =
        new AdminService(broker, broker.config(), broker.accessControl(denials), broker.waiters);
    NewTopic orders = NewTopic.placed("orders", 1, 1, Map.of());

    assertThatThrownBy(() -> secured.validateCreateTopic(ALICE, orders))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED));
    assertThat(denials).as("one refusal, counted once").hasValue(1);

    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    CompletableFuture<TopicImage> created = secured.createTopic(ALICE, orders);
    harness.catchUp();
    assertThat(created.join().name()).isEqualTo("orders");
  }

  @Test
  void replacingConfigsKeepsOnlyThoseGivenAndTheBrokersMinInsyncReplicas() {
    harness.createTopic(
        "orders",
        1,
        Map.of("retention.ms", "1000", LogConfig.MIN_IN_SYNC_REPLICAS, "3", "segment.ms", "5"),
        1,
        2,
        3);

    CompletableFuture<Void> replaced =
        admin.replaceConfigs(ALICE, "orders", Map.of("segment.ms", "7"), false);
    harness.catchUp();

    assertThat(replaced).isCompleted();
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .as("retention.ms back to its default; min.insync.replicas back to the broker's")
        .isEqualTo(Map.of("segment.ms", "7", LogConfig.MIN_IN_SYNC_REPLICAS, "2"));

    Map<String, String> nullValue = new java.util.HashMap<>();
    nullValue.put("retention.ms", null);
    assertThatThrownBy(() -> admin.replaceConfigs(ALICE, "orders", nullValue, false))
        .isInstanceOf(dev.tributary.common.errors.InvalidRequestException.class)
        .hasMessage("Null value not supported for : retention.ms");
    CompletableFuture<Void> invalid =
        admin.replaceConfigs(ALICE, "orders", Map.of("segment.ms", "x"), false);
    assertThat(failureOf(invalid)).isInstanceOf(InvalidConfigException.class);
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .containsEntry("segment.ms", "7");
  }

  @Test
  void deletingMinInsyncReplicasPutsTheBrokersBackCappedByTheReplicationFactor() {
    harness.createTopic("three", 1, Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "3"), 1, 2, 3);
    harness.createTopic("one", 1, Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "1"), 1);
    ConfigChange delete = ConfigChange.delete(LogConfig.MIN_IN_SYNC_REPLICAS);

    admin.alterConfigs(ALICE, "three", List.of(delete), false);
    admin.alterConfigs(ALICE, "one", List.of(delete), false);
    harness.catchUp();

    assertThat(broker.metadata().topic("three").orElseThrow().configs())
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2"));
    assertThat(broker.metadata().topic("one").orElseThrow().configs())
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "1"));
  }

  @Test
  void noBrokerConfigChangesAtRunTimeButDeletingAnOverrideIsANoOp() {
    assertThat(
            failureOf(
                admin.alterBrokerConfigs(
                    ALICE,
                    "1",
                    List.of(
                        ConfigChange.set("num.partitions", "9"),
                        ConfigChange.delete("leader.replication.throttled.rate"),
                        new ConfigChange("log.dirs", ConfigChange.Op.APPEND, "/x")))))
        .isInstanceOf(dev.tributary.common.errors.InvalidRequestException.class)
        .hasMessageStartingWith(
            "Cannot update these configs dynamically: [log.dirs, num.partitions]");
    assertThat(
            admin.alterBrokerConfigs(
                ALICE,
                "1",
                List.of(
                    ConfigChange.delete("leader.replication.throttled.rate"),
                    ConfigChange.delete("follower.replication.throttled.rate"),
                    ConfigChange.delete("replica.alter.log.dirs.io.max.bytes.per.second"))))
        .as("no dynamic override to delete")
        .isCompleted();
    assertThat(
            failureOf(
                admin.alterBrokerConfigs(
                    ALICE,
                    "1",
                    List.of(
                        ConfigChange.delete("leader.replication.throttled.rate"),
                        ConfigChange.delete("leader.replication.throttled.rate")))))
        .hasMessage("Error due to duplicate config keys");
    assertThat(
            failureOf(
                admin.alterBrokerConfigs(
                    ALICE,
                    "b1",
                    List.of(ConfigChange.delete("leader.replication.throttled.rate")))))
        .as("the broker id is checked for a delete too")
        .hasMessage("Broker id must be an integer, but it is: b1");
    assertThat(failureOf(admin.alterBrokerConfigs(ALICE, "b1", List.of())))
        .hasMessage("Broker id must be an integer, but it is: b1");
    assertThat(admin.alterBrokerConfigs(ALICE, "", List.of()))
        .as("nothing to change")
        .isCompleted();

    AdminService secured =
        new AdminService(
            broker, broker.config(), broker.accessControl(new AtomicInteger()), broker.waiters);
    assertThatThrownBy(() -> secured.alterBrokerConfigs(ALICE, "1", List.of()))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    assertThatThrownBy(
            () ->
                secured.alterBrokerConfigs(
                    ALICE, "1", List.of(ConfigChange.delete("leader.replication.throttled.rate"))))
        .as("a delete needs ADMIN on the cluster too")
        .isInstanceOf(AuthorizationException.class);
  }

  @Test
  void throttledReplicasAreTopicConfigsThatDeletingWhenUnsetLeavesAlone() {
    harness.createTopic("orders", 1, Map.of("retention.ms", "1000"), 1);

    CompletableFuture<Void> deleted =
        admin.alterConfigs(
            ALICE,
            "orders",
            List.of(
                ConfigChange.delete("leader.replication.throttled.replicas"),
                ConfigChange.delete("follower.replication.throttled.replicas"),
                ConfigChange.set("segment.ms", "7")),
            false);
    harness.catchUp();
    assertThat(deleted).isCompleted();
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .as("the other changes applied; nothing to delete")
        .isEqualTo(Map.of("retention.ms", "1000", "segment.ms", "7"));

    CompletableFuture<Void> set =
        admin.alterConfigs(
            ALICE,
            "orders",
            List.of(ConfigChange.set("leader.replication.throttled.replicas", "0:1")),
            false);
    harness.catchUp();
    assertThat(set).isCompleted();
    assertThat(broker.metadata().topic("orders").orElseThrow().configs())
        .containsEntry("leader.replication.throttled.replicas", "0:1");

    CompletableFuture<Void> bad =
        admin.replaceConfigs(
            ALICE, "orders", Map.of("follower.replication.throttled.replicas", "0-1"), false);
    harness.catchUp();
    assertThat(failureOf(bad))
        .as("the old AlterConfigs, with a list that is not partition:broker")
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("partition:broker");
    assertThat(
            failureOf(
                admin.alterConfigs(
                    ALICE,
                    "nope",
                    List.of(ConfigChange.delete("leader.replication.throttled.replicas")),
                    false)))
        .as("the topic must still exist")
        .isInstanceOf(dev.tributary.common.errors.UnknownTopicOrPartitionException.class);
  }
}
