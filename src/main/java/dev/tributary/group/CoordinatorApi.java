package dev.tributary.group;

import dev.tributary.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Kafka's classic group protocol as calls on a group's coordinator: JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups. {@link
 * GroupCoordinator} answers them for the groups whose {@code __consumer_offsets} partition this
 * broker leads; a router in front of it sends each call to the right broker, so members code
 * against this one interface wherever the coordinator is.
 *
 * <p>Every call completes normally with a {@link GroupError} in its result (never exceptionally for
 * a protocol error); an exceptional completion means the coordinator could not be reached.
 */
public interface CoordinatorApi {
  CompletableFuture<JoinResult> joinGroup(JoinRequest request);

  CompletableFuture<SyncResult> syncGroup(SyncRequest request);

  CompletableFuture<GroupError> heartbeat(String groupId, String memberId, int generationId);

  CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String reason);

  /**
   * Commits offsets for a member of generation {@code generationId}; {@code generationId = -1} and
   * an empty member id commit for a consumer outside the group's membership (manual assignment),
   * which the coordinator accepts only while the group has no members.
   */
  CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets);

  /** The group's committed offsets for {@code partitions}, or for all its partitions if null. */
  CompletableFuture<OffsetFetchResult> fetchOffsets(
      String groupId, List<TopicPartition> partitions);

  CompletableFuture<DescribeResult> describeGroup(String groupId);

  /** The groups this coordinator (or, through a router, the whole cluster) knows. */
  CompletableFuture<List<GroupListing>> listGroups();

  /** One assignor a member supports, with its subscription encoded for that assignor. */
  record Protocol(String name, byte[] metadata) {}

  /**
   * A join. {@code groupInstanceId} is a static member's id (KIP-345, {@code group.instance.id}),
   * or null for a dynamic member: a static member joins without a member id and is given one at
   * once (no MEMBER_ID_REQUIRED round), replacing the member its instance id had before.
   */
  record JoinRequest(
      String groupId,
      String memberId,
      String clientId,
      String clientHost,
      int sessionTimeoutMs,
      int rebalanceTimeoutMs,
      String protocolType,
      List<Protocol> protocols,
      String reason,
      String groupInstanceId) {
    /** A dynamic member's join. */
    public JoinRequest(
        String groupId,
        String memberId,
        String clientId,
        String clientHost,
        int sessionTimeoutMs,
        int rebalanceTimeoutMs,
        String protocolType,
        List<Protocol> protocols,
        String reason) {
      this(
          groupId,
          memberId,
          clientId,
          clientHost,
          sessionTimeoutMs,
          rebalanceTimeoutMs,
          protocolType,
          protocols,
          reason,
          null);
    }
  }

  /**
   * A member as the leader sees it in its join answer: its subscription for the chosen protocol,
   * and its static instance id (null for a dynamic member).
   */
  record JoinedMember(String memberId, String clientId, byte[] metadata, String groupInstanceId) {
    public JoinedMember(String memberId, String clientId, byte[] metadata) {
      this(memberId, clientId, metadata, null);
    }
  }

  record JoinResult(
      GroupError error,
      int generationId,
      String protocolName,
      String leaderId,
      String memberId,
      List<JoinedMember> members) {
    public static JoinResult failed(GroupError error, String memberId) {
      return new JoinResult(error, -1, null, null, memberId, List.of());
    }
  }

  /**
   * The leader's sync carries every member's assignment; the others' carry none. {@code
   * protocolType} and {@code protocolName}, when not null, must be the group's (SyncGroup v5+),
   * else INCONSISTENT_GROUP_PROTOCOL.
   */
  record SyncRequest(
      String groupId,
      String memberId,
      int generationId,
      Map<String, byte[]> assignments,
      String groupInstanceId,
      String protocolType,
      String protocolName) {
    public SyncRequest(
        String groupId, String memberId, int generationId, Map<String, byte[]> assignments) {
      this(groupId, memberId, generationId, assignments, null, null, null);
    }
  }

  /** A sync's answer; the group's protocol type and name with a successful one, else null. */
  record SyncResult(GroupError error, byte[] assignment, String protocolType, String protocolName) {
    public SyncResult(GroupError error, byte[] assignment) {
      this(error, assignment, null, null);
    }
  }

  record OffsetFetchResult(GroupError error, Map<TopicPartition, OffsetAndMetadata> offsets) {}

  record MemberDescription(
      String memberId,
      String clientId,
      String clientHost,
      byte[] metadata,
      byte[] assignment,
      String groupInstanceId) {
    public MemberDescription(
        String memberId, String clientId, String clientHost, byte[] metadata, byte[] assignment) {
      this(memberId, clientId, clientHost, metadata, assignment, null);
    }
  }

  /**
   * A group as its coordinator holds it. {@code state} is {@link GroupState#DEAD} for a group the
   * coordinator does not know (Kafka's DescribeGroups answer).
   */
  record GroupDescription(
      String groupId,
      GroupState state,
      String protocolType,
      String protocolName,
      int generationId,
      String leaderId,
      List<MemberDescription> members,
      int coordinatorPartition) {}

  record DescribeResult(GroupError error, GroupDescription group) {}

  record GroupListing(
      String groupId, GroupState state, String protocolType, int coordinatorPartition) {}
}
