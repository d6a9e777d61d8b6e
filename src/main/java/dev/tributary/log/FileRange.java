package dev.tributary.log;

/**
 * A fetch's batches in a segment's file, from byte {@code position} for {@code sizeInBytes}, the
 * first based at {@code firstOffset}; {@code nextOffset} is the offset after the last ({@code -1}
 * where not worked out).
 */
record FileRange(int position, int sizeInBytes, long firstOffset, long nextOffset) {}
