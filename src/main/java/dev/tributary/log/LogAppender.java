package dev.tributary.log;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The steps of one append to a partition log once its batches are validated (the body of Kafka's
 * UnifiedLog.append): for a leader, the idempotent producers' check, the leader epoch, offsets and
 * timestamps, the write, then the producer state; for a follower, the leader's epochs, the write
 * and the producer state. Every step that could refuse the append runs before the first that
 * changes anything, so a refused append leaves the log as it was.
 *
 * <p>Concurrency: every method runs under the owning {@link PartitionLog}'s lock.
 */
final class LogAppender {
  private final TopicPartition topicPartition;
  private final Time time;
  private final LocalLog local;
  private final LeaderEpochCache epochs;
  private final ProducerStateManager producerState;

  LogAppender(
      TopicPartition topicPartition,
      Time time,
      LocalLog local,
      LeaderEpochCache epochs,
      ProducerStateManager producerState) {
    this.topicPartition = topicPartition;
    this.time = time;
    this.local = local;
    this.epochs = epochs;
    this.producerState = producerState;
  }

  /** See {@link PartitionLog#appendAsLeader}; {@code records} passed {@code summary}'s checks. */
  LogAppendInfo appendAsLeader(
      ByteBuffer records, AppendValidator.Summary summary, int leaderEpoch, long logStartOffset)
      throws IOException {
    long nowMs = time.milliseconds();
    boolean logAppendTime = local.config().messageTimestampType() == TimestampType.LOG_APPEND_TIME;
    long firstOffset = local.logEndOffset();
    ProducerStateManager.LeaderAppend producers =
        summary.hasProducerIds()
            ? producerState.checkLeaderAppend(records, firstOffset, logAppendTime ? nowMs : -1)
            : null;
    if (producers != null && producers.duplicate() != null) {
      return retried(producers.duplicate(), logAppendTime, logStartOffset);
    }
    epochs.assign(leaderEpoch, firstOffset); // a no-op unless this is the epoch's first append
    long offset = OffsetAssigner.assign(records, firstOffset, leaderEpoch, logAppendTime, nowMs);
    local.append(records, offset - 1, nowMs);
    if (producers != null) {
      producerState.update(producers);
    }
    return new LogAppendInfo(
        firstOffset,
        offset - 1,
        summary.recordCount(),
        summary.sizeInBytes(),
        logAppendTime ? nowMs : summary.maxTimestampMs(),
        logAppendTime ? nowMs : -1,
        logStartOffset);
  }

  /**
   * The answer to a retry of {@code original}: its offsets and timestamp as first appended, and
   * nothing appended now (Kafka answers the same).
   */
  private static LogAppendInfo retried(
      BatchMetadata original, boolean logAppendTime, long logStartOffset) {
    return new LogAppendInfo(
        original.firstOffset(),
        original.lastOffset(),
        0,
        0,
        original.timestampMs(),
        logAppendTime ? original.timestampMs() : -1,
        logStartOffset);
  }

  /** See {@link PartitionLog#appendAsFollower}; {@code records} passed {@code summary}'s checks. */
  LogAppendInfo appendAsFollower(
      ByteBuffer records, AppendValidator.Summary summary, long logStartOffset) throws IOException {
    long logEndOffset = local.logEndOffset();
    if (summary.firstOffset() < logEndOffset) {
      throw new InvalidOffsetException(
          "follower append to %s starts at %d but the log end offset is %d"
              .formatted(topicPartition, summary.firstOffset(), logEndOffset));
    }
    // The leader's epochs first: a crash before the batches are written leaves an entry past the
    // log end, which LeaderEpochCache.reconcile removes at the next start.
    epochs.assignFrom(records);
    local.append(records, summary.lastOffset(), time.milliseconds());
    if (summary.hasProducerIds()) {
      producerState.updateReplicated(records); // as the leader has them: it checked them
    }
    return new LogAppendInfo(
        summary.firstOffset(),
        summary.lastOffset(),
        summary.recordCount(),
        summary.sizeInBytes(),
        summary.maxTimestampMs(),
        -1,
        logStartOffset);
  }
}
