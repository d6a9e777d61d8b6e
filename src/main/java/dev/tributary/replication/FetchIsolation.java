package dev.tributary.replication;

/**
 * How far a fetch may read (Kafka's FetchIsolation): followers copy up to the log end offset;
 * consumers see only what is committed, below the high watermark. Without transactions the last
 * stable offset is the high watermark, so {@link #TXN_COMMITTED} (a consumer's {@code
 * read_committed}) reads as far as {@link #HIGH_WATERMARK}.
 */
public enum FetchIsolation {
  /** A follower's fetch: everything the leader has appended. */
  LOG_END,
  /** A consumer's {@code read_uncommitted}: below the high watermark. */
  HIGH_WATERMARK,
  /** A consumer's {@code read_committed}: below the last stable offset (= the high watermark). */
  TXN_COMMITTED
}
