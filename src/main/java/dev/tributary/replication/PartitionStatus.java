package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import java.util.List;

/**
 * One hosted replica of a partition at one moment, read under the partition's lock so its fields
 * agree: for the dashboard, the REST views and tests, which must not reach into a live {@link
 * Partition}.
 *
 * @param leader this broker leads it
 * @param replicaStatuses every replica as this leader sees it (empty on a follower, which does not
 *     know the others' progress)
 * @param statusLine the one-line status shared by logs, tests and the dashboard ({@link
 *     Partition#statusLine()})
 */
public record PartitionStatus(
    TopicPartition topicPartition,
    boolean leader,
    int leaderId,
    int leaderEpoch,
    long logStartOffset,
    long highWatermark,
    long logEndOffset,
    long sizeInBytes,
    int segmentCount,
    List<Integer> replicas,
    List<Integer> isr,
    List<ReplicaStatus> replicaStatuses,
    String statusLine) {}
