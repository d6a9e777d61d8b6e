package dev.tributary.replication;

import dev.tributary.common.TopicPartition;

/**
 * A follower cut the tail of its log that its new leader never had (Kafka's truncation on following
 * a new leader, KIP-101/KIP-279): offsets {@code [truncatedTo, previousLogEndOffset)} are gone from
 * this replica. Records at or above the high watermark were never committed, so no {@code acks=all}
 * producer was told they were written; an {@code acks=1} (or {@code acks=0}) producer may have
 * been, and those records are lost.
 *
 * @param replicaId the broker that truncated
 * @param leaderId the leader it now follows
 * @param leaderEpoch the leader epoch it truncated in
 * @param highWatermark the replica's high watermark just before it truncated
 */
public record Truncation(
    TopicPartition topicPartition,
    int replicaId,
    int leaderId,
    int leaderEpoch,
    long truncatedTo,
    long previousLogEndOffset,
    long highWatermark) {
  public Truncation {
    if (truncatedTo < 0 || truncatedTo >= previousLogEndOffset) {
      throw new IllegalArgumentException(
          "a truncation drops at least one offset: " + truncatedTo + " to " + previousLogEndOffset);
    }
  }
}
