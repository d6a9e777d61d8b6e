package dev.tributary.kafka;

import dev.tributary.group.CoordinatorApi.SyncRequest;
import dev.tributary.group.CoordinatorApi.SyncResult;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * SyncGroup (v0–5) on this broker's coordinator: the leader's sync carries every member's
 * assignment, and each member's answer waits (holding no thread) until the leader's assignment is
 * stored. v3+ carry a static member's instance id; v5+ the protocol type and name the member
 * believes in, which must be the group's (else INCONSISTENT_GROUP_PROTOCOL), and the answer names
 * them.
 */
final class SyncGroupApi implements ApiHandler {
  private final GroupBackend groups;

  SyncGroupApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.SYNC_GROUP;
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
    SyncGroupRequestData data = ((SyncGroupRequest) request).data();
    short version = context.apiVersion();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
      return failed(Errors.GROUP_AUTHORIZATION_FAILED);
    }
    GroupCoordinator coordinator = groups.local();
    if (coordinator == null) {
      return failed(Errors.COORDINATOR_NOT_AVAILABLE);
    }
    Map<String, byte[]> assignments = new HashMap<>();
    for (SyncGroupRequestData.SyncGroupRequestAssignment a : data.assignments()) {
      assignments.put(a.memberId(), a.assignment());
    }
    SyncRequest sync =
        new SyncRequest(
            data.groupId(),
            data.memberId(),
            data.generationId(),
            assignments,
            version >= 3 ? data.groupInstanceId() : null,
            version >= 5 ? data.protocolType() : null,
            version >= 5 ? data.protocolName() : null);
    return coordinator.syncGroup(sync).thenApply(result -> response(result, version));
  }

  static SyncGroupResponse response(SyncResult result, short version) {
    boolean named = result.error() == GroupError.NONE && version >= 5;
    return new SyncGroupResponse(
        new SyncGroupResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(GroupBackend.error(result.error()).code())
            .setProtocolType(named ? result.protocolType() : null)
            .setProtocolName(named ? result.protocolName() : null)
            .setAssignment(result.assignment() == null ? new byte[0] : result.assignment()));
  }

  private static CompletableFuture<AbstractResponse> failed(Errors error) {
    return CompletableFuture.completedFuture(
        new SyncGroupResponse(
            new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0])));
  }
}
