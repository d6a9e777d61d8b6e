package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's view of its replica set (Kafka's PartitionState and the followers' Replica objects):
 * the replicas, the committed ISR (from the metadata image), each follower's progress, and at most
 * one ISR change in flight: a {@link PendingExpandIsr} or a {@link PendingShrinkIsr}, proposed to
 * the controller and counted only once committed (KIP-497).
 *
 * <p>Invariants: {@code isr ⊆ replicas}; {@code followers} holds exactly the replicas other than
 * this broker while it leads (none otherwise); {@code pending} is null or based on the partition
 * epoch it was proposed against. The maximal ISR — what the high watermark must wait for — is the
 * committed ISR plus the replica a pending expansion adds (a pending shrink still counts the
 * replicas it would drop).
 *
 * <p>Concurrency: not thread-safe; guarded by the owning {@link Partition}'s lock.
 */
final class IsrState {
  private static final Logger logger = LoggerFactory.getLogger(IsrState.class);

  /** An ISR change sent to the controller and not yet seen committed or refused. */
  sealed interface PendingIsrChange permits PendingExpandIsr, PendingShrinkIsr {
    List<Integer> newIsr();

    /** The broker epochs of the replicas it adds, as they fetched (sent again on a resend). */
    Map<Integer, Long> brokerEpochs();

    int basePartitionEpoch();

    String reason();

    /** The outcome is unknown (no controller answered): resend on the next check. */
    boolean failed();

    PendingIsrChange withFailed(boolean nowFailed);
  }

  /** Adds {@code newInSyncReplica}: it counts for the high watermark already (KIP-497). */
  record PendingExpandIsr(
      List<Integer> newIsr,
      int newInSyncReplica,
      Map<Integer, Long> brokerEpochs,
      int basePartitionEpoch,
      String reason,
      boolean failed)
      implements PendingIsrChange {
    @Override
    public PendingIsrChange withFailed(boolean nowFailed) {
      return new PendingExpandIsr(
          newIsr, newInSyncReplica, brokerEpochs, basePartitionEpoch, reason, nowFailed);
    }
  }

  /** Drops lagging replicas: they still count for the high watermark until it commits. */
  record PendingShrinkIsr(
      List<Integer> newIsr, int basePartitionEpoch, String reason, boolean failed)
      implements PendingIsrChange {
    @Override
    public Map<Integer, Long> brokerEpochs() {
      return Map.of();
    }

    @Override
    public PendingIsrChange withFailed(boolean nowFailed) {
      return new PendingShrinkIsr(newIsr, basePartitionEpoch, reason, nowFailed);
    }
  }

  private final TopicPartition topicPartition;
  private final String topicId;
  private final int localBrokerId;

  private List<Integer> replicas = List.of();

  /** The committed ISR, from the metadata image. */
  private List<Integer> isr = List.of();

  /** Leader only: the followers' state, by broker id. */
  private final Map<Integer, ReplicaState> followers = new HashMap<>();

  private PendingIsrChange pending;

  IsrState(TopicPartition topicPartition, String topicId, int localBrokerId) {
    this.topicPartition = topicPartition;
    this.topicId = topicId;
    this.localBrokerId = localBrokerId;
  }

  /**
   * Metadata that names this broker leader. A new epoch starts afresh: every follower's log end
   * offset becomes unknown (ISR members count as caught up now, so they are not dropped before they
   * could fetch) and any pending change is dropped. The same epoch again carries a committed ISR
   * change: a pending change it overtook goes.
   *
   * @param nowMs the leader's monotonic clock ({@link ReplicaState})
   */
  void onLeaderMetadata(
      List<Integer> replicas, List<Integer> isr, int partitionEpoch, boolean newEpoch, long nowMs) {
    this.replicas = List.copyOf(replicas);
    this.isr = List.copyOf(isr);
    if (newEpoch) {
      followers.clear();
      pending = null;
    } else if (pending != null && partitionEpoch > pending.basePartitionEpoch()) {
      pending = null; // committed, or overtaken by another change: the image is the truth now
    }
    for (int replica : replicas) {
      if (replica != localBrokerId && !followers.containsKey(replica)) {
        followers.put(
            replica, new ReplicaState(replica, isr.contains(replica) ? nowMs : ReplicaState.NEVER));
      }
    }
    followers.keySet().retainAll(replicas);
  }

  /** Metadata that names another leader: no followers, nothing pending. */
  void onFollowerMetadata(List<Integer> replicas, List<Integer> isr) {
    this.replicas = List.copyOf(replicas);
    this.isr = List.copyOf(isr);
    stopLeading();
  }

  void stopLeading() {
    followers.clear();
    pending = null;
  }

  List<Integer> replicas() {
    return replicas;
  }

  List<Integer> isr() {
    return isr;
  }

  /**
   * The leader's state of follower {@code brokerId}.
   *
   * @throws NotLeaderOrFollowerException it holds no replica of this partition
   */
  ReplicaState requireFollower(int brokerId) {
    ReplicaState follower = followers.get(brokerId);
    if (follower == null) {
      throw new NotLeaderOrFollowerException(
          "Broker "
              + brokerId
              + " holds no replica of "
              + topicPartition
              + " (replicas "
              + replicas
              + ")");
    }
    return follower;
  }

  /**
   * The smallest log end offset over the maximal ISR, given the leader's own; a member that has not
   * fetched in this epoch (-1) holds it back.
   */
  long minLogEndOffsetOfMaximalIsr(long leaderLogEndOffset) {
    long min = leaderLogEndOffset;
    for (int member : isr) {
      min = Math.min(min, logEndOffsetOf(member, leaderLogEndOffset));
    }
    if (pending instanceof PendingExpandIsr expand) {
      min = Math.min(min, logEndOffsetOf(expand.newInSyncReplica(), leaderLogEndOffset));
    }
    return min;
  }

  private long logEndOffsetOf(int brokerId, long leaderLogEndOffset) {
    if (brokerId == localBrokerId) {
      return leaderLogEndOffset;
    }
    ReplicaState follower = followers.get(brokerId);
    return follower == null ? -1 : follower.logEndOffset;
  }

  /**
   * Proposes adding a caught-up follower: it has reached the high watermark and everything this
   * epoch's leader started from. Null if nothing to propose.
   */
  AlterPartitionRequest maybeExpand(
      ReplicaState follower,
      long highWatermark,
      long leaderEpochStartOffset,
      int leaderEpoch,
      int partitionEpoch) {
    if (pending != null || isr.contains(follower.brokerId)) {
      return null;
    }
    if (follower.logEndOffset < highWatermark || follower.logEndOffset < leaderEpochStartOffset) {
      return null;
    }
    Set<Integer> next = new LinkedHashSet<>(isr);
    next.add(follower.brokerId);
    List<Integer> newIsr = replicas.stream().filter(next::contains).toList();
    return propose(
        new PendingExpandIsr(
            newIsr,
            follower.brokerId,
            Map.of(follower.brokerId, follower.brokerEpoch),
            partitionEpoch,
            "replica " + follower.brokerId + " caught up to the high watermark " + highWatermark,
            false),
        leaderEpoch);
  }

  /**
   * Proposes dropping every follower not caught up for longer than {@code replicaLagTimeMaxMs}
   * (Kafka's rule: one that has everything the leader has stays, even if it has not fetched
   * lately), or resends a change whose outcome is unknown. Null if nothing to send.
   *
   * @param nowMs the leader's monotonic clock ({@link ReplicaState}), so that a jump of its wall
   *     clock neither drops a follower that keeps up nor keeps one that stopped
   */
  AlterPartitionRequest maybeShrink(
      long nowMs,
      long replicaLagTimeMaxMs,
      long leaderLogEndOffset,
      int leaderEpoch,
      int partitionEpoch) {
    if (pending != null) {
      if (!pending.failed()) {
        return null;
      }
      pending = pending.withFailed(false);
      return requestFor(pending, leaderEpoch);
    }
    List<Integer> laggards = new ArrayList<>();
    for (int member : isr) {
      ReplicaState follower = followers.get(member);
      if (follower != null
          && follower.notCaughtUpForMs(nowMs, leaderLogEndOffset) > replicaLagTimeMaxMs) {
        laggards.add(member);
      }
    }
    if (laggards.isEmpty()) {
      return null;
    }
    StringBuilder why = new StringBuilder();
    for (int id : laggards) {
      ReplicaState f = followers.get(id);
      long notCaughtUpMs = f.notCaughtUpForMs(nowMs, leaderLogEndOffset);
      why.append("replica ")
          .append(id)
          .append(
              notCaughtUpMs == Long.MAX_VALUE
                  ? " not caught up in this leader epoch"
                  : " not caught up for " + notCaughtUpMs + " ms")
          .append(" (log end offset ")
          .append(f.logEndOffset)
          .append(", leader's ")
          .append(leaderLogEndOffset)
          .append(") ");
    }
    List<Integer> newIsr = isr.stream().filter(id -> !laggards.contains(id)).toList();
    return propose(
        new PendingShrinkIsr(
            newIsr,
            partitionEpoch,
            why.append("> replica.lag.time.max.ms=").append(replicaLagTimeMaxMs).toString(),
            false),
        leaderEpoch);
  }

  private AlterPartitionRequest propose(PendingIsrChange change, int leaderEpoch) {
    pending = change;
    logger.info(
        "Proposing ISR {} -> {} for {} in leader epoch {}: {}",
        isr,
        change.newIsr(),
        topicPartition,
        leaderEpoch,
        change.reason());
    return requestFor(change, leaderEpoch);
  }

  private AlterPartitionRequest requestFor(PendingIsrChange change, int leaderEpoch) {
    return new AlterPartitionRequest(
        topicId,
        topicPartition,
        localBrokerId,
        leaderEpoch,
        change.basePartitionEpoch(),
        change.newIsr(),
        change.brokerEpochs(),
        change.reason());
  }

  /**
   * The controller did not commit {@code request} (it failed with {@code error}). Only a refusal
   * that proves the change was never applied — INELIGIBLE_REPLICA, OPERATION_NOT_ATTEMPTED, both
   * answered against the current partition epoch — drops it (the next fetch or check proposes
   * afresh). A stale partition or leader epoch (INVALID_UPDATE_VERSION, FENCED_LEADER_EPOCH) or an
   * unknown partition means this leader is behind the metadata: the change may be exactly what was
   * committed (a resend after a lost answer is refused this way), so it stays pending, counted in
   * the maximal ISR, until the metadata image catches up and replaces it; resending cannot help. An
   * unknown outcome (no controller answered) keeps it pending, marked for a resend. Ignored if
   * another change replaced it meanwhile.
   */
  void onSendFailed(AlterPartitionRequest request, Throwable error) {
    if (pending == null
        || pending.basePartitionEpoch() != request.partitionEpoch()
        || !pending.newIsr().equals(request.newIsr())) {
      return;
    }
    Throwable cause = Errors.unwrap(error);
    Errors code = Errors.forException(cause);
    String outcome;
    switch (code) {
      case INELIGIBLE_REPLICA, OPERATION_NOT_ATTEMPTED -> {
        pending = null;
        outcome = "refused";
      }
      case INVALID_UPDATE_VERSION,
          FENCED_LEADER_EPOCH,
          NOT_LEADER_OR_FOLLOWER,
          UNKNOWN_TOPIC_OR_PARTITION -> {
        pending = pending.withFailed(false);
        outcome =
            "refused against a newer image; kept pending until the metadata shows the outcome";
      }
      default -> {
        pending = pending.withFailed(true);
        outcome = "not confirmed, will resend";
      }
    }
    logger.info(
        "ISR change {} for {} {}: {}", request.newIsr(), topicPartition, outcome, cause.toString());
  }

  /**
   * Every replica as this leader sees it, in replica order. The followers' times are kept on the
   * monotonic clock and shown as wall-clock ms: the wall time now less how long ago they were, so
   * the views keep their meaning (epoch ms) whatever the wall clock did meanwhile.
   *
   * @param nowWallMs the leader's wall clock now
   * @param nowMonotonicMs its monotonic clock now, read together with {@code nowWallMs}
   */
  List<ReplicaStatus> replicaStatuses(
      long nowWallMs, long nowMonotonicMs, long leaderLogEndOffset) {
    List<ReplicaStatus> statuses = new ArrayList<>(replicas.size());
    for (int replica : replicas) {
      if (replica == localBrokerId) {
        // a leader fetches from nobody: it is caught up with itself now
        statuses.add(
            new ReplicaStatus(replica, true, true, leaderLogEndOffset, 0, -1, nowWallMs, 0));
      } else {
        ReplicaState f = followers.get(replica);
        long fleo = f == null ? -1 : f.logEndOffset;
        long lastFetchMs = f == null ? ReplicaState.NEVER : f.lastFetchTimeMs;
        long lastCaughtUpMs = f == null ? ReplicaState.NEVER : f.lastCaughtUpTimeMs;
        statuses.add(
            new ReplicaStatus(
                replica,
                false,
                isr.contains(replica),
                fleo,
                fleo < 0 ? -1 : leaderLogEndOffset - fleo,
                lastFetchMs == ReplicaState.NEVER ? -1 : nowWallMs - (nowMonotonicMs - lastFetchMs),
                lastCaughtUpMs == ReplicaState.NEVER
                    ? 0
                    : nowWallMs - (nowMonotonicMs - lastCaughtUpMs),
                outOfSyncMs(f, nowMonotonicMs, leaderLogEndOffset)));
      }
    }
    return statuses;
  }

  /**
   * {@link ReplicaStatus#outOfSyncMs}: how long the follower has not been caught up, -1 when the
   * leader has not seen it caught up in this leader epoch (nor holds a time for it: a replica that
   * was out of the ISR when this epoch began), rather than the time since 1970.
   */
  private static long outOfSyncMs(ReplicaState f, long nowMonotonicMs, long leaderLogEndOffset) {
    if (f == null) {
      return -1;
    }
    long ms = f.notCaughtUpForMs(nowMonotonicMs, leaderLogEndOffset);
    if (ms > 0 && f.lastCaughtUpTimeMs == ReplicaState.NEVER) {
      return -1;
    }
    return Math.max(0, ms); // a fetch after the caller read its clock: caught up since then
  }

  /** The leader's part of the status line: {@code lag{2:0,3:41} pending-isr=[1,2]}. */
  void appendLags(StringBuilder line, long leaderLogEndOffset) {
    if (followers.isEmpty()) {
      return;
    }
    line.append(" lag{");
    String sep = "";
    for (int replica : replicas) {
      ReplicaState f = followers.get(replica);
      if (f != null) {
        line.append(sep)
            .append(replica)
            .append(':')
            .append(f.logEndOffset < 0 ? "?" : String.valueOf(leaderLogEndOffset - f.logEndOffset));
        sep = ",";
      }
    }
    line.append('}');
    if (pending != null) {
      line.append(" pending-isr=").append(pending.newIsr());
    }
  }
}
