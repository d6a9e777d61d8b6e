package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.offline;
import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batch;
import static dev.tributary.replication.ReplicaHarness.values;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.quota.QuotaConfig;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.ProduceService.ProduceRequest;
import dev.tributary.server.ProduceService.ProduceResponse;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce through {@link ProduceService} on broker 1: {@code orders} has partition 0 here, 1 on
 * broker 2 and 2 on broker 3; {@code replicated-0} is led here with broker 2 in its ISR, so its
 * high watermark moves only when broker 2 fetches.
 */
class ProduceServiceTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
  private static final TopicPartition ORDERS_2 = new TopicPartition("orders", 2);
  private static final TopicPartition REPLICATED_0 = new TopicPartition("replicated", 0);
  private static final RequestContext CLIENT = new RequestContext(null, "10.0.0.1", false);
  private static final long SIZE = 1_000;

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private final RecordingForwarder forwarder = new RecordingForwarder();
  private final RecordingStats stats = new RecordingStats();
  private ClientQuotaManager quotas;
  private ProduceService produce;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    harness.placeTopic("orders", Map.of(), on(1), on(2), on(3));
    harness.placeTopic("replicated", Map.of(), replicated(0, 1, 2));
    quotas = new ClientQuotaManager(QuotaConfig.unlimited(), harness.clock);
    produce = service(AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private ProduceService service(AccessControl access) {
    return new ProduceService(broker, access, quotas, forwarder, stats);
  }

  private static Map<TopicPartition, ByteBuffer> batches(Object... partitionsAndValues) {
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    for (int i = 0; i < partitionsAndValues.length; i += 2) {
      batches.put(
          (TopicPartition) partitionsAndValues[i], batch((String) partitionsAndValues[i + 1]));
    }
    return batches;
  }

  private CompletableFuture<ProduceResponse> send(
      Map<TopicPartition, ByteBuffer> batches, Acks acks, boolean forward) {
    return produce.produce(CLIENT, new ProduceRequest(batches, acks, 1_000, SIZE, forward));
  }

  private static Map<TopicPartition, ProducePartitionResult> partitions(
      CompletableFuture<ProduceResponse> response) {
    assertThat(response).isCompleted();
    return response.join().partitions();
  }

  private List<String> logOf(TopicPartition tp) {
    return values(
        harness
            .partition(tp)
            .log()
            .read(0, ReplicaHarness.MAX_BYTES, Long.MAX_VALUE, true)
            .records());
  }

  @Test
  void severalPartitionsAreAnsweredInTheRequestsOrderEachWithItsOwnOutcome() {
    harness.append(ORDERS_0, batch("earlier", "records"));
    TopicPartition noTopic = new TopicPartition("nope", 0);
    TopicPartition noPartition = new TopicPartition("orders", 9);
    Map<TopicPartition, ProducePartitionResult> answer =
        partitions(
            send(
                batches(noPartition, "x", ORDERS_0, "a", noTopic, "y", REPLICATED_0, "b"),
                Acks.LEADER,
                false));

    assertThat(answer).containsOnlyKeys(noPartition, ORDERS_0, noTopic, REPLICATED_0);
    assertThat(List.copyOf(answer.keySet()))
        .containsExactly(noPartition, ORDERS_0, noTopic, REPLICATED_0);
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(answer.get(ORDERS_0).baseOffset()).isEqualTo(2);
    assertThat(answer.get(ORDERS_0).recordCount()).isEqualTo(1);
    assertThat(answer.get(REPLICATED_0).baseOffset()).isZero();
    assertThat(answer.get(noTopic).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(answer.get(noTopic).errorMessage()).isEqualTo("Topic 'nope' does not exist.");
    assertThat(answer.get(noPartition).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(answer.get(noPartition).errorMessage()).contains("the topic has 3 partition(s)");
    assertThat(answer.get(noPartition).baseOffset()).isEqualTo(-1);
    assertThat(logOf(ORDERS_0)).containsExactly("earlier", "records", "a");
  }

  @Test
  void partitionsLedElsewhereAreForwardedAsBytesAndAnsweredWithTheLeadersResults() {
    Map<TopicPartition, ByteBuffer> sent =
        batches(ORDERS_1, "to-2", ORDERS_0, "here", ORDERS_2, "to-3");
    CompletableFuture<ProduceResponse> response = send(sent, Acks.ALL, true);

    assertThat(response).as("waits for the leaders' answers").isNotDone();
    assertThat(forwarder.calls())
        .extracting(RecordingForwarder.Call::leaderId)
        .containsExactlyInAnyOrder(2, 3);
    RecordingForwarder.Call toTwo =
        forwarder.calls().stream().filter(c -> c.leaderId() == 2).findFirst().orElseThrow();
    assertThat(toTwo.batches()).containsOnlyKeys(ORDERS_1);
    assertThat(toTwo.batches().get(ORDERS_1)).isEqualTo(batch("to-2"));
    assertThat(toTwo.acks()).isEqualTo(Acks.ALL);
    assertThat(toTwo.timeoutMs()).isEqualTo(1_000);
    assertThat(toTwo.context()).isEqualTo(CLIENT);

    forwarder.calls().forEach(call -> call.appendedAt(call.leaderId() * 100L));
    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(List.copyOf(answer.keySet())).containsExactly(ORDERS_1, ORDERS_0, ORDERS_2);
    assertThat(answer.get(ORDERS_1).baseOffset()).isEqualTo(200);
    assertThat(answer.get(ORDERS_2).baseOffset()).isEqualTo(300);
    assertThat(answer.get(ORDERS_0).baseOffset()).isZero();
    assertThat(logOf(ORDERS_0)).containsExactly("here");
    assertThat(stats.produced)
        .as("only what this broker appended as leader")
        .containsOnlyKeys("orders");
    assertThat(stats.produced.get("orders")).containsExactly(1L, (long) batch("here").remaining());
  }

  @Test
  void withoutForwardingAPartitionLedElsewhereIsNotLeaderOrFollowerNamingItsLeader() {
    Map<TopicPartition, ProducePartitionResult> answer =
        partitions(send(batches(ORDERS_1, "x", ORDERS_0, "y"), Acks.LEADER, false));

    assertThat(answer.get(ORDERS_1).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    assertThat(answer.get(ORDERS_1).errorMessage()).contains("its leader is broker 2");
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(forwarder.calls()).isEmpty();
  }

  @Test
  void anOfflinePartitionIsLeaderNotAvailableAndIsNeverForwarded() {
    harness.placeTopic("dark", Map.of(), offline(2));
    TopicPartition dark = new TopicPartition("dark", 0);
    Map<TopicPartition, ProducePartitionResult> answer =
        partitions(send(batches(dark, "x"), Acks.LEADER, true));

    assertThat(answer.get(dark).error()).isEqualTo(Errors.LEADER_NOT_AVAILABLE);
    assertThat(answer.get(dark).errorMessage()).contains("has no leader");
    assertThat(forwarder.calls()).isEmpty();
  }

  @Test
  void aLeaderThatCannotBeReachedFailsOnlyItsOwnPartitionsWithNetworkException() {
    CompletableFuture<ProduceResponse> response =
        send(batches(ORDERS_1, "to-2", ORDERS_2, "to-3", ORDERS_0, "here"), Acks.LEADER, true);
    for (RecordingForwarder.Call call : forwarder.calls()) {
      if (call.leaderId() == 2) {
        call.fail(new java.io.IOException("down", new ConnectException("refused on 10.9.9.9")));
      } else {
        call.appendedAt(7);
      }
    }

    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(answer.get(ORDERS_1).error()).isEqualTo(Errors.NETWORK_EXCEPTION);
    assertThat(answer.get(ORDERS_1).errorMessage())
        .contains("Broker 2 leads orders-1", "the connection was refused")
        .doesNotContain("10.9.9.9")
        .doesNotContain("Exception");
    assertThat(answer.get(ORDERS_2).error()).isEqualTo(Errors.NONE);
    assertThat(answer.get(ORDERS_2).baseOffset()).isEqualTo(7);
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
  }

  @Test
  void aForwarderThatThrowsFailsOnlyItsLeadersPartitions() {
    PartitionForwarder throwing =
        (leaderId, batches, acks, timeoutMs, context) -> {
          throw new IllegalArgumentException("unsupported URI http://broker_2:9002/");
        };
    produce = new ProduceService(broker, AccessControl.ALLOW_ALL, quotas, throwing, stats);

    CompletableFuture<ProduceResponse> response =
        send(batches(ORDERS_0, "here", ORDERS_1, "to-2"), Acks.LEADER, true);

    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(answer.get(ORDERS_1).error()).isEqualTo(Errors.NETWORK_EXCEPTION);
  }

  @Test
  void aLeaderThatAnswersWithoutSomePartitionFailsThatPartitionWithNetworkException() {
    harness.placeTopic("more", Map.of(), on(2), on(2));
    TopicPartition more0 = new TopicPartition("more", 0);
    TopicPartition more1 = new TopicPartition("more", 1);
    CompletableFuture<ProduceResponse> response =
        send(batches(more0, "a", more1, "b"), Acks.LEADER, true);
    assertThat(forwarder.calls()).hasSize(1);
    forwarder.calls().get(0).answer(Map.of(more0, RecordingForwarder.appended(batch("a"), 4)));

    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(answer.get(more0).baseOffset()).isEqualTo(4);
    assertThat(answer.get(more1).error()).isEqualTo(Errors.NETWORK_EXCEPTION);
    assertThat(answer.get(more1).errorMessage()).contains("did not answer for this partition");
  }

  @Test
  void acksAllAnswersOnceTheHighWatermarkPassesTheRecords() {
    CompletableFuture<ProduceResponse> response =
        send(batches(REPLICATED_0, "a", ORDERS_0, "b"), Acks.ALL, false);
    assertThat(response).as("broker 2 has not fetched the records").isNotDone();

    harness.followerFetch(REPLICATED_0, 2, 1);

    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(answer.get(REPLICATED_0).error()).isEqualTo(Errors.NONE);
    assertThat(answer.get(REPLICATED_0).baseOffset()).isZero();
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(harness.clock.pendingTasks()).as("the deadline was cancelled").isZero();
  }

  @Test
  void acksAllTimesOutWithRequestTimedOutWhileTheOtherPartitionsResultsStand() {
    CompletableFuture<ProduceResponse> response =
        send(
            batches(REPLICATED_0, "a", ORDERS_0, "b", new TopicPartition("nope", 0), "c"),
            Acks.ALL,
            false);
    harness.clock.advance(999);
    assertThat(response).isNotDone();
    harness.clock.advance(1);

    Map<TopicPartition, ProducePartitionResult> answer = partitions(response);
    assertThat(answer.get(REPLICATED_0).error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
    assertThat(answer.get(REPLICATED_0).errorMessage()).contains("outcome unknown");
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(answer.get(ORDERS_0).baseOffset()).isZero();
    assertThat(answer.get(new TopicPartition("nope", 0)).error())
        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(harness.partition(REPLICATED_0).logEndOffset())
        .as("appended on the leader all the same")
        .isEqualTo(1);
  }

  @Test
  void aTopicThePrincipalMayNotWriteFailsAloneAndItsRefusalIsCountedOnce() {
    harness.placeTopic("secret", Map.of(), on(1), on(1));
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.WRITE, ResourceType.TOPIC, "orders");
    produce = service(broker.accessControl(denials));
    TopicPartition secret0 = new TopicPartition("secret", 0);
    TopicPartition secret1 = new TopicPartition("secret", 1);

    Map<TopicPartition, ProducePartitionResult> answer =
        partitions(
            produce.produce(
                new RequestContext("User:alice", "10.0.0.1", false),
                new ProduceRequest(
                    batches(secret0, "x", ORDERS_0, "ok", secret1, "y"),
                    Acks.LEADER,
                    1_000,
                    SIZE,
                    false)));

    assertThat(answer.get(secret0).error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(answer.get(secret1).error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(answer.get(secret0).errorMessage())
        .contains("User:alice is not authorized to WRITE topic 'secret'");
    assertThat(answer.get(ORDERS_0).error()).isEqualTo(Errors.NONE);
    assertThat(denials).hasValue(1);
    assertThat(harness.partition(secret0).logEndOffset()).isZero();
    assertThat(harness.partition(secret1).logEndOffset()).isZero();
  }

  @Test
  void theQuotaIsChargedOncePerRequestAndTheThrottleTimeIsReturned() {
    QuotaConfig tight = new QuotaConfig(100, Map.of(), 11, 1_000);
    quotas = new ClientQuotaManager(tight, harness.clock);
    ClientQuotaManager reference = new ClientQuotaManager(tight, harness.clock);
    produce = service(AccessControl.ALLOW_ALL);

    long sizeInBytes = 100_000;
    ProduceResponse response =
        produce
            .produce(
                CLIENT,
                new ProduceRequest(
                    batches(ORDERS_0, "a", REPLICATED_0, "b"),
                    Acks.LEADER,
                    1_000,
                    sizeInBytes,
                    false))
            .join();

    long expected = reference.recordAndGetThrottleTimeMs(CLIENT.clientIdentity(), sizeInBytes);
    assertThat(expected).isPositive();
    assertThat(response.throttleTimeMs()).isEqualTo(expected);
    assertThat(quotas.byteRate("Anonymous:10.0.0.1"))
        .isEqualTo(reference.byteRate("Anonymous:10.0.0.1"));
    assertThat(stats.throttles)
        .containsExactly(new RecordingStats.Throttle("Anonymous:10.0.0.1", expected));
  }

  @Test
  void aRequestRelayedByAnotherBrokerIsNotChargedAgain() {
    quotas = new ClientQuotaManager(new QuotaConfig(100, Map.of(), 11, 1_000), harness.clock);
    produce = service(AccessControl.ALLOW_ALL);
    RequestContext relayed = new RequestContext("User:alice", "10.0.0.2", true);

    ProduceResponse response =
        produce
            .produce(
                relayed,
                new ProduceRequest(batches(ORDERS_0, "a"), Acks.LEADER, 1_000, SIZE, false))
            .join();

    assertThat(response.throttleTimeMs()).isZero();
    assertThat(quotas.byteRate("User:alice")).isZero();
    assertThat(stats.throttles).isEmpty();
    assertThat(response.partitions().get(ORDERS_0).error()).isEqualTo(Errors.NONE);
  }

  @Test
  void statsCountOnlyTheRecordsAndBytesAppendedHere() {
    harness.placeTopic("dark", Map.of(), offline(2));
    ByteBuffer three = batch("a", "b", "c");
    long size = three.remaining();
    Map<TopicPartition, ByteBuffer> sent = new LinkedHashMap<>();
    sent.put(ORDERS_0, three);
    sent.put(new TopicPartition("dark", 0), batch("lost"));
    sent.put(ORDERS_1, batch("elsewhere"));

    partitions(send(sent, Acks.LEADER, false));

    assertThat(stats.produced).containsOnlyKeys("orders");
    assertThat(stats.produced.get("orders")).containsExactly(3L, size);
  }
}
