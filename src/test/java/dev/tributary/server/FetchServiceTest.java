package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static dev.tributary.replication.ReplicaHarness.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.replication.FetchParams;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.PartitionFetch;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetch through {@link FetchService} on broker 1: consumers read below the high watermark, each
 * topic needs READ, followers must be brokers in their current registration, and what consumers get
 * is counted from their fetch offset. {@code replicated-0} is led here with broker 2 in its ISR;
 * {@code orders} and {@code secret} have their partitions here alone.
 */
class FetchServiceTest {
  private static final TopicPartition REPLICATED_0 = new TopicPartition("replicated", 0);
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final TopicPartition SECRET_0 = new TopicPartition("secret", 0);
  private static final TopicPartition SECRET_1 = new TopicPartition("secret", 1);
  private static final RequestContext CONSUMER =
      new RequestContext("User:alice", "10.0.0.1", false);
  private static final int MAX = ReplicaHarness.MAX_BYTES;

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private final RecordingStats stats = new RecordingStats();
  private FetchService fetch;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    harness.placeTopic("replicated", Map.of(), replicated(0, 1, 2));
    harness.placeTopic("orders", Map.of(), on(1));
    harness.placeTopic("secret", Map.of(), on(1), on(1));
    fetch = new FetchService(broker, AccessControl.ALLOW_ALL, stats);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private CompletableFuture<List<FetchPartitionData>> consume(
      long maxWaitMs, PartitionFetch... partitions) {
    return fetch.fetch(CONSUMER, FetchParams.consumer(maxWaitMs, 1, MAX), List.of(partitions));
  }

  private static PartitionFetch from(TopicPartition tp, long offset) {
    return PartitionFetch.of(tp, offset, MAX);
  }

  private FetchPartitionData consumeNow(TopicPartition tp, long offset) {
    CompletableFuture<List<FetchPartitionData>> answer = consume(0, from(tp, offset));
    assertThat(answer).isCompleted();
    return answer.join().get(0);
  }

  @Test
  void aConsumerNeverSeesPastTheHighWatermark() {
    harness.append(REPLICATED_0, batch("a"));
    harness.append(REPLICATED_0, batch("b"));
    harness.append(REPLICATED_0, batch("c"));
    harness.followerFetch(REPLICATED_0, 2, 1);

    FetchPartitionData first = consumeNow(REPLICATED_0, 0);
    assertThat(values(first.records())).containsExactly("a");
    assertThat(first.highWatermark()).isEqualTo(1);
    assertThat(first.logEndOffset()).isEqualTo(3);
    assertThat(consumeNow(REPLICATED_0, 1).records().hasRemaining())
        .as("offset 1 is on the leader only")
        .isFalse();

    harness.followerFetch(REPLICATED_0, 2, 3);
    assertThat(values(consumeNow(REPLICATED_0, 1).records())).containsExactly("b", "c");
  }

  @Test
  void aLongPollBelowTheHighWatermarkIsCompletedByTheFollowerThatMovesIt() {
    harness.append(REPLICATED_0, batch("a"));
    CompletableFuture<List<FetchPartitionData>> poll = consume(5_000, from(REPLICATED_0, 0));
    assertThat(poll).as("appended but not committed").isNotDone();

    harness.followerFetch(REPLICATED_0, 2, 1);

    assertThat(poll).isCompleted();
    assertThat(values(poll.join().get(0).records())).containsExactly("a");
  }

  @Test
  void eachTopicNeedsReadAndARefusedTopicFailsAloneInItsPlace() {
    harness.append(ORDERS_0, batch("visible"));
    harness.append(SECRET_0, batch("hidden"));
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.READ, ResourceType.TOPIC, "orders");
    fetch = new FetchService(broker, broker.accessControl(denials), stats);

    List<FetchPartitionData> answer =
        consume(0, from(SECRET_0, 0), from(ORDERS_0, 0), from(SECRET_1, 0)).join();

    assertThat(answer)
        .extracting(FetchPartitionData::topicPartition)
        .containsExactly(SECRET_0, ORDERS_0, SECRET_1);
    assertThat(answer)
        .extracting(FetchPartitionData::error)
        .containsExactly(
            Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE, Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(answer.get(0).errorMessage())
        .contains("User:alice is not authorized to READ topic 'secret'");
    assertThat(answer.get(0).records().hasRemaining()).isFalse();
    assertThat(values(answer.get(1).records())).containsExactly("visible");
    assertThat(denials).as("one refusal per topic").hasValue(1);
    assertThat(stats.fetched).containsOnlyKeys("orders");
  }

  @Test
  void aLongPollWithARefusedTopicWaitsForTheOthersAndAnswersInOrder() {
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.READ, ResourceType.TOPIC, "orders");
    fetch = new FetchService(broker, broker.accessControl(denials), stats);

    CompletableFuture<List<FetchPartitionData>> poll =
        consume(5_000, from(SECRET_0, 0), from(ORDERS_0, 0));
    assertThat(poll).isNotDone();
    harness.append(ORDERS_0, batch("late"));

    assertThat(poll).isCompleted();
    assertThat(poll.join())
        .extracting(FetchPartitionData::error)
        .containsExactly(Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE);
    assertThat(values(poll.join().get(1).records())).containsExactly("late");
  }

  @Test
  void aFetchOfOnlyRefusedTopicsIsAnsweredAtOnce() {
    fetch = new FetchService(broker, broker.accessControl(new AtomicInteger()), stats);

    CompletableFuture<List<FetchPartitionData>> poll = consume(5_000, from(SECRET_0, 0));

    assertThat(poll).isCompleted();
    assertThat(poll.join().get(0).error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(harness.clock.pendingTasks()).isZero();
  }

  @Test
  void onlyABrokerMayFetchAsAFollower() {
    harness.append(REPLICATED_0, batch("a"));
    FetchParams follower = FetchParams.follower(2, harness.brokerEpoch(2), 0, 1, MAX);
    List<PartitionFetch> fetches = List.of(from(REPLICATED_0, 1));

    assertThatThrownBy(() -> fetch.fetch(CONSUMER, follower, fetches))
        .isInstanceOfSatisfying(
            AuthorizationException.class,
            e -> assertThat(e.error()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED));
    assertThat(harness.partition(REPLICATED_0).highWatermark())
        .as("the refused fetch told the leader nothing")
        .isZero();

    fetch.fetch(RequestContext.INTERNAL, follower, fetches).join();
    assertThat(harness.partition(REPLICATED_0).highWatermark()).isEqualTo(1);
    assertThat(stats.fetched).as("replication is not consumption").isEmpty();
  }

  @Test
  void theInterBrokerReplicaCallsAreRefusedToClients() {
    ReplicaFetch.Request request =
        new ReplicaFetch.Request(2, harness.brokerEpoch(2), 0, MAX, List.of());
    ReplicaFetch.EpochRequest epochs =
        new ReplicaFetch.EpochRequest(2, harness.brokerEpoch(2), List.of());

    assertThatThrownBy(() -> fetch.replicaFetch(CONSUMER, request))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> fetch.replicaEpochEndOffsets(CONSUMER, epochs))
        .isInstanceOf(AuthorizationException.class);
    assertThat(fetch.replicaFetch(RequestContext.INTERNAL, request).join().error())
        .isEqualTo(Errors.NONE);
    assertThat(fetch.replicaEpochEndOffsets(RequestContext.INTERNAL, epochs).error())
        .isEqualTo(Errors.NONE);
  }

  @Test
  void aFollowerThatIsNotItsBrokersCurrentRegistrationIsRefusedWhole() {
    harness.append(REPLICATED_0, batch("a"));
    FetchParams stale = FetchParams.follower(2, harness.brokerEpoch(2) - 1, 0, 1, MAX);

    assertThatThrownBy(
            () -> fetch.fetch(RequestContext.INTERNAL, stale, List.of(from(REPLICATED_0, 1))))
        .isInstanceOf(StaleBrokerEpochException.class);
    assertThat(harness.partition(REPLICATED_0).highWatermark()).isZero();
  }

  @Test
  void recordsServedAreCountedFromTheFetchOffsetNotTheBatchStart() {
    ByteBuffer five = batch("r0", "r1", "r2", "r3", "r4");
    ByteBuffer two = batch("r5", "r6");
    long bytes = five.remaining() + two.remaining();
    harness.append(ORDERS_0, five);
    harness.append(ORDERS_0, two);

    FetchPartitionData answer = consumeNow(ORDERS_0, 2);

    assertThat(answer.sizeInBytes()).as("whole batches, as stored").isEqualTo(bytes);
    assertThat(stats.fetched.get("orders")).containsExactly(5L, bytes);
  }

  @Test
  void anEmptyReadCountsNothing() {
    harness.append(ORDERS_0, batch("a"));

    consumeNow(ORDERS_0, 1);

    assertThat(stats.fetched).isEmpty();
  }

  @Test
  void recordsFromCountsEachBatchFromTheOffsetOnward() {
    ByteBuffer batches = ByteBuffer.allocate(1_000);
    ByteBuffer first = batch("a", "b", "c");
    ByteBuffer second = batch("d", "e");
    second.putLong(0, 3L); // base offset 3
    batches.put(first).put(second).flip();

    assertThat(FetchService.recordsFrom(batches.duplicate(), 0)).isEqualTo(5);
    assertThat(FetchService.recordsFrom(batches.duplicate(), 1)).isEqualTo(4);
    assertThat(FetchService.recordsFrom(batches.duplicate(), 3)).isEqualTo(2);
    assertThat(FetchService.recordsFrom(batches.duplicate(), 4)).isEqualTo(1);
    assertThat(FetchService.recordsFrom(batches.duplicate(), 9)).isZero();
    assertThat(FetchService.recordsFrom(ByteBuffer.allocate(0), 0)).isZero();
  }
}
