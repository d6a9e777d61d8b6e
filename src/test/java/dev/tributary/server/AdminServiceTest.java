package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
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
 * {@link AdminService} on broker 1, whose controller is broker 2 ({@link FakeController}): every
 * change goes there, and its future completes only once broker 1 has applied what was committed.
 * The broker's {@code min.insync.replicas} default is 2.
 */
class AdminServiceTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private AdminService admin;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir, LocalReplicas.config(dir, true, 2, 1, 2, ""));
    harness = broker.harness;
    admin = service(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private AdminService service(AccessControl access) {
    return new AdminService(broker, broker.config(), access, broker.waiters);
  }

  private FakeController.Call lastCall() {
    List<FakeController.Call> calls = broker.controller.calls();
    return calls.get(calls.size() - 1);
  }

  /** The configs of the last topic sent to the controller to create. */
  @SuppressWarnings("unchecked")
  private Map<String, String> createdConfigs() {
    assertThat(lastCall().name()).isEqualTo("createTopic");
    return (Map<String, String>) lastCall().arguments().get(3);
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
  void aCreatedTopicIsAnsweredOnlyOnceThisBrokerHasAppliedTheCommit() {
    CompletableFuture<TopicImage> created = admin.createTopic(ALICE, "orders", 3, 1, Map.of());

    assertThat(lastCall().name()).isEqualTo("createTopic");
    assertThat(lastCall().endpoint())
        .as("sent to the active controller, broker 2")
        .isEqualTo(new ControllerChannel.Endpoint(2, "localhost", 9002));
    assertThat(harness.controllerImage().topic("orders")).isPresent();
    assertThat(created).as("committed, not yet applied here").isNotDone();

    harness.catchUp();

    assertThat(created).isCompleted();
    assertThat(created.join().partitionCount()).isEqualTo(3);
    assertThat(broker.replicaManager().metadataImage().topic("orders")).isPresent();
  }

  @Test
  void aCommitThatDoesNotReachThisBrokerInTimeFailsWithBrokerNotAvailable() {
    CompletableFuture<TopicImage> created = admin.createTopic(ALICE, "orders", 1, 1, Map.of());

    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS - 1);
    assertThat(created).isNotDone();
    harness.clock.advance(1);

    assertThat(failureOf(created)).isInstanceOf(BrokerNotAvailableException.class);
  }

  @Test
  void theBrokersMinInsyncReplicasIsWrittenIntoATopicCreatedWithoutOne() {
    admin.createTopic(ALICE, "three", 1, 3, Map.of());
    assertThat(createdConfigs()).isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "2"));

    admin.createTopic(ALICE, "one", 1, 1, Map.of("retention.ms", "1000"));
    assertThat(createdConfigs())
        .as("never more than the replication factor")
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "1", "retention.ms", "1000"));

    admin.createTopic(ALICE, "own", 1, 3, Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "3"));
    assertThat(createdConfigs())
        .as("the topic's own setting wins")
        .isEqualTo(Map.of(LogConfig.MIN_IN_SYNC_REPLICAS, "3"));

    harness.catchUp();
    assertThat(harness.image().topic("three").orElseThrow().configs())
        .containsEntry(LogConfig.MIN_IN_SYNC_REPLICAS, "2");
  }

  @Test
  void aBrokerDefaultOfOneAddsNothing() {
    admin =
        new AdminService(
            broker,
            LocalReplicas.config(dir, true, 2, 1, 1, ""),
            AccessControl.ALLOW_ALL,
            broker.waiters);

    admin.createTopic(ALICE, "plain", 1, 3, Map.of());

    assertThat(createdConfigs()).isEqualTo(Map.of());
  }

  @Test
  void theControllersRefusalFailsTheFuture() {
    harness.createTopic("orders", 1, Map.of(), 1);

    CompletableFuture<TopicImage> again = admin.createTopic(ALICE, "orders", 1, 1, Map.of());

    assertThat(failureOf(again)).isInstanceOf(TopicExistsException.class);
  }

  @Test
  void topicChangesNeedAdminOnTheTopicAndNothingIsSentWithout() {
    harness.createTopic("orders", 1, Map.of(), 1);
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.WRITE, ResourceType.TOPIC, "orders");
    admin = service(broker.accessControl(denials));

    assertThatThrownBy(() -> admin.createTopic(ALICE, "orders2", 1, 1, Map.of()))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED))
        .hasMessageContaining("User:alice is not authorized to ADMIN topic 'orders2'");
    assertThatThrownBy(() -> admin.deleteTopic(ALICE, "orders"))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> admin.createPartitions(ALICE, "orders", 2))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> admin.alterConfig(ALICE, "orders", "retention.ms", "1"))
        .isInstanceOf(AuthorizationException.class);
    assertThat(broker.controller.calls()).isEmpty();
    assertThat(denials).hasValue(4);

    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.TOPIC, "orders");
    CompletableFuture<TopicImage> grown = admin.createPartitions(ALICE, "orders", 2);
    harness.catchUp();
    assertThat(grown.join().partitionCount()).isEqualTo(2);
  }

  @Test
  void securityChangesNeedAdminOnTheCluster() {
    AtomicInteger denials = new AtomicInteger();
    admin = service(broker.accessControl(denials));
    AclBinding acl =
        new AclBinding(
            "User:bob", AclOperation.READ, ResourceType.TOPIC, PatternType.LITERAL, "orders");
    SecurityChange change = SecurityChange.createAcls(List.of(acl));

    assertThatThrownBy(() -> admin.alterSecurity(ALICE, change))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    assertThat(broker.controller.calls()).isEmpty();

    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.CLUSTER, AclBinding.CLUSTER_NAME);
    CompletableFuture<Void> done = admin.alterSecurity(ALICE, change);
    assertThat(done).isNotDone();
    harness.catchUp();
    assertThat(done).isCompleted();
    assertThat(broker.metadata().security().acls()).contains(acl);
  }

  @Test
  void configChangesAndDeletionsAreAnsweredOnceAppliedHere() {
    harness.createTopic("orders", 1, Map.of(), 1);
    TopicPartition orders0 = new TopicPartition("orders", 0);

    CompletableFuture<TopicImage> altered =
        admin.alterConfig(ALICE, "orders", "retention.ms", "1234");
    assertThat(altered).isNotDone();
    harness.catchUp();
    assertThat(altered.join().configs()).containsEntry("retention.ms", "1234");
    assertThat(harness.partition(orders0).log().config().retentionMs()).isEqualTo(1234);

    CompletableFuture<Void> deleted = admin.deleteTopic(ALICE, "orders");
    assertThat(deleted).isNotDone();
    harness.catchUp();
    assertThat(deleted).isCompleted();
    assertThat(broker.replicaManager().partition(orders0)).isEmpty();
  }
}
