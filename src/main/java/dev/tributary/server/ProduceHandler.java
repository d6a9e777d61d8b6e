package dev.tributary.server;

import dev.tributary.common.Murmur2;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.RecordTooLargeException;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Acks;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ReplicaManager;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Turns a produce request into appends: chooses each record's partition (the client's choice, else
 * Kafka's default partitioner), builds one v2 batch per partition, checks every batch before
 * appending any, then appends.
 *
 * <p>Partitioning, exactly as Kafka's clients: a keyed record goes to {@code
 * toPositive(murmur2(key)) % n}; the keyless records of one request go together to one partition,
 * the next request's to the next (Kafka's sticky partitioning, with a request as the batch), so
 * keyless traffic spreads evenly and batches stay large.
 *
 * <p>Atomicity: validation (partitions exist, batches fit {@code max.message.bytes}) happens before
 * any append, so a rejected request appends nothing; each partition's records are one batch,
 * appended whole or not at all. A partition that fails after validation (leadership moved, disk
 * error, its leader refused a forwarded batch) gives its records an error in the answer while the
 * other partitions' records succeed, as REST Proxy reports it.
 *
 * <p>Routing: records for partitions another broker leads are sent on to that leader through the
 * {@link PartitionForwarder} (so curl users may produce through any broker); a request that was
 * itself forwarded is never forwarded again.
 */
public final class ProduceHandler {
  private final BrokerServer broker;
  private final PartitionForwarder forwarder;
  private final Time time;
  private final Map<String, AtomicInteger> stickyPartitions = new ConcurrentHashMap<>();

  public ProduceHandler(BrokerServer broker, PartitionForwarder forwarder, Time time) {
    this.broker = broker;
    this.forwarder = forwarder;
    this.time = time;
  }

  /**
   * The outcome for one record, in request order: its partition and offset (-1 with acks=0), or the
   * error that kept its partition's batch from being appended.
   */
  public record RecordOffset(int partition, long offset, Throwable error) {}

  /**
   * Produces {@code records} to {@code topic}. {@code pathPartition}, if not null, overrides every
   * record's partition (the {@code /topics/{t}/partitions/{p}} form). The future completes once
   * {@code acks} is met.
   */
  public CompletableFuture<List<RecordOffset>> handleProduce(
      String topic,
      Integer pathPartition,
      List<ProduceRecord> records,
      Acks acks,
      boolean forwarded) {
    if (records.isEmpty()) {
      throw new InvalidRequestException(
          "The request has no records; send {\"records\":[...]} with at least one");
    }
    TopicImage image =
        broker
            .topicForProduce(topic, maxRequestedPartition(pathPartition, records))
            .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
    int partitionCount = image.partitionCount();
    int[] partitionOf = new int[records.size()];
    Map<Integer, List<ProduceRecord>> byPartition = new LinkedHashMap<>();
    int stickyPartition = -1;
    for (int i = 0; i < records.size(); i++) {
      ProduceRecord record = records.get(i);
      int partition;
      if (pathPartition != null) {
        partition = pathPartition;
      } else if (record.partition() != null) {
        partition = record.partition();
      } else if (record.key() != null) {
        partition = Murmur2.partitionForKey(record.key(), partitionCount);
      } else {
        if (stickyPartition < 0) {
          stickyPartition = nextStickyPartition(topic, partitionCount);
        }
        partition = stickyPartition;
      }
      if (partition < 0 || partition >= partitionCount) {
        throw UnknownTopicOrPartitionException.unknownPartition(topic, partition, partitionCount);
      }
      partitionOf[i] = partition;
      byPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(record);
    }

    // Check every partition before appending to any: local ones get their batches built (and
    // size-checked),
    // ones led elsewhere are sent on to their leader unless this request was itself forwarded.
    ReplicaManager replicaManager = broker.replicaManager();
    long nowMs = time.milliseconds();
    Map<Integer, ByteBuffer> localBatches = new LinkedHashMap<>();
    Map<Integer, Integer> remoteLeaders = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<ProduceRecord>> entry : byPartition.entrySet()) {
      TopicPartition tp = new TopicPartition(topic, entry.getKey());
      try {
        Partition partition = replicaManager.leaderPartition(tp);
        localBatches.put(
            entry.getKey(),
            buildBatches(
                tp,
                simpleRecords(entry.getValue(), nowMs),
                partition.log().config().maxMessageBytes()));
      } catch (NotLeaderOrFollowerException e) {
        if (forwarded || e.leaderId().isEmpty()) {
          throw e;
        }
        remoteLeaders.put(entry.getKey(), e.leaderId().getAsInt());
      }
    }

    long timeoutMs = broker.config().requestTimeoutMs();
    Map<Integer, CompletableFuture<List<RecordOffset>>> outcomes = new LinkedHashMap<>();
    for (Map.Entry<Integer, Integer> entry : remoteLeaders.entrySet()) {
      TopicPartition tp = new TopicPartition(topic, entry.getKey());
      outcomes.put(
          entry.getKey(),
          forwarder.forward(entry.getValue(), tp, byPartition.get(entry.getKey()), acks));
    }
    for (Map.Entry<Integer, ByteBuffer> entry : localBatches.entrySet()) {
      int partition = entry.getKey();
      TopicPartition tp = new TopicPartition(topic, partition);
      int count = byPartition.get(partition).size();
      CompletableFuture<List<RecordOffset>> outcome;
      try {
        outcome =
            replicaManager
                .appendRecords(tp, entry.getValue(), acks, timeoutMs)
                .thenApply(
                    result -> consecutive(partition, result.info().firstOffset(), count, acks));
      } catch (
          RuntimeException
              e) { // leadership moved or the disk failed after validation: this partition only
        outcome = CompletableFuture.failedFuture(e);
      }
      outcomes.put(partition, outcome);
    }
    return CompletableFuture.allOf(outcomes.values().toArray(CompletableFuture[]::new))
        .handle((ignored, anyError) -> inRequestOrder(partitionOf, outcomes));
  }

  private static List<SimpleRecord> simpleRecords(List<ProduceRecord> records, long nowMs) {
    List<SimpleRecord> simple = new ArrayList<>(records.size());
    for (ProduceRecord record : records) {
      long timestampMs = record.timestampMs() == null ? nowMs : record.timestampMs();
      simple.add(new SimpleRecord(timestampMs, record.key(), record.value(), record.headers()));
    }
    return simple;
  }

  private static List<RecordOffset> consecutive(
      int partition, long firstOffset, int count, Acks acks) {
    List<RecordOffset> offsets = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      offsets.add(new RecordOffset(partition, acks == Acks.NONE ? -1 : firstOffset + i, null));
    }
    return offsets;
  }

  /**
   * Encodes {@code records} as one batch, or as several consecutive batches in one buffer when one
   * would exceed {@code max.message.bytes} (as a Kafka producer splits by {@code batch.size}). The
   * log appends the buffer atomically. Only a record too large on its own is refused.
   */
  static ByteBuffer buildBatches(
      TopicPartition tp, List<SimpleRecord> records, int maxMessageBytes) {
    List<ByteBuffer> parts = new ArrayList<>(1);
    split(tp, records, maxMessageBytes, parts);
    if (parts.size() == 1) {
      return parts.get(0);
    }
    int total = parts.stream().mapToInt(ByteBuffer::remaining).sum();
    ByteBuffer all = ByteBuffer.allocate(total);
    parts.forEach(all::put);
    return all.flip();
  }

  private static void split(
      TopicPartition tp, List<SimpleRecord> records, int maxMessageBytes, List<ByteBuffer> out) {
    ByteBuffer batch = RecordBatchBuilder.build(records, CompressionType.NONE, 0L, -1);
    if (batch.remaining() <= maxMessageBytes) {
      out.add(batch);
    } else if (records.size() == 1) {
      throw new RecordTooLargeException(
          "A record for "
              + tp
              + " takes "
              + batch.remaining()
              + " bytes as a batch, more than max.message.bytes="
              + maxMessageBytes);
    } else {
      int half = records.size() / 2;
      split(tp, records.subList(0, half), maxMessageBytes, out);
      split(tp, records.subList(half, records.size()), maxMessageBytes, out);
    }
  }

  /**
   * Each record's outcome in request order. A partition whose append failed gives its records that
   * error; if every partition failed, the request fails with the first error (nothing was appended
   * anywhere).
   */
  private static List<RecordOffset> inRequestOrder(
      int[] partitionOf, Map<Integer, CompletableFuture<List<RecordOffset>>> outcomes) {
    Map<Integer, Iterator<RecordOffset>> next = new LinkedHashMap<>();
    Map<Integer, Throwable> failures = new LinkedHashMap<>();
    outcomes.forEach(
        (partition, future) -> {
          try {
            next.put(partition, future.join().iterator());
          } catch (CompletionException | CancellationException e) {
            failures.put(partition, e.getCause() != null ? e.getCause() : e);
          }
        });
    if (next.isEmpty()) {
      Throwable first = failures.values().iterator().next();
      throw first instanceof RuntimeException r ? r : new CompletionException(first);
    }
    List<RecordOffset> offsets = new ArrayList<>(partitionOf.length);
    for (int partition : partitionOf) {
      Throwable error = failures.get(partition);
      offsets.add(
          error != null ? new RecordOffset(partition, -1, error) : next.get(partition).next());
    }
    return offsets;
  }

  private static int maxRequestedPartition(Integer pathPartition, List<ProduceRecord> records) {
    int max = pathPartition == null ? -1 : pathPartition;
    for (ProduceRecord record : records) {
      if (record.partition() != null) {
        max = Math.max(max, record.partition());
      }
    }
    return max;
  }

  private int nextStickyPartition(String topic, int partitionCount) {
    int n = stickyPartitions.computeIfAbsent(topic, t -> new AtomicInteger()).getAndIncrement();
    return Math.floorMod(n, partitionCount);
  }
}
