package dev.tributary.kafka;

import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupCoordinator.LeaveResult;
import dev.tributary.group.GroupCoordinator.LeavingMember;
import dev.tributary.group.GroupError;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;

/**
 * LeaveGroup (v0–5) on this broker's coordinator: one member below v3; from v3 a batch, each by
 * member id or, for an admin removing static members, by instance id alone (v5+ with a reason). The
 * group rebalances once for all who left. Below v3 a member's own error is the answer's.
 */
final class LeaveGroupApi implements ApiHandler {
  private final GroupBackend groups;

  LeaveGroupApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.LEAVE_GROUP;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    LeaveGroupRequest leave = (LeaveGroupRequest) request;
    short version = context.apiVersion();
    String groupId = leave.data().groupId();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, groupId)) {
      return failed(Errors.GROUP_AUTHORIZATION_FAILED, version);
    }
    GroupCoordinator coordinator = groups.local();
    if (coordinator == null) {
      return failed(Errors.COORDINATOR_NOT_AVAILABLE, version);
    }
    List<MemberIdentity> members = leave.members();
    List<LeavingMember> leaving = new ArrayList<>();
    for (MemberIdentity m : members) {
      leaving.add(new LeavingMember(m.memberId(), m.groupInstanceId(), m.reason()));
    }
    return coordinator
        .leaveGroup(groupId, leaving)
        .thenApply(result -> response(members, result, version));
  }

  static LeaveGroupResponse response(
      List<MemberIdentity> members, LeaveResult result, short version) {
    if (result.error() != GroupError.NONE) {
      return new LeaveGroupResponse(List.of(), GroupBackend.error(result.error()), 0, version);
    }
    List<MemberResponse> answers = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      answers.add(
          new MemberResponse()
              .setMemberId(members.get(i).memberId())
              .setGroupInstanceId(members.get(i).groupInstanceId())
              .setErrorCode(GroupBackend.error(result.memberErrors().get(i)).code()));
    }
    return new LeaveGroupResponse(answers, Errors.NONE, 0, version);
  }

  private static CompletableFuture<AbstractResponse> failed(Errors error, short version) {
    return CompletableFuture.completedFuture(new LeaveGroupResponse(List.of(), error, 0, version));
  }
}
