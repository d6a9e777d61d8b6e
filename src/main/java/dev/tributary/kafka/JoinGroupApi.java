package dev.tributary.kafka;

import dev.tributary.group.CoordinatorApi.JoinRequest;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.JoinedMember;
import dev.tributary.group.CoordinatorApi.Protocol;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;

/**
 * JoinGroup (v0–9) on this broker's coordinator. The answer waits, holding no thread, until the
 * rebalance completes (the coordinator's future).
 *
 * <p>Versions: from v4 a new dynamic member is told its id with MEMBER_ID_REQUIRED and joins again
 * (KIP-394); below v4 the client does not know that round, so the handler makes it for the client,
 * joining again at once with the id it was given, as Kafka adds such a member directly. v0 has no
 * rebalance timeout: the session timeout is used, as in Kafka. v5+ carry a static member's {@code
 * group.instance.id} (KIP-345); v7+ answer the protocol type; v8+ the client's reason. v9's
 * skip-assignment is never set: a restarted static leader is named a follower instead (the answer
 * Kafka gives below v9).
 *
 * <p>Members are recorded with their client id and {@code /address} as Kafka shows a client host.
 */
final class JoinGroupApi implements ApiHandler {
  private final GroupBackend groups;

  JoinGroupApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.JOIN_GROUP;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 9;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    JoinGroupRequestData data = ((JoinGroupRequest) request).data();
    short version = context.apiVersion();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
      return failed(Errors.GROUP_AUTHORIZATION_FAILED, data.memberId(), version);
    }
    GroupCoordinator coordinator = groups.local();
    if (coordinator == null) {
      return failed(Errors.COORDINATOR_NOT_AVAILABLE, data.memberId(), version);
    }
    JoinRequest join = joinRequest(context, data);
    CompletableFuture<JoinResult> joined = coordinator.joinGroup(join);
    if (version < 4) {
      joined =
          joined.thenCompose(
              first ->
                  first.error() == GroupError.MEMBER_ID_REQUIRED
                      ? coordinator.joinGroup(withMemberId(join, first.memberId()))
                      : CompletableFuture.completedFuture(first));
    }
    return joined.thenApply(result -> response(result, data.protocolType(), version));
  }

  static JoinRequest joinRequest(KafkaRequestContext context, JoinGroupRequestData data) {
    List<Protocol> protocols = new ArrayList<>();
    for (JoinGroupRequestData.JoinGroupRequestProtocol p : data.protocols()) {
      protocols.add(new Protocol(p.name(), p.metadata()));
    }
    short version = context.apiVersion();
    return new JoinRequest(
        data.groupId(),
        data.memberId(),
        context.clientId() == null ? "" : context.clientId(),
        "/" + context.request().clientAddress(),
        data.sessionTimeoutMs(),
        version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs(),
        data.protocolType(),
        protocols,
        version >= 8 ? data.reason() : null,
        version >= 5 ? data.groupInstanceId() : null);
  }

  private static JoinRequest withMemberId(JoinRequest r, String memberId) {
    return new JoinRequest(
        r.groupId(),
        memberId,
        r.clientId(),
        r.clientHost(),
        r.sessionTimeoutMs(),
        r.rebalanceTimeoutMs(),
        r.protocolType(),
        r.protocols(),
        r.reason(),
        r.groupInstanceId());
  }

  /** The coordinator's answer at {@code version}; the leader's lists every member. */
  static JoinGroupResponse response(JoinResult result, String protocolType, short version) {
    boolean ok = result.error() == GroupError.NONE;
    JoinGroupResponseData data =
        new JoinGroupResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(GroupBackend.error(result.error()).code())
            .setGenerationId(result.generationId())
            .setProtocolType(ok && version >= 7 ? protocolType : null)
            .setProtocolName(orEmpty(result.protocolName(), version))
            .setLeader(result.leaderId() == null ? "" : result.leaderId())
            .setSkipAssignment(false)
            .setMemberId(result.memberId() == null ? "" : result.memberId());
    for (JoinedMember m : result.members()) {
      data.members()
          .add(
              new JoinGroupResponseData.JoinGroupResponseMember()
                  .setMemberId(m.memberId())
                  .setGroupInstanceId(version >= 5 ? m.groupInstanceId() : null)
                  .setMetadata(m.metadata()));
    }
    return new JoinGroupResponse(data, version);
  }

  /** Below v7 the protocol name is not nullable. */
  private static String orEmpty(String protocolName, short version) {
    return protocolName == null && version < 7 ? "" : protocolName;
  }

  private static CompletableFuture<AbstractResponse> failed(
      Errors error, String memberId, short version) {
    JoinGroupResponseData data =
        new JoinGroupResponseData()
            .setErrorCode(error.code())
            .setGenerationId(-1)
            .setProtocolName(version < 7 ? "" : null)
            .setLeader("")
            .setMemberId(memberId == null ? "" : memberId);
    return CompletableFuture.completedFuture(new JoinGroupResponse(data, version));
  }
}
