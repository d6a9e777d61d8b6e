package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.offline;
import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.group.GroupState;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.replication.ReplicaHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CoordinatorRouter} on broker 1 of a three-voter cluster: {@code __consumer_offsets} has
 * two partitions; a group on a partition led here goes to this broker's real {@link
 * GroupCoordinator} (storing through the replica manager), one led elsewhere to that broker over a
 * fake {@link GroupTransport}.
 */
class CoordinatorRouterTest {
  private static final String OFFSETS = GroupCoordinatorConfig.OFFSETS_TOPIC;
  private static final GroupCoordinatorConfig CONFIG =
      new GroupCoordinatorConfig(2, 6_000, 1_800_000, 3_000, 4_096, 604_800_000L, 600_000);
  private static final String VOTERS = "1@localhost:9101,2@localhost:9102,3@localhost:9103";

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private GroupCoordinator local;
  private final Remote remote = new Remote();
  private CoordinatorRouter router;

  /** The coordinators of other brokers: every call recorded, answered or failed. */
  private static final class Remote implements GroupTransport {
    final List<ControllerChannel.Endpoint> reached = new ArrayList<>();
    boolean unreachable;

    @Override
    public CoordinatorApi coordinatorAt(ControllerChannel.Endpoint endpoint) {
      reached.add(endpoint);
      if (unreachable) {
        throw new dev.tributary.common.errors.BrokerNotAvailableException("no route");
      }
      return new RemoteCoordinator(endpoint.brokerId());
    }

    @Override
    public PartitionReader readerAt(ControllerChannel.Endpoint endpoint) {
      throw new UnsupportedOperationException();
    }
  }

  /** Answers describe and list as broker {@code brokerId}'s coordinator; fails everything else. */
  private record RemoteCoordinator(int brokerId) implements CoordinatorApi {
    private <T> CompletableFuture<T> unreachable() {
      return CompletableFuture.failedFuture(new java.io.IOException("connection reset"));
    }

    @Override
    public CompletableFuture<JoinResult> joinGroup(JoinRequest request) {
      return unreachable();
    }

    @Override
    public CompletableFuture<SyncResult> syncGroup(SyncRequest request) {
      return unreachable();
    }

    @Override
    public CompletableFuture<GroupError> heartbeat(String groupId, String memberId, int gen) {
      return unreachable();
    }

    @Override
    public CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String r) {
      return unreachable();
    }

    @Override
    public CompletableFuture<GroupError> commitOffsets(
        String groupId, String memberId, int gen, Map<TopicPartition, OffsetAndMetadata> o) {
      return unreachable();
    }

    @Override
    public CompletableFuture<OffsetFetchResult> fetchOffsets(
        String groupId, List<TopicPartition> partitions) {
      return unreachable();
    }

    @Override
    public CompletableFuture<DescribeResult> describeGroup(String groupId) {
      return CompletableFuture.completedFuture(
          new DescribeResult(
              GroupError.NONE,
              new GroupDescription(
                  groupId, GroupState.STABLE, "consumer", "range", brokerId, "m", List.of(), 1)));
    }

    @Override
    public CompletableFuture<List<GroupListing>> listGroups() {
      return CompletableFuture.completedFuture(
          List.of(new GroupListing("on-" + brokerId, GroupState.STABLE, "consumer", 1)));
    }
  }

  private void start(String quorumVoters) {
    broker = new LocalReplicas(dir, LocalReplicas.config(dir, true, 1, 1, 1, quorumVoters));
    harness = broker.harness;
    local =
        new GroupCoordinator(
            CONFIG,
            new ReplicaCoordinatorLog(harness::replicaManager, 30_000),
            harness.clock,
            harness.clock,
            new Random(1),
            Runnable::run,
            Runnable::run);
    AdminService admin =
        new AdminService(broker, broker.config(), AccessControl.ALLOW_ALL, broker.waiters);
    router =
        new CoordinatorRouter(
            broker, broker.config(), CONFIG, () -> local, remote, admin, broker::brokerEndpoint);
  }

  @AfterEach
  void tearDown() {
    local.shutdown();
    broker.close();
  }

  private static String groupOn(int partition) {
    for (int i = 0; ; i++) {
      if (CONFIG.partitionFor("group-" + i) == partition) {
        return "group-" + i;
      }
    }
  }

  private GroupError describe(String groupId) {
    CompletableFuture<CoordinatorApi.DescribeResult> answer = router.describeGroup(groupId);
    assertThat(answer).isCompleted();
    return answer.join().error();
  }

  @Test
  void aGroupOnAPartitionLedHereGoesToThisBrokersCoordinator() {
    start(VOTERS);
    harness.placeTopic(OFFSETS, Map.of(), on(1), on(2));
    local.onBecomeLeader(0, 0);
    String group = groupOn(0);
    TopicPartition orders0 = new TopicPartition("orders", 0);

    CompletableFuture<GroupError> committed =
        router.commitOffsets(group, "", -1, Map.of(orders0, new OffsetAndMetadata(42, 0, "", 0)));

    assertThat(committed).isCompletedWithValue(GroupError.NONE);
    assertThat(local.fetchOffsets(group, null).join().offsets().get(orders0).offset())
        .isEqualTo(42);
    assertThat(harness.partition(new TopicPartition(OFFSETS, 0)).logEndOffset())
        .as("stored in __consumer_offsets-0 here")
        .isPositive();
    assertThat(remote.reached).isEmpty();
    assertThat(router.coordinatorOf(group)).isEqualTo(1);
  }

  @Test
  void aGroupOnAPartitionLedElsewhereGoesToThatBroker() {
    start(VOTERS);
    harness.placeTopic(OFFSETS, Map.of(), on(1), on(2));
    String group = groupOn(1);

    CompletableFuture<CoordinatorApi.DescribeResult> answer = router.describeGroup(group);

    assertThat(remote.reached)
        .containsExactly(new ControllerChannel.Endpoint(2, "localhost", 9002));
    assertThat(answer.join().group().generationId()).as("broker 2's answer").isEqualTo(2);
    assertThat(router.coordinatorOf(group)).isEqualTo(2);
  }

  @Test
  void aCoordinatorThatCannotBeReachedIsNotAvailable() {
    start(VOTERS);
    harness.placeTopic(OFFSETS, Map.of(), on(1), on(2));
    String group = groupOn(1);

    CompletableFuture<GroupError> failed = router.heartbeat(group, "m", 1);
    assertThat(failed).isCompletedWithValue(GroupError.COORDINATOR_NOT_AVAILABLE);

    remote.unreachable = true;
    assertThat(describe(group)).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
  }

  @Test
  void aGroupWhosePartitionHasNoLeaderIsNotAvailable() {
    start(VOTERS);
    harness.placeTopic(OFFSETS, Map.of(), offline(2), on(2));

    assertThat(describe(groupOn(0))).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
    assertThat(router.coordinatorOf(groupOn(0))).isEqualTo(-1);
    assertThat(remote.reached).isEmpty();
  }

  @Test
  void theOffsetsTopicIsCreatedOnFirstUseOnceAndAsKafkaRecommends() {
    start(VOTERS);

    assertThat(describe("g")).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
    assertThat(describe("g"))
        .as("while its creation is under way")
        .isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);

    assertThat(broker.controller.calls())
        .singleElement()
        .satisfies(
            call ->
                assertThat(call.arguments())
                    .containsExactly(
                        OFFSETS,
                        2,
                        3,
                        Map.of(
                            LogConfig.CLEANUP_POLICY, "compact",
                            LogConfig.MIN_IN_SYNC_REPLICAS, "2",
                            LogConfig.SEGMENT_BYTES, String.valueOf(100 * 1024 * 1024))));
    harness.catchUp();
    assertThat(router.coordinatorOf("g")).isBetween(1, 3);
    assertThat(broker.controller.calls()).hasSize(1);
  }

  @Test
  void findCoordinatorCreatesTheOffsetsTopicAndThenNamesTheLeaderOfTheGroupsPartition() {
    start(VOTERS);
    assertThat(router.findCoordinator("g")).as("no topic yet").isEqualTo(-1);
    assertThat(broker.controller.calls()).hasSize(1);
    harness.catchUp();
    assertThat(router.findCoordinator("g")).isBetween(1, 3).isEqualTo(router.coordinatorOf("g"));
    assertThat(broker.controller.calls()).hasSize(1);
  }

  @Test
  void theOffsetsTopicWaitsUntilAsManyBrokersAreAliveAsItsReplicationFactor() {
    start(VOTERS);
    harness.apply(List.of(new MetadataRecord.BrokerFenced(3, harness.brokerEpoch(3))));

    assertThat(describe("g")).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
    assertThat(describe("g")).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
    assertThat(broker.controller.calls()).as("two of three brokers are up").isEmpty();

    harness.apply(List.of(new MetadataRecord.BrokerUnfenced(3, harness.brokerEpoch(3))));
    describe("g");
    assertThat(broker.controller.calls()).hasSize(1);
  }

  @Test
  void aLoneBrokerCreatesTheOffsetsTopicWithOneReplica() {
    start("");

    describe("g");

    assertThat(broker.controller.calls().get(0).arguments())
        .startsWith(OFFSETS, 2, 1)
        .last()
        .isEqualTo(
            Map.of(
                LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.MIN_IN_SYNC_REPLICAS, "1",
                LogConfig.SEGMENT_BYTES, String.valueOf(100 * 1024 * 1024)));
  }

  @Test
  void listingGroupsMergesThisBrokersAndEveryOtherLiveBrokers() {
    start(VOTERS);
    harness.placeTopic(OFFSETS, Map.of(), on(1), on(2));
    local.onBecomeLeader(0, 0);
    router
        .commitOffsets(
            groupOn(0),
            "",
            -1,
            Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(1, 0, "", 0)))
        .join();
    harness.apply(List.of(new MetadataRecord.BrokerFenced(3, harness.brokerEpoch(3))));

    List<CoordinatorApi.GroupListing> groups = router.listGroups().join();

    assertThat(groups)
        .extracting(CoordinatorApi.GroupListing::groupId)
        .containsExactly(groupOn(0), "on-2");
    assertThat(remote.reached).extracting(ControllerChannel.Endpoint::brokerId).containsExactly(2);
  }
}
