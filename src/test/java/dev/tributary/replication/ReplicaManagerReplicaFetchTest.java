package dev.tributary.replication;

import static dev.tributary.replication.TestBatches.batch;
import static dev.tributary.replication.TestBatches.values;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's replica fetch and OffsetsForLeaderEpoch handlers in {@link ReplicaManager}: who may
 * fetch, and the long poll, on a fake clock. Broker 1 (this one) leads orders-0 in epoch 4 with
 * replicas [1, 2].
 */
class ReplicaManagerReplicaFetchTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final int LEADER_EPOCH = 4;
  private static final int MAX_WAIT_MS = 500;

  @TempDir Path dir;
  private final ManualClock scheduler = new ManualClock();
  private LogManager logManager;
  private ReplicaManager replicaManager;
  private MetadataImage image = MetadataImage.EMPTY;
  private long brokerEpoch2;

  @BeforeEach
  void setUp() {
    logManager = new LogManager(dir, scheduler);
    logManager.loadLogs(tp -> Optional.empty());
    ReplicationConfig config = new ReplicationConfig(10_000, MAX_WAIT_MS, 1 << 20, 1 << 20, 100);
    LeaderEndpoint nowhere = LeaderEndpoint.NONE;
    replicaManager =
        new ReplicaManager(
            1,
            logManager,
            scheduler,
            Runnable::run,
            scheduler,
            config,
            request -> new CompletableFuture<>(),
            ReplicaFetcherManager.manual(1, () -> 0, nowhere, config, scheduler));
    Uuid topicId = new Uuid(7, 7);
    apply(
        new MetadataRecord.RegisterBroker(1, new Uuid(1, 1), "localhost", 9001),
        new MetadataRecord.RegisterBroker(2, new Uuid(2, 1), "localhost", 9002),
        new MetadataRecord.BrokerUnfenced(1, 0),
        new MetadataRecord.BrokerUnfenced(2, 1),
        new MetadataRecord.TopicCreated(topicId, "orders"),
        new MetadataRecord.PartitionChange(
            topicId, 0, List.of(1, 2), List.of(1, 2), 1, LEADER_EPOCH, 3));
    brokerEpoch2 = image.broker(2).orElseThrow().brokerEpoch();
    assertThat(replicaManager.leaderPartition(ORDERS_0).leaderEpoch()).isEqualTo(LEADER_EPOCH);
  }

  @AfterEach
  void tearDown() {
    replicaManager.shutdown();
    logManager.shutdown();
  }

  private void apply(MetadataRecord... records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    replicaManager.onMetadataUpdate(image);
  }

  private static ReplicaFetch.Request fetchRequest(
      int replicaId, long brokerEpoch, long fetchOffset, int maxWaitMs) {
    return new ReplicaFetch.Request(
        replicaId,
        brokerEpoch,
        maxWaitMs,
        1 << 20,
        List.of(new ReplicaFetch.PartitionRequest(ORDERS_0, LEADER_EPOCH, fetchOffset, 1 << 20)));
  }

  private Partition leader() {
    return replicaManager.leaderPartition(ORDERS_0);
  }

  // ------------------------------------------------------------------------------------------- who
  // may fetch

  @Test
  void aReplicaFetchWithAnotherBrokerEpochIsRefusedAsStaleAndChangesNothing() {
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("a", "b"), Acks.LEADER, 30_000)
        .join();
    CompletableFuture<ReplicaFetch.Response> stale =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(fetchRequest(2, brokerEpoch2 - 1, 2, 0));
    assertThat(stale).isCompleted();
    assertThat(stale.join().error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
    assertThat(stale.join().partitions()).isEmpty();
    assertThat(leader().highWatermark()).as("an old incarnation's fetch moves nothing").isZero();
    assertThat(leader().replicaStatuses(scheduler).get(1).logEndOffset()).isEqualTo(-1);

    ReplicaFetch.Response current =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(fetchRequest(2, brokerEpoch2, 2, 0))
            .join();
    assertThat(current.error()).isEqualTo(Errors.NONE);
    assertThat(leader().highWatermark()).isEqualTo(2);
  }

  @Test
  void aReplicaFetchFromAnUnregisteredBrokerIsRefusedAsStale() {
    ReplicaFetch.Response response =
        new ReplicaFetchHandler(replicaManager).handleReplicaFetch(fetchRequest(3, 2, 0, 0)).join();
    assertThat(response.error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
    assertThat(response.partitions()).isEmpty();
  }

  @Test
  void anEpochQueryWithAnotherBrokerEpochIsRefusedAsStale() {
    ReplicaFetch.EpochResponse response =
        new ReplicaFetchHandler(replicaManager)
            .handleEpochEndOffsets(
                new ReplicaFetch.EpochRequest(
                    2,
                    brokerEpoch2 + 1,
                    List.of(
                        new ReplicaFetch.EpochPartitionRequest(
                            ORDERS_0, LEADER_EPOCH, LEADER_EPOCH))));
    assertThat(response.error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
    assertThat(response.partitions()).isEmpty();
  }

  @Test
  void anEpochQueryIsAnsweredPerPartitionWithTheLeadersEpochsAndErrors() {
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("a", "b", "c"), Acks.LEADER, 30_000)
        .join();
    TopicPartition unknown = new TopicPartition("orders", 9);
    ReplicaFetch.EpochResponse response =
        new ReplicaFetchHandler(replicaManager)
            .handleEpochEndOffsets(
                new ReplicaFetch.EpochRequest(
                    2,
                    brokerEpoch2,
                    List.of(
                        new ReplicaFetch.EpochPartitionRequest(
                            ORDERS_0, LEADER_EPOCH, LEADER_EPOCH),
                        new ReplicaFetch.EpochPartitionRequest(
                            ORDERS_0, LEADER_EPOCH, LEADER_EPOCH - 2),
                        new ReplicaFetch.EpochPartitionRequest(
                            ORDERS_0, LEADER_EPOCH - 1, LEADER_EPOCH),
                        new ReplicaFetch.EpochPartitionRequest(
                            unknown, LEADER_EPOCH, LEADER_EPOCH))));
    assertThat(response.error()).isEqualTo(Errors.NONE);
    assertThat(response.partitions())
        .extracting(ReplicaFetch.EpochPartitionResponse::error)
        .containsExactly(
            Errors.NONE,
            Errors.NONE,
            Errors.FENCED_LEADER_EPOCH,
            Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(response.partitions().get(0).endOffset())
        .isEqualTo(new EpochEndOffset(LEADER_EPOCH, 3));
    assertThat(response.partitions().get(1).endOffset())
        .as("before the first epoch: where it starts")
        .isEqualTo(new EpochEndOffset(LEADER_EPOCH - 2, 0));
    assertThat(response.partitions().get(2).endOffset().isUndefined()).isTrue();
  }

  // -------------------------------------------------------------------------------------------
  // long poll

  @Test
  void aReplicaFetchWithNothingNewParksAndCompletesWhenTheLeaderAppends() {
    CompletableFuture<ReplicaFetch.Response> poll =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(fetchRequest(2, brokerEpoch2, 0, MAX_WAIT_MS));
    assertThat(poll).isNotDone();
    scheduler.advance(MAX_WAIT_MS - 1);
    assertThat(poll).isNotDone();
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("late"), Acks.LEADER, 30_000).join();
    assertThat(poll).isCompleted();
    ReplicaFetch.PartitionResponse answer = poll.join().partitions().get(0);
    assertThat(answer.error()).isEqualTo(Errors.NONE);
    assertThat(values(answer.records())).containsExactly("late");
    assertThat(answer.logEndOffset()).isEqualTo(1);
    assertThat(answer.leaderEpoch()).isEqualTo(LEADER_EPOCH);
    assertThat(scheduler.pendingTasks()).as("the timeout was cancelled").isZero();
    assertThat(leader().pendingWaiters()).isZero();
  }

  @Test
  void aParkedReplicaFetchCompletesEmptyWhenItsMaxWaitExpires() {
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("a"), Acks.LEADER, 30_000).join();
    CompletableFuture<ReplicaFetch.Response> poll =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(fetchRequest(2, brokerEpoch2, 1, MAX_WAIT_MS));
    scheduler.advance(MAX_WAIT_MS - 1);
    assertThat(poll).isNotDone();
    scheduler.advance(1);
    assertThat(poll).isCompleted();
    ReplicaFetch.PartitionResponse answer = poll.join().partitions().get(0);
    assertThat(answer.error()).isEqualTo(Errors.NONE);
    assertThat(answer.records().hasRemaining()).isFalse();
    assertThat(answer.highWatermark()).as("the follower reached the end: committed").isEqualTo(1);
  }

  @Test
  void aReplicaFetchWithDataOrAnErrorIsAnsweredAtOnce() {
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("a"), Acks.LEADER, 30_000).join();
    assertThat(
            new ReplicaFetchHandler(replicaManager)
                .handleReplicaFetch(fetchRequest(2, brokerEpoch2, 0, MAX_WAIT_MS)))
        .isCompleted();
    CompletableFuture<ReplicaFetch.Response> mixed =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(
                new ReplicaFetch.Request(
                    2,
                    brokerEpoch2,
                    MAX_WAIT_MS,
                    1 << 20,
                    List.of(
                        new ReplicaFetch.PartitionRequest(ORDERS_0, LEADER_EPOCH, 1, 1 << 20),
                        new ReplicaFetch.PartitionRequest(
                            ORDERS_0, LEADER_EPOCH + 1, 1, 1 << 20))));
    assertThat(mixed).isCompleted();
    assertThat(mixed.join().partitions())
        .extracting(ReplicaFetch.PartitionResponse::error)
        .containsExactly(Errors.NONE, Errors.UNKNOWN_LEADER_EPOCH);
    assertThat(scheduler.pendingTasks()).isZero();
  }

  @Test
  void aFetchBeyondTheLeadersLogEndIsOutOfRangeWithTheLeadersOffsets() {
    ReplicaManagerCalls.append(replicaManager, ORDERS_0, batch("a", "b"), Acks.LEADER, 30_000)
        .join();
    ReplicaFetch.PartitionResponse answer =
        new ReplicaFetchHandler(replicaManager)
            .handleReplicaFetch(fetchRequest(2, brokerEpoch2, 5, MAX_WAIT_MS))
            .join()
            .partitions()
            .get(0);
    assertThat(answer.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
    assertThat(answer.logStartOffset()).isZero();
    assertThat(answer.logEndOffset()).isEqualTo(2);
    assertThat(answer.leaderEpoch()).isEqualTo(LEADER_EPOCH);
  }
}
