package dev.tributary.kafka;

import dev.tributary.group.GroupCoordinator;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;

/**
 * Heartbeat (v0–4; v3+ carry a static member's instance id) on this broker's coordinator:
 * REBALANCE_IN_PROGRESS tells a member to rejoin; UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION and
 * FENCED_INSTANCE_ID that it is no longer the member it thinks.
 */
final class HeartbeatApi implements ApiHandler {
  private final GroupBackend groups;

  HeartbeatApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.HEARTBEAT;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    HeartbeatRequestData data = ((HeartbeatRequest) request).data();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
      return answer(Errors.GROUP_AUTHORIZATION_FAILED);
    }
    GroupCoordinator coordinator = groups.local();
    if (coordinator == null) {
      return answer(Errors.COORDINATOR_NOT_AVAILABLE);
    }
    String instanceId = context.apiVersion() >= 3 ? data.groupInstanceId() : null;
    return coordinator
        .heartbeat(data.groupId(), data.memberId(), instanceId, data.generationId())
        .thenApply(
            error ->
                new HeartbeatResponse(
                    new HeartbeatResponseData()
                        .setThrottleTimeMs(0)
                        .setErrorCode(GroupBackend.error(error).code())));
  }

  private static CompletableFuture<AbstractResponse> answer(Errors error) {
    return CompletableFuture.completedFuture(
        new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code())));
  }
}
