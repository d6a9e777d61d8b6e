package dev.tributary.metadata.ratis;

import java.time.Duration;

/**
 * Tuning of the Ratis metadata quorum. Election timeouts stay at the Ratis defaults (150–300 ms).
 *
 * @param snapshotThresholdEntries Raft entries applied since the last snapshot that trigger the
 *     next one; the log is then purged up to the snapshot (whole closed segments only)
 * @param snapshotRetentionFiles snapshot files kept on disk (the newest ones)
 * @param logSegmentSizeMaxBytes Raft log segment size; purging frees whole segments, so small
 *     values let tests see it
 * @param appendTimeout how long {@link RatisMetadataQuorum#append} waits for its batch to commit
 *     and apply
 */
public record RatisQuorumOptions(
    long snapshotThresholdEntries,
    int snapshotRetentionFiles,
    long logSegmentSizeMaxBytes,
    Duration appendTimeout) {

  public static final RatisQuorumOptions DEFAULTS =
      new RatisQuorumOptions(1000, 2, 8L * 1024 * 1024, Duration.ofSeconds(10));

  public RatisQuorumOptions {
    if (snapshotThresholdEntries < 1) {
      throw new IllegalArgumentException(
          "snapshotThresholdEntries must be positive: " + snapshotThresholdEntries);
    }
    if (snapshotRetentionFiles < 1) {
      throw new IllegalArgumentException(
          "snapshotRetentionFiles must be positive: " + snapshotRetentionFiles);
    }
    if (logSegmentSizeMaxBytes < 1024) {
      throw new IllegalArgumentException(
          "logSegmentSizeMaxBytes must be at least 1024: " + logSegmentSizeMaxBytes);
    }
    if (appendTimeout.isNegative() || appendTimeout.isZero()) {
      throw new IllegalArgumentException("appendTimeout must be positive: " + appendTimeout);
    }
  }

  public RatisQuorumOptions withSnapshotThresholdEntries(long entries) {
    return new RatisQuorumOptions(
        entries, snapshotRetentionFiles, logSegmentSizeMaxBytes, appendTimeout);
  }

  public RatisQuorumOptions withLogSegmentSizeMaxBytes(long bytes) {
    return new RatisQuorumOptions(
        snapshotThresholdEntries, snapshotRetentionFiles, bytes, appendTimeout);
  }

  public RatisQuorumOptions withAppendTimeout(Duration timeout) {
    return new RatisQuorumOptions(
        snapshotThresholdEntries, snapshotRetentionFiles, logSegmentSizeMaxBytes, timeout);
  }
}
