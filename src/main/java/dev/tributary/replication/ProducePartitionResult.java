package dev.tributary.replication;

import dev.tributary.common.errors.Errors;
import dev.tributary.log.LogAppendInfo;

/**
 * One partition's answer to a produce (Kafka's ProduceResponse.PartitionResponse): where its
 * records went, or why they did not.
 *
 * <p>Invariant: with {@code error == NONE} the offsets are those the leader assigned ({@code
 * baseOffset <= lastOffset}); with an error they are -1. REQUEST_TIMED_OUT means the records were
 * appended on the leader but not acknowledged by the in-sync replicas in time: their outcome is
 * unknown.
 *
 * @param logAppendTimeMs the broker's time stamped on the batches for a LogAppendTime topic, else
 *     -1
 * @param recordCount records appended (0 on error, and for an idempotent producer's retry that was
 *     answered with its first append's offsets)
 */
public record ProducePartitionResult(
    Errors error,
    String errorMessage,
    long baseOffset,
    long lastOffset,
    long logAppendTimeMs,
    long logStartOffset,
    int recordCount) {

  static ProducePartitionResult appended(LogAppendInfo info) {
    return new ProducePartitionResult(
        Errors.NONE,
        null,
        info.firstOffset(),
        info.lastOffset(),
        info.logAppendTimeMs(),
        info.logStartOffset(),
        info.recordCount());
  }

  /**
   * The answer once a partition's acknowledgement settled: written, or failed with {@code
   * failure}'s Kafka error (wrapped or not).
   */
  static ProducePartitionResult acknowledged(LogAppendInfo info, Throwable failure) {
    return failure == null
        ? appended(info)
        : failed(Errors.forException(failure), Errors.messageOf(failure));
  }

  /** A partition that failed with {@code error}. */
  public static ProducePartitionResult failed(Errors error, String message) {
    if (error == Errors.NONE) {
      throw new IllegalArgumentException("a failure needs an error");
    }
    return new ProducePartitionResult(error, message, -1, -1, -1, -1, 0);
  }
}
