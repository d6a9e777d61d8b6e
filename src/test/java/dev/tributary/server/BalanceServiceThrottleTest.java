package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.metadata.BrokerConfigControl;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.replication.ReplicaHarness.Placement;
import dev.tributary.replication.ReplicationThrottles;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A throttled balance (KIP-73, docs/adr/0029-replication-throttles.md): the rates on every broker
 * and the moved replicas in the topic's throttled lists are committed before the first move starts,
 * and removed when the balance ends. Broker 1 over a {@link LocalReplicas} with brokers 1, 2, 3, as
 * in {@link BalanceServiceTest}.
 */
class BalanceServiceThrottleTest {
  private static final RequestContext ALICE = new RequestContext("User:alice", "10.0.0.1", false);

  @TempDir Path dir;
  private LocalReplicas broker;
  private dev.tributary.replication.ReplicaHarness harness;
  private BalanceService balance;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    balance = broker.balanceService(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private String topicConfig(String name) {
    return harness.controllerImage().topic("t").orElseThrow().configs().get(name);
  }

  private String defaultRate(String name) {
    return harness
        .controllerImage()
        .brokerConfigs()
        .getOrDefault(MetadataImage.DEFAULT_BROKER, Map.of())
        .get(name);
  }

  @Test
  void theThrottlesAreSetBeforeTheMoveAndRemovedWhenTheBalanceIsDone() {
    // t-0 and t-1 on broker 1, t-2 on broker 2: the plan moves t-0 to broker 3.
    harness.placeTopic("t", Map.of(), Placement.on(1), Placement.on(1), Placement.on(2));

    BalanceService.ExecutionStatus started = balance.execute(ALICE, Set.of(), 1, 1_000_000);

    assertThat(started.throttleBytesPerSecond()).isEqualTo(1_000_000);
    assertThat(defaultRate(BrokerConfigControl.LEADER_THROTTLED_RATE)).isEqualTo("1000000");
    assertThat(defaultRate(BrokerConfigControl.FOLLOWER_THROTTLED_RATE)).isEqualTo("1000000");
    assertThat(topicConfig(ReplicationThrottles.LEADER_THROTTLED_REPLICAS)).isEqualTo("0:1");
    assertThat(topicConfig(ReplicationThrottles.FOLLOWER_THROTTLED_REPLICAS)).isEqualTo("0:3");
    harness.catchUp();
    harness.clock.advance(BalanceService.TICK_MS);
    TopicPartition moving = new TopicPartition("t", 0);
    assertThat(balance.execution().orElseThrow().inFlight()).containsExactly(moving);

    broker.completeReassignment(moving);
    for (int i = 0; i < 4; i++) {
      harness.catchUp();
      harness.clock.advance(BalanceService.TICK_MS);
    }
    harness.catchUp();

    assertThat(balance.execution().orElseThrow().state()).isEqualTo(BalanceService.State.DONE);
    assertThat(defaultRate(BrokerConfigControl.LEADER_THROTTLED_RATE)).isNull();
    assertThat(defaultRate(BrokerConfigControl.FOLLOWER_THROTTLED_RATE)).isNull();
    assertThat(topicConfig(ReplicationThrottles.LEADER_THROTTLED_REPLICAS)).isNull();
    assertThat(topicConfig(ReplicationThrottles.FOLLOWER_THROTTLED_REPLICAS)).isNull();
  }

  @Test
  void anUnthrottledOrEmptyBalanceSetsNoThrottle() {
    harness.placeTopic("t", Map.of(), Placement.on(1), Placement.on(2), Placement.on(3));
    balance.execute(ALICE, Set.of(), 1, 1_000_000); // balanced: nothing to move
    assertThat(harness.controllerImage().brokerConfigs()).isEmpty();
    assertThat(broker.controller.calls()).isEmpty();
  }
}
