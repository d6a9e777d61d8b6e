package dev.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.tributary.kafka.KafkaListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The group APIs on the Kafka listener with requests written by hand ({@link KafkaConnection}):
 * what a well-behaved client never sends, a stale generation or an unknown member, gets Kafka's
 * error; a JoinGroup from before KIP-394 (v3) joins in one round and waits for the rebalance,
 * holding only its own connection, while the other member heartbeats and rejoins on another.
 */
class KafkaGroupsWireApiTest extends ApiTestSupport {
  private static final byte[] SUBSCRIPTION = "subscription".getBytes(StandardCharsets.UTF_8);
  private static final byte[] ASSIGNMENT = "assignment".getBytes(StandardCharsets.UTF_8);

  @Autowired KafkaListener kafka;

  private static JoinGroupRequest.Builder join(String group, String memberId) {
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    protocols.add(
        new JoinGroupRequestData.JoinGroupRequestProtocol()
            .setName("range")
            .setMetadata(SUBSCRIPTION));
    return new JoinGroupRequest.Builder(
        new JoinGroupRequestData()
            .setGroupId(group)
            .setMemberId(memberId)
            .setSessionTimeoutMs(10_000)
            .setRebalanceTimeoutMs(10_000)
            .setProtocolType("consumer")
            .setProtocols(protocols));
  }

  private static HeartbeatRequest.Builder heartbeat(String group, String memberId, int generation) {
    return new HeartbeatRequest.Builder(
        new HeartbeatRequestData()
            .setGroupId(group)
            .setMemberId(memberId)
            .setGenerationId(generation));
  }

  private static OffsetCommitRequest.Builder commit(
      String group, String memberId, int generation, String topic, long offset) {
    return OffsetCommitRequest.Builder.forTopicNames(
        new OffsetCommitRequestData()
            .setGroupId(group)
            .setMemberId(memberId)
            .setGenerationIdOrMemberEpoch(generation)
            .setTopics(
                List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(topic)
                        .setPartitions(
                            List.of(
                                new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0)
                                    .setCommittedOffset(offset))))));
  }

  /** A sync; the leader's assigns {@link #ASSIGNMENT} to each of {@code members}. */
  private static SyncGroupRequest.Builder sync(
      String group, String memberId, int generation, List<String> members) {
    return new SyncGroupRequest.Builder(
        new SyncGroupRequestData()
            .setGroupId(group)
            .setMemberId(memberId)
            .setGenerationId(generation)
            .setProtocolType("consumer")
            .setProtocolName("range")
            .setAssignments(
                members.stream()
                    .map(
                        m ->
                            new SyncGroupRequestData.SyncGroupRequestAssignment()
                                .setMemberId(m)
                                .setAssignment(ASSIGNMENT))
                    .toList()));
  }

  private static Errors heartbeatError(
      KafkaConnection wire, String group, String memberId, int generation, int version) {
    return wire.<HeartbeatResponse>send(heartbeat(group, memberId, generation), version).error();
  }

  /** The error of a commit of {@code offset} to partition 0 of {@code topic} (OffsetCommit v9). */
  private static Errors commitError(
      KafkaConnection wire,
      String group,
      String memberId,
      int generation,
      String topic,
      long offset) {
    OffsetCommitResponse response =
        wire.send(commit(group, memberId, generation, topic, offset), 9);
    return Errors.forCode(response.data().topics().get(0).partitions().get(0).errorCode());
  }

  @Test
  void aStaleGenerationOrAnUnknownMemberIsRefusedAndAnOldJoinWaitsForTheRebalance()
      throws Exception {
    String topic = newTopicName();
    createTopic(topic, 1);
    String group = "g-" + topic;
    try (KafkaConnection first = new KafkaConnection(kafka.port());
        KafkaConnection second = new KafkaConnection(kafka.port())) {
      FindCoordinatorResponseData.Coordinator coordinator =
          await("the group's coordinator")
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      first
                          .<FindCoordinatorResponse>send(
                              new FindCoordinatorRequest.Builder(
                                  new FindCoordinatorRequestData()
                                      .setKeyType((byte) 0)
                                      .setCoordinatorKeys(List.of(group))),
                              6)
                          .data()
                          .coordinators()
                          .get(0),
                  c -> c.errorCode() == Errors.NONE.code());
      assertThat(coordinator.key()).isEqualTo(group);
      assertThat(coordinator.port()).isEqualTo(kafka.port());

      // KIP-394: a new member is given its id and joins again with it (once the shard is loaded).
      JoinGroupResponse named =
          await("a member id")
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> first.<JoinGroupResponse>send(join(group, ""), 9),
                  r -> r.error() != Errors.COORDINATOR_LOAD_IN_PROGRESS);
      assertThat(named.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
      String leader = named.data().memberId();
      assertThat(leader).isNotEmpty();
      JoinGroupResponse joined = first.send(join(group, leader), 9);
      assertThat(joined.error()).isEqualTo(Errors.NONE);
      assertThat(joined.data().leader()).isEqualTo(leader);
      assertThat(joined.data().protocolType()).isEqualTo("consumer");
      assertThat(joined.data().protocolName()).isEqualTo("range");
      assertThat(joined.data().members())
          .singleElement()
          .satisfies(
              m -> {
                assertThat(m.memberId()).isEqualTo(leader);
                assertThat(m.metadata()).isEqualTo(SUBSCRIPTION);
              });
      int generation = joined.data().generationId();

      SyncGroupResponse synced = first.send(sync(group, leader, generation, List.of(leader)), 5);
      assertThat(synced.error()).isEqualTo(Errors.NONE);
      assertThat(synced.data().assignment()).isEqualTo(ASSIGNMENT);

      assertThat(heartbeatError(first, group, leader, generation, 4)).isEqualTo(Errors.NONE);
      assertThat(heartbeatError(first, group, leader, generation + 1, 4))
          .isEqualTo(Errors.ILLEGAL_GENERATION);
      assertThat(heartbeatError(first, group, "nobody", generation, 4))
          .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
      assertThat(commitError(first, group, leader, generation + 1, topic, 7))
          .isEqualTo(Errors.ILLEGAL_GENERATION);
      assertThat(commitError(first, group, leader, generation, topic, 7)).isEqualTo(Errors.NONE);
      OffsetFetchResponseGroup fetched =
          first
              .<OffsetFetchResponse>send(
                  OffsetFetchRequest.Builder.forTopicNames(
                      new OffsetFetchRequestData()
                          .setGroups(
                              List.of(
                                  new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                      .setGroupId(group)
                                      .setTopics(null))),
                      false),
                  9)
              .group(group);
      assertThat(fetched.errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(fetched.topics())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.name()).isEqualTo(topic);
                assertThat(t.partitions())
                    .singleElement()
                    .satisfies(
                        p -> {
                          assertThat(p.partitionIndex()).isZero();
                          assertThat(p.committedOffset()).isEqualTo(7);
                        });
              });

      // A v3 JoinGroup has no MEMBER_ID_REQUIRED round: it is in the group at once, and its answer
      // waits until the first member has rejoined.
      RequestHeader oldJoin = second.write(join(group, ""), 3);
      await("the first member to be told of the rebalance")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> heartbeatError(first, group, leader, generation, 4),
              e -> e == Errors.REBALANCE_IN_PROGRESS);
      JoinGroupResponse rejoined = first.send(join(group, leader), 9);
      JoinGroupResponse oldJoined = second.read(oldJoin);
      assertThat(rejoined.error()).isEqualTo(Errors.NONE);
      assertThat(oldJoined.error()).isEqualTo(Errors.NONE);
      String follower = oldJoined.data().memberId();
      assertThat(follower).isNotEmpty().isNotEqualTo(leader);
      assertThat(oldJoined.data().generationId())
          .isEqualTo(rejoined.data().generationId())
          .isGreaterThan(generation);
      assertThat(rejoined.data().members())
          .extracting(m -> m.memberId())
          .containsExactlyInAnyOrder(leader, follower);
      assertThat(oldJoined.data().members()).as("only the leader is told the members").isEmpty();
      int next = rejoined.data().generationId();
      RequestHeader followerSync = second.write(sync(group, follower, next, List.of()), 2);
      assertThat(
              first
                  .<SyncGroupResponse>send(sync(group, leader, next, List.of(leader, follower)), 5)
                  .error())
          .isEqualTo(Errors.NONE);
      SyncGroupResponse followerSynced = second.read(followerSync);
      assertThat(followerSynced.error()).isEqualTo(Errors.NONE);
      assertThat(followerSynced.data().assignment()).isEqualTo(ASSIGNMENT);
      assertThat(commitError(first, group, leader, generation, topic, 8))
          .as("a commit from the generation before")
          .isEqualTo(Errors.ILLEGAL_GENERATION);
      assertThat(heartbeatError(second, group, follower, generation, 4))
          .isEqualTo(Errors.ILLEGAL_GENERATION);
      assertThat(heartbeatError(second, group, follower, next, 2)).isEqualTo(Errors.NONE);

      LeaveGroupResponse left =
          first.send(
              new LeaveGroupRequest.Builder(
                  group,
                  List.of(
                      new MemberIdentity().setMemberId(leader),
                      new MemberIdentity().setMemberId(follower),
                      new MemberIdentity().setMemberId("nobody"))),
              5);
      assertThat(Errors.forCode(left.data().errorCode())).isEqualTo(Errors.NONE);
      assertThat(left.memberResponses())
          .extracting(MemberResponse::memberId, m -> Errors.forCode(m.errorCode()))
          .containsExactly(
              tuple(leader, Errors.NONE),
              tuple(follower, Errors.NONE),
              tuple("nobody", Errors.UNKNOWN_MEMBER_ID));
    }
  }
}
