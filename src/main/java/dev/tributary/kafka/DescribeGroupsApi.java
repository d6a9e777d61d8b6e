package dev.tributary.kafka;

import dev.tributary.group.CoordinatorApi.DescribeResult;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.group.GroupState;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;

/**
 * DescribeGroups (v0–6) from this broker's coordinator: state, protocol, and every member with its
 * client id and host, REST consumer instances as much as Kafka clients ({@code
 * kafka-consumer-groups --describe} shows both). As Kafka: the protocol and each member's
 * subscription and assignment only while the group is Stable (in a rebalance they are not settled);
 * a group the coordinator does not know is Dead, and from v6 GROUP_ID_NOT_FOUND (KIP-1043); READ on
 * the group is needed (Kafka's DESCRIBE), and v3+ can ask which operations the principal may do on
 * it (READ and DESCRIBE with our READ, DELETE too with ADMIN).
 */
final class DescribeGroupsApi implements ApiHandler {
  private static final int OPERATIONS_OMITTED = Integer.MIN_VALUE;
  private static final int READ_OPERATIONS =
      bit(org.apache.kafka.common.acl.AclOperation.READ)
          | bit(org.apache.kafka.common.acl.AclOperation.DESCRIBE);
  private static final int ADMIN_OPERATIONS =
      READ_OPERATIONS | bit(org.apache.kafka.common.acl.AclOperation.DELETE);

  private final GroupBackend groups;

  DescribeGroupsApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.DESCRIBE_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    DescribeGroupsRequestData data = ((DescribeGroupsRequest) request).data();
    short version = context.apiVersion();
    boolean withOperations = version >= 3 && data.includeAuthorizedOperations();
    GroupCoordinator coordinator = groups.local();
    List<CompletableFuture<DescribedGroup>> answers = new ArrayList<>();
    for (String groupId : data.groups()) {
      if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, groupId)) {
        answers.add(refused(groupId, Errors.GROUP_AUTHORIZATION_FAILED));
      } else if (groupId == null || groupId.isBlank()) {
        answers.add(refused(groupId, Errors.INVALID_GROUP_ID));
      } else if (coordinator == null) {
        answers.add(refused(groupId, Errors.COORDINATOR_NOT_AVAILABLE));
      } else {
        int operations =
            !withOperations
                ? OPERATIONS_OMITTED
                : groups.allows(context, AclOperation.ADMIN, ResourceType.GROUP, groupId)
                    ? ADMIN_OPERATIONS
                    : READ_OPERATIONS;
        answers.add(
            coordinator
                .describeGroup(groupId)
                .thenApply(r -> described(groupId, r, operations, version)));
      }
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored ->
                new DescribeGroupsResponse(
                    new DescribeGroupsResponseData()
                        .setThrottleTimeMs(0)
                        .setGroups(answers.stream().map(CompletableFuture::join).toList())));
  }

  static DescribedGroup described(
      String groupId, DescribeResult result, int operations, short version) {
    if (result.error() != GroupError.NONE) {
      return DescribeGroupsResponse.groupError(groupId, GroupBackend.error(result.error()));
    }
    GroupDescription g = result.group();
    if (g.state() == GroupState.DEAD) {
      DescribedGroup dead =
          new DescribedGroup()
              .setGroupId(groupId)
              .setGroupState(GroupState.DEAD.kafkaName)
              .setAuthorizedOperations(operations);
      return version >= 6
          ? dead.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
              .setErrorMessage("Group " + groupId + " not found.")
          : dead;
    }
    boolean stable = g.state() == GroupState.STABLE;
    List<DescribedGroupMember> members = new ArrayList<>();
    for (MemberDescription m : g.members()) {
      members.add(
          new DescribedGroupMember()
              .setMemberId(m.memberId())
              .setGroupInstanceId(version >= 4 ? m.groupInstanceId() : null)
              .setClientId(m.clientId())
              .setClientHost(m.clientHost())
              .setMemberMetadata(stable ? m.metadata() : new byte[0])
              .setMemberAssignment(stable ? m.assignment() : new byte[0]));
    }
    return new DescribedGroup()
        .setGroupId(groupId)
        .setErrorCode(Errors.NONE.code())
        .setGroupState(g.state().kafkaName)
        .setProtocolType(g.protocolType())
        .setProtocolData(stable ? g.protocolName() : "")
        .setMembers(members)
        .setAuthorizedOperations(operations);
  }

  private static CompletableFuture<DescribedGroup> refused(String groupId, Errors error) {
    return CompletableFuture.completedFuture(DescribeGroupsResponse.groupError(groupId, error));
  }

  private static int bit(org.apache.kafka.common.acl.AclOperation operation) {
    return 1 << operation.code();
  }
}
