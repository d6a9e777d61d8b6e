package dev.tributary.log;

/**
 * What the producer state remembers of one appended batch of an idempotent producer (Kafka's
 * BatchMetadata): enough to recognise a retry of it and to answer that retry with the offsets the
 * batch got the first time.
 *
 * <p>Invariant: {@code firstOffset <= lastOffset}; {@code lastSeq} is {@code firstSeq} plus {@code
 * lastOffset - firstOffset} as the producer numbers records (wrapping past {@code
 * Integer.MAX_VALUE} to 0), for a batch appended as leader; a compacted batch keeps its numbers.
 *
 * @param timestampMs the batch's max timestamp as stored (the broker's time for LogAppendTime)
 */
public record BatchMetadata(
    int firstSeq, int lastSeq, long firstOffset, long lastOffset, long timestampMs) {}
