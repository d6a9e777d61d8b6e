package dev.tributary.metadata.ratis;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

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
 * @param tls mutual TLS on the Raft port; empty: plaintext, any peer that can connect is accepted
 */
public record RatisQuorumOptions(
    long snapshotThresholdEntries,
    int snapshotRetentionFiles,
    long logSegmentSizeMaxBytes,
    Duration appendTimeout,
    Optional<RaftTls> tls) {

  public static final RatisQuorumOptions DEFAULTS =
      new RatisQuorumOptions(1000, 2, 8L * 1024 * 1024, Duration.ofSeconds(10), Optional.empty());

  public RatisQuorumOptions {
    Objects.requireNonNull(tls, "tls");
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
        entries, snapshotRetentionFiles, logSegmentSizeMaxBytes, appendTimeout, tls);
  }

  public RatisQuorumOptions withLogSegmentSizeMaxBytes(long bytes) {
    return new RatisQuorumOptions(
        snapshotThresholdEntries, snapshotRetentionFiles, bytes, appendTimeout, tls);
  }

  public RatisQuorumOptions withAppendTimeout(Duration timeout) {
    return new RatisQuorumOptions(
        snapshotThresholdEntries, snapshotRetentionFiles, logSegmentSizeMaxBytes, timeout, tls);
  }

  public RatisQuorumOptions withTls(RaftTls raftTls) {
    return new RatisQuorumOptions(
        snapshotThresholdEntries,
        snapshotRetentionFiles,
        logSegmentSizeMaxBytes,
        appendTimeout,
        Optional.of(raftTls));
  }
}
