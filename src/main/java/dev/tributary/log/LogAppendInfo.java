package dev.tributary.log;

/**
 * What an append wrote, or, for an idempotent producer's retry, where the retried batch was written
 * before (see {@link ProducerStateManager}).
 *
 * @param firstOffset base offset of the first batch
 * @param lastOffset last offset of the last batch
 * @param recordCount records across all batches (from the batch headers); 0 for an idempotent
 *     producer's retry answered with the offsets its batch got the first time (nothing appended)
 * @param sizeInBytes bytes appended (0 for such a retry)
 * @param maxTimestampMs largest batch max timestamp after the append (log append time for
 *     LogAppendTime topics)
 * @param logAppendTimeMs the broker time stamped into the batches, or -1 for CreateTime topics and
 *     follower appends
 * @param logStartOffset the log start offset after the append
 */
public record LogAppendInfo(
    long firstOffset,
    long lastOffset,
    int recordCount,
    int sizeInBytes,
    long maxTimestampMs,
    long logAppendTimeMs,
    long logStartOffset) {}
