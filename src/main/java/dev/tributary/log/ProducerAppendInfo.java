package dev.tributary.log;

import dev.tributary.common.TopicPartition;
import dev.tributary.log.record.RecordBatch;

/**
 * One producer's batches in one leader append, checked against its state before anything is written
 * (Kafka's ProducerAppendInfo, for a client's non-transactional batches). It starts from the
 * producer's current entry and stages each batch in an entry of its own, so a second batch of the
 * same producer in the request is checked against the first; {@link ProducerStateManager} applies
 * the staged entry once the batches are written. The rules are {@link ProducerStateManager}'s class
 * doc.
 *
 * <p>Not thread-safe: used under the owning log's lock, for one append.
 */
final class ProducerAppendInfo {
  private final TopicPartition topicPartition;
  private final long producerId;

  /** The state before this append (an empty entry for a producer the log has not seen). */
  private final ProducerStateEntry current;

  /** The current epoch and this append's batches so far. */
  private final ProducerStateEntry staged;

  ProducerAppendInfo(TopicPartition topicPartition, ProducerStateEntry current) {
    this.topicPartition = topicPartition;
    this.producerId = current.producerId();
    this.current = current;
    this.staged = new ProducerStateEntry(producerId, current.producerEpoch());
  }

  long producerId() {
    return producerId;
  }

  /**
   * Checks one batch at {@code firstOffset..lastOffset} and stages it.
   *
   * @throws InvalidProducerEpochException the batch's epoch is older than the producer's
   * @throws OutOfOrderSequenceException its first sequence does not follow the last one
   */
  void append(
      short epoch, int firstSeq, int lastSeq, long firstOffset, long lastOffset, long timestampMs) {
    checkProducerEpoch(epoch, firstOffset);
    checkSequence(epoch, firstSeq, firstOffset);
    staged.addBatch(
        epoch, new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, timestampMs));
  }

  private void checkProducerEpoch(short epoch, long offset) {
    if (epoch < staged.producerEpoch()) {
      throw new InvalidProducerEpochException(
          "Epoch of producer %d at offset %d in %s is %d, which is smaller than the last seen epoch %d"
              .formatted(producerId, offset, topicPartition, epoch, staged.producerEpoch()));
    }
  }

  private void checkSequence(short epoch, int firstSeq, long offset) {
    if (epoch != staged.producerEpoch()) {
      // A new epoch (KIP-360's bump, or a producer not seen yet): it must start at 0, unless the
      // log
      // knows no epoch of this producer at all (its state expired, or retention removed it).
      if (firstSeq != 0 && staged.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH) {
        throw new OutOfOrderSequenceException(
            "Invalid sequence number for new epoch %d of producer %d at offset %d in %s: %d (seq. number), %d (current epoch)"
                .formatted(
                    epoch, producerId, offset, topicPartition, firstSeq, staged.producerEpoch()));
      }
      return;
    }
    int lastSeq;
    if (!staged.isEmpty()) {
      lastSeq = staged.lastSeq(); // an earlier batch of this request
    } else if (epoch == current.producerEpoch()) {
      lastSeq = current.lastSeq();
    } else {
      lastSeq = RecordBatch.NO_SEQUENCE;
    }
    if (current.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH
        && !inSequence(lastSeq, firstSeq)) {
      throw new OutOfOrderSequenceException(
          "Out of order sequence number for producer %d at offset %d in %s: %d (incoming seq. number), %d (current end sequence number)"
              .formatted(producerId, offset, topicPartition, firstSeq, lastSeq));
    }
  }

  /** {@code next} follows {@code last}: one more, or 0 after {@code Integer.MAX_VALUE}. */
  static boolean inSequence(int last, int next) {
    return next == last + 1L || (next == 0 && last == Integer.MAX_VALUE);
  }

  /** The staged entry: the producer's epoch after this append and the batches it adds. */
  ProducerStateEntry staged() {
    return staged;
  }
}
