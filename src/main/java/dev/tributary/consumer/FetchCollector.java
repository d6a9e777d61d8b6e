package dev.tributary.consumer;

import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.ConsumerInstance.Deliverable;
import dev.tributary.consumer.ConsumerInstance.Delivery;
import dev.tributary.consumer.SubscriptionState.ReadPositions;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.Record;
import dev.tributary.log.record.RecordBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns what a fetch read into what a records call returns, as Kafka's {@code FetchCollector}: per
 * partition, the records from its position on, up to {@code maxBytes} of keys and values in all
 * (but at least one record), and only as far as the caller can render them; each position advances
 * over exactly what is returned, past control batches and compacted-away offsets too.
 *
 * <p>A partition is dropped from the answer if it is no longer assigned, if its position moved
 * since the read began (another records call delivered from there first), or if the assignment
 * changed while the read was in flight: records are served only from the assignment as it is when
 * the read completes.
 *
 * <p>Stateless and thread-safe: the checks and advances run inside {@link
 * SubscriptionState#collect}, under the subscription state's lock, and call nothing else.
 */
final class FetchCollector {
  private final ConsumerSettings settings;
  private final SubscriptionState subscriptions;

  FetchCollector(ConsumerSettings settings, SubscriptionState subscriptions) {
    this.settings = settings;
    this.subscriptions = subscriptions;
  }

  /**
   * Delivers from {@code read} (partitions read from their positions in assignment {@code epoch}).
   * If the first record to deliver is one {@code deliverable} refuses, fails with {@link
   * UndeliverableRecordException} and moves nothing.
   */
  Delivery collect(
      List<PartitionRecords> read, long epoch, long maxBytes, Deliverable deliverable) {
    return subscriptions.collect(
        epoch,
        (generationId, positions) ->
            new Delivery(generationId, trim(read, positions, maxBytes, deliverable)));
  }

  private List<PartitionRecords> trim(
      List<PartitionRecords> read,
      ReadPositions positions,
      long maxBytes,
      Deliverable deliverable) {
    String refused = null;
    List<PartitionRecords> out = new ArrayList<>();
    long budget = maxBytes;
    boolean any = false;
    for (PartitionRecords p : read) {
      TopicPartition tp = p.topicPartition();
      Long position = positions.positionIfAssigned(tp);
      if (position == null || position != p.fromOffset()) {
        continue;
      }
      long next = p.fromOffset();
      outer:
      for (RecordBatch batch : BatchIterator.lenient(p.batches().duplicate())) {
        if (batch.isControlBatch()) {
          next = Math.max(next, batch.nextOffset());
          continue;
        }
        for (Record record : batch.records()) {
          if (record.offset() < p.fromOffset()) {
            continue;
          }
          if (!deliverable.accepts(record)) {
            if (refused == null) {
              refused = tp + " at offset " + record.offset();
            }
            break outer; // this partition stops here; the others go on
          }
          long size =
              (record.key() == null ? 0 : record.key().remaining())
                  + (record.value() == null ? 0 : record.value().remaining());
          if (any && size > budget) {
            break outer;
          }
          budget -= size;
          any = true;
          next = record.offset() + 1;
        }
        // The batch is done: skip its compacted-away offsets too.
        next = Math.max(next, batch.nextOffset());
      }
      if (next > p.fromOffset()) {
        positions.advance(tp, next);
        out.add(new PartitionRecords(tp, p.batches(), p.fromOffset(), next));
      }
      if (budget <= 0 && any) {
        break;
      }
    }
    if (out.isEmpty() && refused != null) {
      throw new UndeliverableRecordException(
          "The record of "
              + refused
              + " cannot be delivered in this instance's format "
              + settings.format()
              + " (it is not JSON); its position stays there. Read it with an instance in the"
              + " binary format, or skip it with POST .../positions");
    }
    return out;
  }
}
