package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.CorruptRecordException;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * Checks a produce or replication request before anything is written (Kafka's
 * analyzeAndValidateRecords). It only reads the buffer, so a rejected request changes nothing.
 */
final class AppendValidator {
  private AppendValidator() {}

  /**
   * What the batches hold, as seen before offsets are assigned.
   *
   * @param hasProducerIds some batch has a producer id: the producer state must look at the append
   *     (a request without one costs it nothing)
   */
  record Summary(
      int batchCount,
      int recordCount,
      int sizeInBytes,
      long firstOffset,
      long lastOffset,
      long maxTimestampMs,
      boolean hasProducerIds) {}

  /**
   * Leader append: strict framing, each batch at most {@code maxMessageBytes}, magic 2 and CRC
   * ({@link RecordBatch#validate()}), at least one record and a last offset delta of recordCount -
   * 1 (the producer numbers records 0..n-1 within a batch), and a sequence number in every batch
   * with a producer id (Kafka's LogValidator rule). For a compacted topic every record of a data
   * batch must have a key (Kafka's LogValidator rule; this decodes, and so decompresses, the
   * batches).
   *
   * @throws CorruptRecordException for bad framing, magic, CRC or record count
   * @throws RecordTooLargeException for a batch larger than {@code maxMessageBytes}
   * @throws InvalidRecordException for a record without a key when {@code compacted}, or a batch
   *     with a producer id and no sequence number
   */
  static Summary validateForLeader(
      ByteBuffer batches, int maxMessageBytes, boolean compacted, TopicPartition tp) {
    Summary summary = validate(batches, maxMessageBytes, true);
    if (compacted) {
      for (RecordBatch batch : BatchIterator.strict(batches.duplicate())) {
        if (!batch.isControlBatch()) {
          requireKeys(batch, tp);
        }
      }
    }
    return summary;
  }

  private static void requireKeys(RecordBatch batch, TopicPartition tp) {
    for (Iterator<Record> records = batch.recordIterator(); records.hasNext(); ) {
      if (records.next().key() == null) {
        throw new InvalidRecordException(
            "Compacted topic cannot accept message without key in topic partition " + tp);
      }
    }
  }

  /**
   * Follower append: strict framing, magic and CRC, and offsets that strictly increase within the
   * request (the caller checks the first against the log end offset). Gaps are allowed: a compacted
   * leader serves batches with offsets missing between them (Kafka checks only monotonicity too).
   * Size is not checked: the leader did, and the follower must store whatever the leader has.
   */
  static Summary validateForFollower(ByteBuffer batches) {
    return validate(batches, Integer.MAX_VALUE, false);
  }

  private static Summary validate(ByteBuffer batches, int maxMessageBytes, boolean leader) {
    if (!batches.hasRemaining()) {
      throw new CorruptRecordException("the request holds no record batches");
    }
    int batchCount = 0;
    long recordCount = 0;
    long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    long firstOffset = -1;
    long expectedOffset = -1;
    boolean hasProducerIds = false;
    for (RecordBatch batch : BatchIterator.strict(batches.duplicate())) {
      if (batch.sizeInBytes() > maxMessageBytes) {
        throw new RecordTooLargeException(
            "batch of "
                + batch.sizeInBytes()
                + " bytes exceeds max.message.bytes "
                + maxMessageBytes);
      }
      batch.validate();
      if (leader
          && (batch.recordCount() < 1 || batch.lastOffsetDelta() != batch.recordCount() - 1)) {
        throw new CorruptRecordException(
            "batch has "
                + batch.recordCount()
                + " records but last offset delta "
                + batch.lastOffsetDelta());
      }
      if (batch.hasProducerId()) {
        hasProducerIds = true;
        if (leader && batch.baseSequence() < 0) {
          throw new InvalidRecordException(
              "Invalid sequence number "
                  + batch.baseSequence()
                  + " in record batch with producerId "
                  + batch.producerId());
        }
      }
      if (!leader) {
        if (batchCount == 0) {
          firstOffset = batch.baseOffset();
        } else if (batch.baseOffset() < expectedOffset) {
          throw new InvalidOffsetException(
              "follower batches are out of order: expected a base offset of at least "
                  + expectedOffset
                  + ", got "
                  + batch.baseOffset());
        }
        expectedOffset = batch.nextOffset();
      }
      batchCount++;
      recordCount += batch.recordCount();
      maxTimestamp = Math.max(maxTimestamp, batch.maxTimestamp());
    }
    return new Summary(
        batchCount,
        (int) Math.min(recordCount, Integer.MAX_VALUE),
        batches.remaining(),
        firstOffset,
        expectedOffset - 1,
        maxTimestamp,
        hasProducerIds);
  }
}
