package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import java.nio.ByteBuffer;

/**
 * What a records call returns for one partition: whole batches as read (not copied), and the
 * offsets of the records in them to deliver, {@code [fromOffset, untilOffset)}. Batches may start
 * before {@code fromOffset} and run past {@code untilOffset}; renderers skip those records.
 */
public record PartitionRecords(
    TopicPartition topicPartition, ByteBuffer batches, long fromOffset, long untilOffset) {}
