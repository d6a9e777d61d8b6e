package dev.tributary.replication;

/**
 * What a fetch asks of the broker as a whole (Kafka's FetchParams); each partition's part is a
 * {@link PartitionFetch}.
 *
 * @param replicaId the fetching follower's broker id, or {@link #CONSUMER_REPLICA_ID} for a
 *     consumer
 * @param replicaEpoch the follower's broker epoch (its registration); -1 for a consumer
 * @param maxWaitMs how long the broker may hold the fetch while fewer than {@code minBytes} are
 *     available (a long poll that parks no thread)
 * @param minBytes answer as soon as at least this many bytes are available (Kafka's {@code
 *     fetch.min.bytes}): 1 means any data at all; 0 or less answers at once, data or not, as Kafka
 *     does
 * @param maxBytes at most this many bytes over all partitions, except that the first partition with
 *     data returns at least one whole batch
 * @param isolation how far reads go: the log end for followers, the high watermark for consumers
 * @param fileSlices a consumer's batches are answered as {@link dev.tributary.log.LogFileSlice}s
 *     left in the segment files, not read into memory, for a transport that sends them straight
 *     from the file ({@code transferTo}: zero-copy); false reads them into {@link
 *     FetchPartitionData#records()}
 */
public record FetchParams(
    int replicaId,
    long replicaEpoch,
    long maxWaitMs,
    int minBytes,
    int maxBytes,
    FetchIsolation isolation,
    boolean fileSlices) {
  /** The replica id a consumer sends (Kafka's {@code CONSUMER_REPLICA_ID}). */
  public static final int CONSUMER_REPLICA_ID = -1;

  public FetchParams {
    if (replicaId >= 0 && isolation != FetchIsolation.LOG_END) {
      throw new IllegalArgumentException("a follower's fetch reads to the log end");
    }
    if (replicaId < 0 && isolation == FetchIsolation.LOG_END) {
      throw new IllegalArgumentException("a consumer's fetch reads committed records only");
    }
    if (maxWaitMs < 0 || maxBytes < 0) {
      throw new IllegalArgumentException("maxWaitMs and maxBytes must be >= 0");
    }
    if (fileSlices && replicaId >= 0) {
      throw new IllegalArgumentException("a follower's fetch is read into memory");
    }
  }

  /** Batches read into memory. */
  public FetchParams(
      int replicaId,
      long replicaEpoch,
      long maxWaitMs,
      int minBytes,
      int maxBytes,
      FetchIsolation isolation) {
    this(replicaId, replicaEpoch, maxWaitMs, minBytes, maxBytes, isolation, false);
  }

  /** A consumer's fetch that reads what is committed. */
  public static FetchParams consumer(long maxWaitMs, int minBytes, int maxBytes) {
    return new FetchParams(
        CONSUMER_REPLICA_ID, -1, maxWaitMs, minBytes, maxBytes, FetchIsolation.HIGH_WATERMARK);
  }

  /** A follower's fetch, by broker {@code replicaId} in registration {@code replicaEpoch}. */
  public static FetchParams follower(
      int replicaId, long replicaEpoch, long maxWaitMs, int minBytes, int maxBytes) {
    return new FetchParams(
        replicaId, replicaEpoch, maxWaitMs, minBytes, maxBytes, FetchIsolation.LOG_END);
  }

  public boolean isFromFollower() {
    return replicaId >= 0;
  }
}
