package dev.tributary.log;

/**
 * What an append wrote.
 *
 * @param firstOffset base offset of the first batch
 * @param lastOffset last offset of the last batch
 * @param recordCount records across all batches (from the batch headers)
 * @param sizeInBytes bytes appended
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
