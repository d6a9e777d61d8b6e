package dev.tributary.log;

import java.util.List;

/**
 * A copy of one producer's state in a partition log, for tools and tests (what Kafka's
 * DescribeProducers reports, KIP-664): its epoch, its last batches (up to five, oldest first) and
 * the timestamp its expiry counts from.
 */
public record ActiveProducer(
    long producerId, short producerEpoch, List<BatchMetadata> batches, long lastTimestampMs) {
  public ActiveProducer {
    batches = List.copyOf(batches);
  }

  /** The last sequence number appended, or -1 (Kafka's NO_SEQUENCE) with no batch. */
  public int lastSequence() {
    return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastSeq();
  }
}
