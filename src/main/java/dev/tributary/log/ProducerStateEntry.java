package dev.tributary.log;

import dev.tributary.log.record.RecordBatch;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One producer id's state in one partition log (Kafka's ProducerStateEntry): its latest epoch, the
 * metadata of its last {@value #NUM_BATCHES_TO_RETAIN} batches of that epoch, and the timestamp of
 * the last one, from which the id expires.
 *
 * <p>Invariants (enforced in {@link #addBatch}, the only writer): the batches are all of {@code
 * producerEpoch}, in the order appended (so in sequence order), at most {@value
 * #NUM_BATCHES_TO_RETAIN}; a batch of another epoch clears them first. Five is what a Kafka
 * producer may have in flight per partition ({@code max.in.flight.requests.per.connection} is at
 * most 5 with idempotence), so any retry it can send is still recognised here.
 *
 * <p>Concurrency: guarded by the owning {@link PartitionLog}'s lock.
 */
final class ProducerStateEntry {
  static final int NUM_BATCHES_TO_RETAIN = 5;

  private final long producerId;
  private short producerEpoch;
  private final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(NUM_BATCHES_TO_RETAIN);

  /** The last batch's timestamp (-1 before the first): the producer expires counting from it. */
  private long lastTimestampMs = RecordBatch.NO_TIMESTAMP;

  /** An entry of {@code producerEpoch} without batches yet. */
  ProducerStateEntry(long producerId, short producerEpoch) {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
  }

  /** A producer the log has not seen: no epoch, no batch. */
  static ProducerStateEntry empty(long producerId) {
    return new ProducerStateEntry(producerId, RecordBatch.NO_PRODUCER_EPOCH);
  }

  /**
   * Records an appended batch of {@code epoch}: a new epoch drops the older epoch's batches; the
   * oldest batch goes once five are kept.
   */
  void addBatch(short epoch, BatchMetadata batch) {
    if (epoch != producerEpoch) {
      batches.clear();
      producerEpoch = epoch;
    }
    if (batches.size() == NUM_BATCHES_TO_RETAIN) {
      batches.removeFirst();
    }
    batches.addLast(batch);
    lastTimestampMs = batch.timestampMs();
  }

  /**
   * Adds the batches an append staged for this producer ({@link ProducerAppendInfo}), all of the
   * staged entry's epoch.
   */
  void update(ProducerStateEntry staged) {
    for (BatchMetadata batch : staged.batches) {
      addBatch(staged.producerEpoch, batch);
    }
  }

  /**
   * The cached batch a batch of {@code epoch} numbered {@code firstSeq..lastSeq} repeats (the same
   * epoch and exactly the same sequence range: Kafka's findDuplicateBatch), or null.
   */
  BatchMetadata findDuplicate(short epoch, int firstSeq, int lastSeq) {
    if (epoch != producerEpoch) {
      return null;
    }
    for (BatchMetadata batch : batches) {
      if (batch.firstSeq() == firstSeq && batch.lastSeq() == lastSeq) {
        return batch;
      }
    }
    return null;
  }

  long producerId() {
    return producerId;
  }

  short producerEpoch() {
    return producerEpoch;
  }

  boolean isEmpty() {
    return batches.isEmpty();
  }

  /** The last sequence number appended in this epoch, or -1 (NO_SEQUENCE) with no batch. */
  int lastSeq() {
    return batches.isEmpty() ? RecordBatch.NO_SEQUENCE : batches.getLast().lastSeq();
  }

  long lastTimestampMs() {
    return lastTimestampMs;
  }

  /** Oldest first. */
  List<BatchMetadata> batches() {
    return List.copyOf(batches);
  }

  ActiveProducer toActiveProducer() {
    return new ActiveProducer(producerId, producerEpoch, batches(), lastTimestampMs);
  }

  @Override
  public String toString() {
    return "ProducerStateEntry(producerId=%d, epoch=%d, batches=%s, lastTimestampMs=%d)"
        .formatted(producerId, producerEpoch, batches, lastTimestampMs);
  }
}
