package dev.tributary.group;

/**
 * A committed offset: the next offset the group will read from its partition, the client's metadata
 * string, and when it was committed. As Kafka's OffsetCommitValue.
 *
 * <p>Invariant: {@code offset >= 0}; {@code metadata} is never null (empty when none).
 */
public record OffsetAndMetadata(
    long offset, int leaderEpoch, String metadata, long commitTimestampMs) {
  public OffsetAndMetadata {
    if (offset < 0) {
      throw new IllegalArgumentException("a committed offset is >= 0, got " + offset);
    }
    metadata = metadata == null ? "" : metadata;
  }
}
