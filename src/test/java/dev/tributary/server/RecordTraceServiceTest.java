package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.quota.QuotaConfig;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.trace.TraceReport;
import dev.tributary.trace.TraceStep;
import dev.tributary.trace.TraceStep.Kind;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces through the real produce path on broker 1: {@code replicated-0} is led here with broker 2
 * in its ISR (its high watermark moves only when broker 2 fetches); {@code orders} has partition 0
 * here and partition 1 on broker 2.
 */
class RecordTraceServiceTest {
  private static final TopicPartition REPLICATED_0 = new TopicPartition("replicated", 0);
  private static final RequestContext CLIENT = new RequestContext(null, "10.0.0.1", false);
  private static final long WAIT_MS = 5_000;

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private RecordTraceService traces;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    harness.placeTopic("orders", Map.of(), on(1), on(2));
    harness.placeTopic("replicated", Map.of(), replicated(3, 1, 2));
    traces = service(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private RecordTraceService service(AccessControl access) {
    ProduceService produce =
        new ProduceService(
            broker,
            access,
            new ClientQuotaManager(QuotaConfig.unlimited(), harness.clock),
            new RecordingForwarder(),
            new RecordingStats());
    return new RecordTraceService(broker, produce, harness.clock, harness.clock, WAIT_MS, 30_000);
  }

  private static List<Kind> kinds(TraceReport report) {
    return report.steps().stream().map(TraceStep::kind).toList();
  }

  @Test
  void acksAllTraceEndsOnceTheFollowerFetchedTheHighWatermarkMovedAndTheProducerWasAnswered() {
    harness.append(REPLICATED_0, ReplicaHarness.batch("earlier"));
    CompletableFuture<TraceReport> traced = traces.trace(CLIENT, "replicated", null, Acks.ALL);
    assertThat(traced).as("broker 2 has not fetched the record").isNotDone();
    assertThat(harness.partition(REPLICATED_0).traces().armedCount()).isEqualTo(1);

    harness.clock.advance(2);
    harness.followerFetch(REPLICATED_0, 2, 2);
    harness.clock.advance(0); // runs the hand-off

    assertThat(traced).isCompleted();
    TraceReport report = traced.join();
    assertThat(report.topicPartition()).isEqualTo(REPLICATED_0);
    assertThat(report.offset()).isEqualTo(1);
    assertThat(report.leaderId()).isEqualTo(1);
    assertThat(report.leaderEpoch()).isEqualTo(3);
    assertThat(report.isr()).containsExactly(1, 2);
    assertThat(report.complete()).isTrue();
    assertThat(kinds(report))
        .containsExactly(Kind.APPENDED, Kind.REPLICATED, Kind.COMMITTED, Kind.ACKNOWLEDGED);
    assertThat(report.steps().stream().map(TraceStep::atMs)).containsExactly(0.0, 2.0, 2.0, 2.0);
    assertThat(report.steps().get(1).text())
        .isEqualTo("follower 2 fetched it (its next fetch asked from offset 2, so its LEO is 2)");
    assertThat(harness.partition(REPLICATED_0).traces().armedCount())
        .as("disarmed once done")
        .isZero();
    assertThat(harness.clock.pendingTasks()).as("the wait's deadline was cancelled").isZero();
  }

  @Test
  void aFollowerThatNeverFetchesIsReportedWhenTheWaitRunsOut() {
    CompletableFuture<TraceReport> traced = traces.trace(CLIENT, "replicated", 0, Acks.LEADER);
    assertThat(traced).isNotDone();

    harness.clock.advance(WAIT_MS);

    TraceReport report = traced.join();
    assertThat(report.complete()).isFalse();
    assertThat(report.waitedFor()).isEqualTo("appended");
    assertThat(kinds(report))
        .containsExactly(Kind.APPENDED, Kind.ACKNOWLEDGED, Kind.REPLICATED, Kind.COMMITTED);
    assertThat(report.steps().get(2).atMs()).isNull();
    assertThat(harness.partition(REPLICATED_0).traces().armedCount()).isZero();
  }

  @Test
  void unknownTopicsAndPartitionsAreRefusedAndNothingIsAppended() {
    assertThatThrownBy(() -> traces.trace(CLIENT, "nope", null, Acks.ALL))
        .isInstanceOf(UnknownTopicOrPartitionException.class)
        .hasMessage("Topic 'nope' does not exist.");
    assertThatThrownBy(() -> traces.trace(CLIENT, "replicated", 4, Acks.ALL))
        .isInstanceOf(UnknownTopicOrPartitionException.class)
        .hasMessageContaining("Partition 4 of topic 'replicated' does not exist");
    assertThat(harness.partition(REPLICATED_0).logEndOffset()).isZero();
  }

  @Test
  void aPartitionLedElsewhereIsRefusedNamingItsLeader() {
    assertThatThrownBy(() -> traces.trace(CLIENT, "orders", 1, Acks.ALL))
        .isInstanceOfSatisfying(
            NotLeaderOrFollowerException.class,
            e -> assertThat(e.leaderId()).isEqualTo(OptionalInt.of(2)));
  }

  @Test
  void aProducerWithoutWriteOnTheTopicAppendsNothingAndArmsNothing() {
    broker.grant(
        "User:alice",
        dev.tributary.security.AclOperation.READ,
        dev.tributary.security.ResourceType.TOPIC,
        "replicated");
    RecordTraceService denied = service(broker.accessControl(new AtomicInteger()));
    CompletableFuture<TraceReport> traced =
        denied.trace(
            new RequestContext("User:alice", "10.0.0.1", false), "replicated", 0, Acks.ALL);

    assertThat(traced).isCompletedExceptionally();
    assertThatThrownBy(traced::join).hasCauseInstanceOf(AuthorizationException.class);
    assertThat(harness.partition(REPLICATED_0).logEndOffset()).isZero();
    assertThat(harness.partition(REPLICATED_0).traces().armedCount()).isZero();
  }
}
