package dev.tributary.replication;

import static dev.tributary.replication.TestBatches.batch;
import static dev.tributary.replication.TestBatches.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.ManualClock;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataRecord;
import dev.tributary.metadata.TopicControl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaManagerTest {
  @TempDir Path dir;
  private final ManualClock scheduler = new ManualClock();
  private final TopicControl control = new TopicControl(new Random(3));
  private LogManager logManager;
  private ReplicaManager replicaManager;
  private MetadataImage image = MetadataImage.EMPTY;
  private final TopicPartition orders0 = new TopicPartition("orders", 0);

  @BeforeEach
  void setUp() {
    logManager = new LogManager(dir, scheduler);
    logManager.loadLogs(tp -> java.util.Optional.empty());
    replicaManager = new ReplicaManager(1, logManager, scheduler, Runnable::run);
  }

  @AfterEach
  void tearDown() {
    replicaManager.shutdown();
    logManager.shutdown();
  }

  private void apply(List<MetadataRecord> records) {
    for (MetadataRecord record : records) {
      image = image.replay(image.lastOffset() + 1, record);
    }
    replicaManager.onMetadataUpdate(image);
  }

  @Test
  void aTopicPlacedOnThisBrokerGetsALogAndLeadership() {
    apply(control.createTopic(image, "orders", 3, 1, Map.of(), List.of(1)));
    assertThat(replicaManager.partitions()).hasSize(3);
    assertThat(replicaManager.leaderPartition(orders0).statusLine())
        .isEqualTo("b1 leader e0 orders-0 hw=0 leo=0 isr=[1]");
    assertThat(Files.isDirectory(dir.resolve("orders-0"))).isTrue();
  }

  @Test
  void appendWithAcksAllCompletesOnceTheHighWatermarkPassesTheRecords() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    CompletableFuture<ProducePartitionResult> first =
        ReplicaManagerCalls.append(replicaManager, orders0, batch("a", "b"), Acks.ALL, 30_000);
    CompletableFuture<ProducePartitionResult> second =
        ReplicaManagerCalls.append(replicaManager, orders0, batch("c"), Acks.ALL, 30_000);
    assertThat(first.join().baseOffset()).isZero();
    assertThat(second.join().baseOffset()).isEqualTo(2);
    Partition partition = replicaManager.leaderPartition(orders0);
    assertThat(partition.highWatermark()).isEqualTo(3).isEqualTo(partition.logEndOffset());
  }

  @Test
  void fetchReturnsCommittedRecordsFromTheRequestedOffset() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    ReplicaManagerCalls.append(replicaManager, orders0, batch("a", "b"), Acks.ALL, 30_000).join();
    ReplicaManagerCalls.append(replicaManager, orders0, batch("c"), Acks.ALL, 30_000).join();
    FetchPartitionData result =
        ReplicaManagerCalls.fetch(replicaManager, orders0, 2, 1 << 20, 0).join();
    assertThat(values(result.records())).containsExactly("c");
    assertThat(result.highWatermark()).isEqualTo(3);
  }

  @Test
  void aLongPollParksNoThreadAndCompletesWhenDataArrives() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    CompletableFuture<FetchPartitionData> poll =
        ReplicaManagerCalls.fetch(replicaManager, orders0, 0, 1 << 20, 5_000);
    assertThat(poll).isNotDone();
    ReplicaManagerCalls.append(replicaManager, orders0, batch("late"), Acks.LEADER, 30_000).join();
    assertThat(poll).isDone();
    assertThat(values(poll.join().records())).containsExactly("late");
    assertThat(scheduler.pendingTasks()).isZero(); // the timeout was cancelled
  }

  @Test
  void aLongPollTimesOutEmptyAfterMaxWait() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    CompletableFuture<FetchPartitionData> poll =
        ReplicaManagerCalls.fetch(replicaManager, orders0, 0, 1 << 20, 5_000);
    scheduler.advance(4_999);
    assertThat(poll).isNotDone();
    scheduler.advance(1);
    assertThat(poll).isDone();
    assertThat(poll.join().records().hasRemaining()).isFalse();
  }

  @Test
  void deletingATopicFailsItsWaitersAndRemovesItsLogs() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    CompletableFuture<FetchPartitionData> poll =
        ReplicaManagerCalls.fetch(replicaManager, orders0, 0, 1 << 20, 5_000);
    apply(control.deleteTopic(image, "orders"));
    assertThat(poll).isCompletedExceptionally();
    assertThatThrownBy(poll::join)
        .isInstanceOf(CompletionException.class)
        .as("the topic is gone from the image the waiter re-reads, as Kafka answers")
        .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    assertThat(Files.exists(dir.resolve("orders-0"))).isFalse();
    assertThatThrownBy(() -> replicaManager.leaderPartition(orders0))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }

  @Test
  void unknownTopicAndUnknownPartitionAreToldApart() {
    apply(control.createTopic(image, "orders", 2, 1, Map.of(), List.of(1)));
    assertThatThrownBy(() -> replicaManager.leaderPartition(new TopicPartition("nope", 0)))
        .isInstanceOfSatisfying(
            UnknownTopicOrPartitionException.class, e -> assertThat(e.topicExists()).isFalse());
    assertThatThrownBy(() -> replicaManager.leaderPartition(new TopicPartition("orders", 2)))
        .isInstanceOfSatisfying(
            UnknownTopicOrPartitionException.class, e -> assertThat(e.topicExists()).isTrue());
  }

  @Test
  void aPartitionPlacedElsewhereNamesItsLeader() {
    apply(control.createTopic(image, "elsewhere", 1, 1, Map.of(), List.of(2)));
    assertThatThrownBy(() -> replicaManager.leaderPartition(new TopicPartition("elsewhere", 0)))
        .isInstanceOf(NotLeaderOrFollowerException.class)
        .hasMessageContaining("leader is broker 2");
  }

  @Test
  void configChangesReachTheLog() {
    apply(control.createTopic(image, "orders", 1, 1, Map.of(), List.of(1)));
    apply(control.alterConfig(image, "orders", "retention.ms", "1234"));
    assertThat(replicaManager.leaderPartition(orders0).log().config().retentionMs())
        .isEqualTo(1234);
  }
}
