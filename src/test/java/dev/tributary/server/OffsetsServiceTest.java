package dev.tributary.server;

import static dev.tributary.replication.ReplicaHarness.Placement.on;
import static dev.tributary.replication.ReplicaHarness.Placement.replicated;
import static dev.tributary.replication.ReplicaHarness.batchAt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.TimestampAndOffset;
import dev.tributary.replication.ListOffsetsTimestamps;
import dev.tributary.replication.ReplicaHarness;
import dev.tributary.replication.ReplicaHarness.Placement;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.OffsetsService.EpochEndOffsetResult;
import dev.tributary.server.OffsetsService.EpochQuery;
import dev.tributary.server.OffsetsService.ListOffsetsQuery;
import dev.tributary.server.OffsetsService.ListOffsetsResult;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets and OffsetForLeaderEpoch through {@link OffsetsService}, with Kafka's answers. {@code
 * events-0} is led here with broker 2 in its ISR. It holds, one record per batch:
 *
 * <pre>
 *   offset     0    1    2    3    4
 *   timestamp  100  300  200  350  400
 *   epoch      4    4    4    6    6
 * </pre>
 *
 * and broker 2 has fetched up to offset 4, so the high watermark is 4 and offset 4 is not
 * committed.
 */
class OffsetsServiceTest {
  private static final TopicPartition EVENTS_0 = new TopicPartition("events", 0);
  private static final RequestContext CLIENT = new RequestContext("User:alice", "10.0.0.1", false);
  private static final int EPOCH = 6;

  @TempDir Path dir;
  private LocalReplicas broker;
  private ReplicaHarness harness;
  private OffsetsService offsets;

  @BeforeEach
  void setUp() {
    broker = new LocalReplicas(dir);
    harness = broker.harness;
    harness.placeTopic("events", Map.of(), replicated(4, 1, 2));
    harness.append(EVENTS_0, batchAt(100, "a"));
    harness.append(EVENTS_0, batchAt(300, "b"));
    harness.append(EVENTS_0, batchAt(200, "c"));
    harness.move(EVENTS_0, new Placement(List.of(1, 2), List.of(1, 2), 1, EPOCH));
    harness.append(EVENTS_0, batchAt(350, "d"));
    harness.append(EVENTS_0, batchAt(400, "e"));
    harness.followerFetch(EVENTS_0, 2, 4);
    assertThat(harness.partition(EVENTS_0).highWatermark()).isEqualTo(4);
    offsets = new OffsetsService(broker, AccessControl.ALLOW_ALL);
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private ListOffsetsResult list(TopicPartition tp, long timestampMs, int currentLeaderEpoch) {
    return offsets
        .listOffsets(CLIENT, Map.of(tp, new ListOffsetsQuery(timestampMs, currentLeaderEpoch)))
        .get(tp);
  }

  private ListOffsetsResult list(long timestampMs) {
    ListOffsetsResult result = list(EVENTS_0, timestampMs, EPOCH);
    assertThat(result.error()).isEqualTo(Errors.NONE);
    return result;
  }

  private static ListOffsetsResult found(long timestampMs, long offset, int leaderEpoch) {
    return new ListOffsetsResult(Errors.NONE, null, timestampMs, offset, leaderEpoch);
  }

  @Test
  void earliestIsTheLogStartOffsetWithTheEpochThatWroteIt() {
    assertThat(list(ListOffsetsTimestamps.EARLIEST)).isEqualTo(found(-1, 0, 4));

    harness.followerFetch(EVENTS_0, 2, 5);
    harness.partition(EVENTS_0).log().maybeIncrementLogStartOffset(3);

    assertThat(list(ListOffsetsTimestamps.EARLIEST)).isEqualTo(found(-1, 3, EPOCH));
  }

  @Test
  void latestIsTheHighWatermarkInTheCurrentEpochNotTheLogEnd() {
    assertThat(list(ListOffsetsTimestamps.LATEST)).isEqualTo(found(-1, 4, EPOCH));
  }

  @Test
  void maxTimestampIsTheCommittedRecordWithTheLargestTimestampAndItsBatchsEpoch() {
    assertThat(list(ListOffsetsTimestamps.MAX_TIMESTAMP))
        .as("offset 4 (400) is above the high watermark")
        .isEqualTo(found(350, 3, EPOCH));

    harness.move(EVENTS_0, new Placement(List.of(1, 2), List.of(1, 2), 1, EPOCH + 1));
    assertThat(list(EVENTS_0, ListOffsetsTimestamps.MAX_TIMESTAMP, EPOCH + 1))
        .as("the epoch the record was written in, not the current one")
        .isEqualTo(found(350, 3, EPOCH));
  }

  @Test
  void maxTimestampSeesARecordOnceItIsCommitted() {
    harness.followerFetch(EVENTS_0, 2, 5);

    assertThat(list(ListOffsetsTimestamps.MAX_TIMESTAMP)).isEqualTo(found(400, 4, EPOCH));
  }

  @Test
  void byTimeIsTheFirstOffsetWhoseRecordIsAtLeastThatRecent() {
    assertThat(list(0)).isEqualTo(found(100, 0, 4));
    assertThat(list(150))
        .as("the first in offset order, not the closest")
        .isEqualTo(found(300, 1, 4));
    assertThat(list(300)).isEqualTo(found(300, 1, 4));
    assertThat(list(301)).isEqualTo(found(350, 3, EPOCH));
  }

  @Test
  void byTimeFindsNothingWhenOnlyUncommittedOrNoRecordsAreThatRecent() {
    ListOffsetsResult none = new ListOffsetsResult(Errors.NONE, null, -1, -1, -1);
    assertThat(list(351)).as("offset 4 is not committed").isEqualTo(none);
    assertThat(list(10_000)).isEqualTo(none);
  }

  @Test
  void eachPartitionIsAnsweredWithItsOwnErrorInTheRequestsOrder() {
    harness.placeTopic("remote", Map.of(), on(2));
    TopicPartition remote = new TopicPartition("remote", 0);
    TopicPartition missing = new TopicPartition("missing", 0);
    TopicPartition events1 = new TopicPartition("events", 1);
    Map<TopicPartition, ListOffsetsQuery> queries = new LinkedHashMap<>();
    queries.put(remote, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, -1));
    queries.put(EVENTS_0, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, EPOCH - 1));
    queries.put(missing, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, -1));
    queries.put(events1, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, -1));

    Map<TopicPartition, ListOffsetsResult> answer = offsets.listOffsets(CLIENT, queries);

    assertThat(List.copyOf(answer.keySet())).containsExactly(remote, EVENTS_0, missing, events1);
    assertThat(answer.values())
        .extracting(ListOffsetsResult::error)
        .containsExactly(
            Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.FENCED_LEADER_EPOCH,
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.UNKNOWN_TOPIC_OR_PARTITION);
    assertThat(answer.get(remote).offset()).isEqualTo(-1);
    assertThat(list(EVENTS_0, ListOffsetsTimestamps.LATEST, EPOCH + 1).error())
        .isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
    assertThat(list(EVENTS_0, -7, -1).error()).isEqualTo(Errors.INVALID_REQUEST);
  }

  @Test
  void listingOffsetsNeedsReadOnEachTopic() {
    harness.placeTopic("secret", Map.of(), on(1));
    TopicPartition secret = new TopicPartition("secret", 0);
    AtomicInteger denials = new AtomicInteger();
    broker.grant("User:alice", AclOperation.READ, ResourceType.TOPIC, "events");
    offsets = new OffsetsService(broker, broker.accessControl(denials));
    Map<TopicPartition, ListOffsetsQuery> queries = new LinkedHashMap<>();
    queries.put(secret, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, -1));
    queries.put(EVENTS_0, new ListOffsetsQuery(ListOffsetsTimestamps.LATEST, -1));

    Map<TopicPartition, ListOffsetsResult> answer = offsets.listOffsets(CLIENT, queries);

    assertThat(answer.get(secret).error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(answer.get(EVENTS_0)).isEqualTo(found(-1, 4, EPOCH));
    assertThat(denials).hasValue(1);
    assertThatThrownBy(() -> offsets.partitionOffsets(CLIENT, secret))
        .isInstanceOf(AuthorizationException.class);
    assertThatThrownBy(() -> offsets.offsetForTimestamp(CLIENT, secret, 0))
        .isInstanceOf(AuthorizationException.class);
  }

  @Test
  void theOffsetsOfALeadersPartitionAndTheRecordAtATime() {
    assertThat(offsets.partitionOffsets(CLIENT, EVENTS_0))
        .isEqualTo(new OffsetsService.PartitionOffsets(0, 4, 5));
    assertThat(offsets.offsetForTimestamp(CLIENT, EVENTS_0, 320))
        .contains(new TimestampAndOffset(350, 3, EPOCH));
    assertThat(offsets.offsetForTimestamp(CLIENT, EVENTS_0, 360)).isEqualTo(Optional.empty());

    harness.placeTopic("remote", Map.of(), on(2));
    assertThatThrownBy(() -> offsets.partitionOffsets(CLIENT, new TopicPartition("remote", 0)))
        .isInstanceOf(NotLeaderOrFollowerException.class)
        .hasMessageContaining("its leader is broker 2");
  }

  // ----------------------------------------------------------------------- OffsetForLeaderEpoch

  private EpochEndOffsetResult endOf(RequestContext context, int currentEpoch, int epoch) {
    return offsets
        .offsetForLeaderEpoch(context, Map.of(EVENTS_0, new EpochQuery(currentEpoch, epoch)))
        .get(EVENTS_0);
  }

  @Test
  void offsetForLeaderEpochIsWhereTheLargestEpochAtMostTheOneAskedForEnds() {
    assertThat(endOf(CLIENT, EPOCH, 4).endOffset()).isEqualTo(new EpochEndOffset(4, 3));
    assertThat(endOf(CLIENT, EPOCH, 5).endOffset())
        .as("epoch 5 was never written here")
        .isEqualTo(new EpochEndOffset(4, 3));
    assertThat(endOf(CLIENT, EPOCH, EPOCH).endOffset())
        .as("the current epoch ends at the log end")
        .isEqualTo(new EpochEndOffset(EPOCH, 5));
    assertThat(endOf(CLIENT, EPOCH, 2).endOffset())
        .as("older than any epoch here: where the first one starts")
        .isEqualTo(new EpochEndOffset(2, 0));
    assertThat(endOf(CLIENT, EPOCH, 9).endOffset())
        .as("newer than any epoch here")
        .isEqualTo(EpochEndOffset.UNDEFINED);
    assertThat(endOf(CLIENT, -1, 4).error()).as("-1 skips the epoch check").isEqualTo(Errors.NONE);
  }

  @Test
  void offsetForLeaderEpochChecksTheCurrentEpochAndReadExceptForBrokers() {
    EpochEndOffsetResult fenced = endOf(CLIENT, EPOCH - 1, 4);
    assertThat(fenced.error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    assertThat(fenced.endOffset()).isEqualTo(EpochEndOffset.UNDEFINED);
    assertThat(endOf(CLIENT, EPOCH + 1, 4).error()).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);

    offsets = new OffsetsService(broker, broker.accessControl(new AtomicInteger()));
    assertThat(endOf(CLIENT, EPOCH, 4).error()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
    assertThat(endOf(RequestContext.INTERNAL, EPOCH, 4).endOffset())
        .isEqualTo(new EpochEndOffset(4, 3));
  }
}
