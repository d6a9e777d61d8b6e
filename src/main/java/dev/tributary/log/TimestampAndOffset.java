package dev.tributary.log;

/**
 * The answer to a ListOffsets-by-timestamp query: the first offset whose timestamp is >= the
 * target, with that record's timestamp ({@code -1} for the special earliest/latest lookups) and the
 * leader epoch of its batch.
 */
public record TimestampAndOffset(long timestampMs, long offset, int leaderEpoch) {}
