package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidTopicException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.metadata.NewTopic;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AutoTopicCreator} on broker 1 (num.partitions 2, default.replication.factor 2): a missing
 * topic is created through the controller and answered once applied here, or refused before
 * anything is sent.
 */
class AutoTopicCreatorTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private AutoTopicCreator creator;

  private void start(boolean autoCreateTopicsEnable) {
    broker = new LocalReplicas(dir, LocalReplicas.config(dir, autoCreateTopicsEnable, 2, 2, 1, ""));
    harness = broker.harness;
    creator = creatorWith(AccessControl.ALLOW_ALL);
  }

  private AutoTopicCreator creatorWith(AccessControl access) {
    AdminService admin = new AdminService(broker, broker.config(), access, broker.waiters);
    return new AutoTopicCreator(broker, broker.config(), admin, broker.waiters);
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
  void anExistingTopicIsAnsweredAtOnceWithoutTheController() {
    start(false);
    harness.createTopic("orders", 1, Map.of(), 1);

    CompletableFuture<TopicImage> topic = creator.topicForProduce(ALICE, "orders", 5);

    assertThat(topic).isCompleted();
    assertThat(topic.join().name()).isEqualTo("orders");
    assertThat(broker.controller.calls()).isEmpty();
  }

  @Test
  void aMissingTopicIsCreatedWithTheBrokersDefaultsAndAnsweredOnceAppliedHere() {
    start(true);

    CompletableFuture<TopicImage> topic = creator.topicForProduce(ALICE, "fresh", 1);

    assertThat(broker.controller.calls())
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.name()).isEqualTo("createTopic");
              assertThat(call.arguments()).containsExactly("fresh", 2, 2, Map.of());
            });
    assertThat(topic).isNotDone();
    harness.catchUp();
    assertThat(topic.join().partitionCount()).isEqualTo(2);
    assertThat(topic.join().replicationFactor()).isEqualTo(2);
  }

  @Test
  void withAutoCreationOffAMissingTopicIsUnknownAndNothingIsSent() {
    start(false);

    assertThatThrownBy(() -> creator.topicForProduce(ALICE, "fresh", -1))
        .isInstanceOfSatisfying(
            UnknownTopicOrPartitionException.class, e -> assertThat(e.topicExists()).isFalse())
        .hasMessage("Topic 'fresh' does not exist.");
    assertThat(broker.controller.calls()).isEmpty();
  }

  @Test
  void aPartitionTheNewTopicWouldNotHaveIsRefusedBeforeAnythingIsCreated() {
    start(true);

    assertThatThrownBy(() -> creator.topicForProduce(ALICE, "fresh", 2))
        .isInstanceOf(UnknownTopicOrPartitionException.class)
        .hasMessageContaining("partition 2 was asked for")
        .hasMessageContaining("2 partition(s) (num.partitions)");
    assertThat(broker.controller.calls()).isEmpty();
    assertThat(harness.controllerImage().topic("fresh")).isEmpty();

    creator.topicForProduce(ALICE, "fresh", 1);
    assertThat(broker.controller.calls()).hasSize(1);
  }

  @Test
  void aTopicAnotherBrokerCreatedFirstIsAwaitedInsteadOfFailing() {
    start(true);
    broker.controller.createTopic(
        null, NewTopic.placed("raced", 1, 1, Map.of()), false); // another broker's creation

    CompletableFuture<TopicImage> topic = creator.topicForProduce(ALICE, "raced", 0);

    assertThat(broker.controller.calls()).hasSize(2);
    assertThat(topic).as("TOPIC_ALREADY_EXISTS: waits until it is applied here").isNotDone();
    harness.catchUp();
    assertThat(topic).isCompleted();
    assertThat(topic.join().partitionCount()).as("the other creator's topic").isEqualTo(1);
  }

  @Test
  void waitingForAnotherBrokersTopicGivesUpWithBrokerNotAvailable() {
    start(true);
    broker.controller.createTopic(null, NewTopic.placed("raced", 1, 1, Map.of()), false);

    CompletableFuture<TopicImage> topic = creator.create(ALICE, "raced");
    harness.clock.advance(AdminService.METADATA_PROPAGATION_TIMEOUT_MS);

    assertThat(failureOf(topic)).isInstanceOf(BrokerNotAvailableException.class);
  }

  @Test
  void anyOtherRefusalFailsTheFutureAtOnce() {
    start(true);

    CompletableFuture<TopicImage> topic = creator.topicForProduce(ALICE, "bad/name", 0);

    assertThat(failureOf(topic)).isInstanceOf(InvalidTopicException.class);
    assertThat(harness.clock.pendingTasks()).isZero();
  }

  @Test
  void autoCreationTakesAdminOnTheTopic() {
    AtomicInteger denials = new AtomicInteger();
    start(true);
    creator = creatorWith(broker.accessControl(denials));
    broker.grant("User:alice", AclOperation.WRITE, ResourceType.TOPIC, "fresh");

    assertThatThrownBy(() -> creator.topicForProduce(ALICE, "fresh", 0))
        .isInstanceOf(AuthorizationException.class);
    assertThat(broker.controller.calls()).isEmpty();
    assertThat(denials).hasValue(1);

    broker.grant("User:alice", AclOperation.ADMIN, ResourceType.TOPIC, "fresh");
    creator.topicForProduce(ALICE, "fresh", 0);
    assertThat(broker.controller.calls())
        .extracting(FakeController.Call::name)
        .isEqualTo(List.of("createTopic"));
  }
}
