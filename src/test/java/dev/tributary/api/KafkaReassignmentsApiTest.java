package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.kafka.KafkaListener;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsResult;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.BrokerIdNotRegisteredException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * kafka-clients' Admin, unmodified, reassigning partitions (KIP-455) over the Kafka listener: each
 * partition of a request answered on its own, with Kafka's exception for a refusal. One broker (see
 * {@link ApiTestSupport}), so no move copies anything: a target is either the replica the partition
 * has, done at once, or refused; moves between brokers are {@code ReassignmentIT}'s.
 */
class KafkaReassignmentsApiTest extends ApiTestSupport {
  /** No broker has this id. */
  private static final int UNREGISTERED_BROKER = 9999;

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

  private String newTopic(int partitions) throws Exception {
    String topic = newTopicName();
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    return topic;
  }

  private static Optional<NewPartitionReassignment> to(Integer... brokers) {
    return Optional.of(new NewPartitionReassignment(List.of(brokers)));
  }

  private List<Integer> replicasOf(TopicPartition tp) throws Exception {
    return admin
        .describeTopics(List.of(tp.topic()))
        .allTopicNames()
        .get()
        .get(tp.topic())
        .partitions()
        .get(tp.partition())
        .replicas()
        .stream()
        .map(Node::id)
        .toList();
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

  @Test
  void aReassignmentToTheReplicaAPartitionHasSucceedsAndLeavesNothingInProgress() throws Exception {
    TopicPartition tp = new TopicPartition(newTopic(1), 0);
    int broker = brokerId();

    admin.alterPartitionReassignments(Map.of(tp, to(broker))).all().get();

    assertThat(admin.listPartitionReassignments().reassignments().get())
        .as("one broker: nothing can stay in progress")
        .isEmpty();
    assertThat(admin.listPartitionReassignments(Set.of(tp)).reassignments().get())
        .as("a partition named that is not moving is left out")
        .isEmpty();
    assertThat(replicasOf(tp)).containsExactly(broker);
  }

  @Test
  void aTargetNamingAnUnregisteredBrokerFailsOnlyItsPartition() throws Exception {
    String topic = newTopic(2);
    TopicPartition refused = new TopicPartition(topic, 0);
    TopicPartition moved = new TopicPartition(topic, 1);
    int broker = brokerId();

    AlterPartitionReassignmentsResult result =
        admin.alterPartitionReassignments(
            Map.of(refused, to(UNREGISTERED_BROKER), moved, to(broker)));

    assertThat(causeOf(result.values().get(refused)))
        .isInstanceOf(InvalidReplicaAssignmentException.class)
        .hasMessageContaining(String.valueOf(UNREGISTERED_BROKER));
    assertThat(result.values().get(moved).get()).isNull();
    assertThat(causeOf(result.all())).isInstanceOf(InvalidReplicaAssignmentException.class);
    assertThat(replicasOf(refused)).as("nothing moved").containsExactly(broker);
    assertThat(admin.listPartitionReassignments(Set.of(refused, moved)).reassignments().get())
        .isEmpty();
  }

  @Test
  void cancellingWhenNothingIsInProgressIsRefused() throws Exception {
    TopicPartition tp = new TopicPartition(newTopic(1), 0);

    assertThat(
            causeOf(
                admin.alterPartitionReassignments(Map.of(tp, Optional.empty())).values().get(tp)))
        .isInstanceOf(NoReassignmentInProgressException.class);
  }

  @Test
  void unknownTopicsAndPartitionsAreRefusedToMoveAndLeftOutOfTheList() throws Exception {
    TopicPartition unknownTopic = new TopicPartition(newTopicName(), 0);
    TopicPartition unknownPartition = new TopicPartition(newTopic(1), 5);

    AlterPartitionReassignmentsResult result =
        admin.alterPartitionReassignments(
            Map.of(unknownTopic, to(brokerId()), unknownPartition, Optional.empty()));

    assertThat(causeOf(result.values().get(unknownTopic)))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(causeOf(result.values().get(unknownPartition)))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(
            admin
                .listPartitionReassignments(Set.of(unknownTopic, unknownPartition))
                .reassignments()
                .get())
        .isEmpty();
  }

  @Test
  void aTargetOfAnotherSizeIsRefusedWhenTheReplicationFactorMayNotChange() throws Exception {
    String topic = newTopic(2);
    TopicPartition grown = new TopicPartition(topic, 0);
    TopicPartition kept = new TopicPartition(topic, 1);
    int broker = brokerId();

    AlterPartitionReassignmentsResult result =
        admin.alterPartitionReassignments(
            Map.of(grown, to(broker, UNREGISTERED_BROKER), kept, to(broker)),
            new AlterPartitionReassignmentsOptions().allowReplicationFactorChange(false));

    assertThat(causeOf(result.values().get(grown)))
        .as("refused for its size before its brokers are looked at, as in Kafka")
        .isInstanceOf(InvalidReplicationFactorException.class)
        .hasMessage("The replication factor is changed from 1 to 2");
    assertThat(result.values().get(kept).get()).isNull();
    assertThat(
            causeOf(
                admin
                    .alterPartitionReassignments(Map.of(grown, to(broker, UNREGISTERED_BROKER)))
                    .values()
                    .get(grown)))
        .as("allowed to change: refused for the broker")
        .isInstanceOf(InvalidReplicaAssignmentException.class);
    assertThat(replicasOf(grown)).containsExactly(broker);
  }

  /**
   * kafka-cluster's unregister: refused for the running broker (it stays listed) and for an unknown
   * id, with Kafka's error codes; the success path is ReassignmentIT's (a stopped, empty broker).
   */
  @Test
  void unregisteringTheRunningBrokerOrAnUnknownOneIsRefused() throws Exception {
    int broker = brokerId();
    assertThat(causeOf(admin.unregisterBroker(broker).all()))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("is running (unfenced)");
    assertThat(causeOf(admin.unregisterBroker(UNREGISTERED_BROKER).all()))
        .isInstanceOf(BrokerIdNotRegisteredException.class);
    assertThat(admin.describeCluster().nodes().get()).extracting(Node::id).containsExactly(broker);
  }
}
