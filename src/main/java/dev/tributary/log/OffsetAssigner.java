package dev.tributary.log;

import dev.tributary.log.record.RecordBatch;
import java.nio.ByteBuffer;

/**
 * Prepares validated batches for a leader append (Kafka's LogValidator.assignOffsetsNonCompressed):
 * writes offsets and the leader epoch in place, and for LogAppendTime topics the timestamp. The
 * caller holds the log's lock, so the offsets it assigns from the log end offset are the ones the
 * append will get.
 */
final class OffsetAssigner {
  private static final short TIMESTAMP_TYPE_LOG_APPEND_TIME = 0x08;

  private OffsetAssigner() {}

  /**
   * Gives the batches in {@code records} consecutive offsets from {@code firstOffset} and {@code
   * leaderEpoch} (both outside the CRC). If {@code logAppendTime} it also sets each batch's max
   * timestamp to {@code nowMs} and its timestamp type to LogAppendTime, and recomputes the CRC.
   *
   * @return the offset after the last record
   */
  static long assign(
      ByteBuffer records, long firstOffset, int leaderEpoch, boolean logAppendTime, long nowMs) {
    long offset = firstOffset;
    for (int at = records.position(); at < records.limit(); ) {
      RecordBatch batch = new RecordBatch(records, at);
      batch.setBaseOffset(offset);
      batch.setPartitionLeaderEpoch(leaderEpoch);
      if (logAppendTime) {
        stampLogAppendTime(records, batch, nowMs);
      }
      offset = batch.nextOffset();
      at += batch.sizeInBytes();
    }
    return offset;
  }

  private static void stampLogAppendTime(ByteBuffer buffer, RecordBatch batch, long nowMs) {
    int start = batch.start();
    short attributes = (short) (batch.attributes() | TIMESTAMP_TYPE_LOG_APPEND_TIME);
    buffer.putShort(start + RecordBatch.ATTRIBUTES_OFFSET, attributes);
    buffer.putLong(start + RecordBatch.MAX_TIMESTAMP_OFFSET, nowMs);
    buffer.putInt(start + RecordBatch.CRC_OFFSET, (int) batch.computeChecksum());
  }
}
