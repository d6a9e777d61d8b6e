package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.TimestampAndOffset;
import dev.tributary.replication.Partition;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Offset queries on the partitions this broker leads, for every protocol: Kafka's ListOffsets
 * (earliest, latest, max timestamp, by time — each with its leader epoch) and OffsetForLeaderEpoch,
 * plus the three offsets REST shows for a partition. Each topic needs READ. Answers per partition;
 * a partition led elsewhere answers NOT_LEADER_OR_FOLLOWER (the REST adapter relays to the leader,
 * a Kafka client goes there itself). Nothing waits.
 */
public final class OffsetsService {
  private final RunningBroker broker;
  private final AccessControl access;

  public OffsetsService(RunningBroker broker, AccessControl access) {
    this.broker = broker;
    this.access = access;
  }

  /** What a ListOffsets asks of one partition. */
  public record ListOffsetsQuery(long timestampMs, int currentLeaderEpoch) {}

  /**
   * One partition's ListOffsets answer; offset -1 and timestamp -1 when no committed record matches
   * (Kafka's answer for a timestamp past every record).
   */
  public record ListOffsetsResult(
      Errors error, String errorMessage, long timestampMs, long offset, int leaderEpoch) {
    static ListOffsetsResult failed(Errors error, String message) {
      return new ListOffsetsResult(error, message, -1, -1, -1);
    }
  }

  /** A partition's log start offset, high watermark and log end offset, from its leader. */
  public record PartitionOffsets(long logStartOffset, long highWatermark, long logEndOffset) {}

  public Map<TopicPartition, ListOffsetsResult> listOffsets(
      RequestContext context, Map<TopicPartition, ListOffsetsQuery> queries) {
    var replicas = broker.replicaManager();
    TopicChecks readable = new TopicChecks(access, context, AclOperation.READ);
    Map<TopicPartition, ListOffsetsResult> results = new LinkedHashMap<>();
    queries.forEach(
        (tp, query) -> {
          String refusal = readable.refusal(tp.topic());
          if (refusal != null) {
            results.put(tp, ListOffsetsResult.failed(Errors.TOPIC_AUTHORIZATION_FAILED, refusal));
            return;
          }
          try {
            Optional<TimestampAndOffset> found =
                replicas.fetchOffsetForTimestamp(
                    tp, query.timestampMs(), query.currentLeaderEpoch());
            results.put(
                tp,
                found
                    .map(
                        f ->
                            new ListOffsetsResult(
                                Errors.NONE, null, f.timestampMs(), f.offset(), f.leaderEpoch()))
                    .orElse(new ListOffsetsResult(Errors.NONE, null, -1, -1, -1)));
          } catch (RuntimeException e) {
            results.put(tp, ListOffsetsResult.failed(Errors.forException(e), Errors.messageOf(e)));
          }
        });
    return results;
  }

  /**
   * The offsets of a partition this broker leads.
   *
   * @throws dev.tributary.common.errors.NotLeaderOrFollowerException led elsewhere (names the
   *     leader)
   */
  public PartitionOffsets partitionOffsets(RequestContext context, TopicPartition tp) {
    access.require(context, AclOperation.READ, ResourceType.TOPIC, tp.topic());
    Partition leader = broker.replicaManager().leaderPartition(tp);
    long highWatermark = leader.highWatermark();
    return new PartitionOffsets(leader.logStartOffset(), highWatermark, leader.logEndOffset());
  }

  /**
   * The first committed offset whose record is at least {@code timestampMs} old, with that record's
   * timestamp; empty when every committed record is older.
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(
      RequestContext context, TopicPartition tp, long timestampMs) {
    access.require(context, AclOperation.READ, ResourceType.TOPIC, tp.topic());
    return broker.replicaManager().fetchOffsetForTimestamp(tp, timestampMs, -1);
  }

  /** One partition's OffsetForLeaderEpoch answer. */
  public record EpochEndOffsetResult(Errors error, String errorMessage, EpochEndOffset endOffset) {}

  /** What an OffsetForLeaderEpoch asks of one partition. */
  public record EpochQuery(int currentLeaderEpoch, int leaderEpoch) {}

  public Map<TopicPartition, EpochEndOffsetResult> offsetForLeaderEpoch(
      RequestContext context, Map<TopicPartition, EpochQuery> queries) {
    var replicas = broker.replicaManager();
    TopicChecks readable = new TopicChecks(access, context, AclOperation.READ);
    Map<TopicPartition, EpochEndOffsetResult> results = new LinkedHashMap<>();
    queries.forEach(
        (tp, query) -> {
          String refusal = context.fromBroker() ? null : readable.refusal(tp.topic());
          if (refusal != null) {
            results.put(
                tp,
                new EpochEndOffsetResult(
                    Errors.TOPIC_AUTHORIZATION_FAILED, refusal, EpochEndOffset.UNDEFINED));
            return;
          }
          try {
            results.put(
                tp,
                new EpochEndOffsetResult(
                    Errors.NONE,
                    null,
                    replicas.lastOffsetForLeaderEpoch(
                        tp, query.currentLeaderEpoch(), query.leaderEpoch())));
          } catch (RuntimeException e) {
            results.put(
                tp,
                new EpochEndOffsetResult(
                    Errors.forException(e), Errors.messageOf(e), EpochEndOffset.UNDEFINED));
          }
        });
    return results;
  }
}
