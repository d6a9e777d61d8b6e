package dev.tributary.group;

import dev.tributary.common.Scheduler;
import dev.tributary.group.CoordinatorApi.JoinResult;
import dev.tributary.group.CoordinatorApi.Protocol;
import dev.tributary.group.CoordinatorApi.SyncResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a group on its coordinator. Guarded by the coordinator lock ({@link
 * CoordinatorRuntime}'s monitor).
 *
 * <p>Invariant: {@code awaitingJoin != null} only while the group is PreparingRebalance; {@code
 * awaitingSync != null} only while it is CompletingRebalance. A member with either is kept alive
 * (it is waiting on the coordinator, not the other way round), as in Kafka.
 */
final class MemberMetadata {
  static final byte[] NO_ASSIGNMENT = new byte[0];

  final String memberId;

  /** A static member's {@code group.instance.id} (KIP-345); null for a dynamic member. */
  final String groupInstanceId;

  final String clientId;
  final String clientHost;
  int sessionTimeoutMs;
  int rebalanceTimeoutMs;
  List<Protocol> protocols;
  byte[] assignment = NO_ASSIGNMENT;

  CompletableFuture<JoinResult> awaitingJoin;
  CompletableFuture<SyncResult> awaitingSync;

  /** When the coordinator last heard from it, on the monotonic clock (the session's start). */
  long lastHeartbeatMs;

  Scheduler.Cancellable sessionTimer;

  MemberMetadata(
      String memberId,
      String groupInstanceId,
      String clientId,
      String clientHost,
      int sessionTimeoutMs,
      int rebalanceTimeoutMs,
      List<Protocol> protocols) {
    this.memberId = memberId;
    this.groupInstanceId = groupInstanceId;
    this.clientId = clientId;
    this.clientHost = clientHost;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.protocols = List.copyOf(protocols);
  }

  /** This member's subscription for {@code protocolName}; it supports it (checked at join). */
  byte[] metadata(String protocolName) {
    for (Protocol p : protocols) {
      if (p.name().equals(protocolName)) {
        return p.metadata();
      }
    }
    throw new IllegalStateException(memberId + " does not support " + protocolName);
  }

  boolean sameProtocols(List<Protocol> other) {
    if (other.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < other.size(); i++) {
      if (!other.get(i).name().equals(protocols.get(i).name())
          || !java.util.Arrays.equals(other.get(i).metadata(), protocols.get(i).metadata())) {
        return false;
      }
    }
    return true;
  }

  boolean isStatic() {
    return groupInstanceId != null;
  }

  boolean waitingOnCoordinator() {
    return awaitingJoin != null || awaitingSync != null;
  }
}
