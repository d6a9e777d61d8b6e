package dev.tributary.server;

import dev.tributary.common.Murmur2;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.RecordTooLargeException;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Acks;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ProducePartitionResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The producer's side of a produce for clients that send records, not batches (REST): what a Kafka
 * client does before it sends, done here. It finds (or auto-creates) the topic, chooses each
 * record's partition, builds one v2 batch per partition, then hands the batches to {@link
 * ProduceService} (which appends them, or forwards them to their leaders as bytes) and maps each
 * partition's answer back to each record.
 *
 * <p>Partitioning, exactly as Kafka's clients: a keyed record goes to {@code
 * toPositive(murmur2(key)) % n}; the keyless records of one request go together to one partition,
 * the next request's to the next (Kafka's sticky partitioning, with a request as the batch), so
 * keyless traffic spreads evenly and batches stay large.
 *
 * <p>Atomicity: every record's partition is checked and every batch built (and size-checked against
 * its topic's {@code max.message.bytes}) before any is sent, so a rejected request appends nothing;
 * each partition's records are one batch (or consecutive batches when one would be too large),
 * appended whole or not at all. A partition that fails after that (leadership moved, disk error,
 * its leader refused) gives its records an error while the others succeed, as REST Proxy reports
 * it; if every partition failed, the whole request fails with the first error.
 */
public final class RecordProducer {
  private final RunningBroker broker;
  private final ProduceService produce;
  private final AutoTopicCreator autoTopics;
  private final Time time;
  private final long requestTimeoutMs;
  private final Map<String, AtomicInteger> stickyPartitions = new ConcurrentHashMap<>();

  /**
   * @param requestTimeoutMs how long an {@code acks=all} produce waits for replication ({@code
   *     request.timeout.ms})
   */
  public RecordProducer(
      RunningBroker broker,
      ProduceService produce,
      AutoTopicCreator autoTopics,
      Time time,
      long requestTimeoutMs) {
    this.requestTimeoutMs = requestTimeoutMs;
    this.broker = broker;
    this.produce = produce;
    this.autoTopics = autoTopics;
    this.time = time;
  }

  /**
   * The outcome for one record, in request order: its partition and offset (-1 with acks=0), or the
   * error that kept its partition's batch from being appended.
   *
   * @param logAppendTimeMs the broker's time stamped on the record for a LogAppendTime topic, else
   *     -1 (the record keeps the timestamp it was produced with)
   */
  public record RecordOffset(int partition, long offset, long logAppendTimeMs, Throwable error) {}

  /** Every record's outcome, and how long to hold the answer back (the principal's quota). */
  public record Result(List<RecordOffset> offsets, long throttleTimeMs) {}

  /**
   * Produces {@code records} to {@code topic}. {@code pathPartition}, if not null, overrides every
   * record's partition (the {@code /topics/{t}/partitions/{p}} form). The future completes once
   * {@code acks} is met.
   *
   * @param sizeInBytes the request's size as the client sent it, charged to its quota
   */
  public CompletableFuture<Result> produce(
      RequestContext context,
      String topic,
      Integer pathPartition,
      List<ProduceRecord> records,
      Acks acks,
      long sizeInBytes) {
    if (records.isEmpty()) {
      throw new InvalidRequestException(
          "The request has no records; send {\"records\":[...]} with at least one");
    }
    return autoTopics
        .topicForProduce(context, topic, maxRequestedPartition(pathPartition, records))
        .thenCompose(
            image ->
                send(context, image, pathPartition, records, acks, requestTimeoutMs, sizeInBytes));
  }

  private CompletableFuture<Result> send(
      RequestContext context,
      TopicImage image,
      Integer pathPartition,
      List<ProduceRecord> records,
      Acks acks,
      long timeoutMs,
      long sizeInBytes) {
    String topic = image.name();
    int partitionCount = image.partitionCount();
    int[] partitionOf = new int[records.size()];
    Map<Integer, List<SimpleRecord>> byPartition = new LinkedHashMap<>();
    int stickyPartition = -1;
    long nowMs = time.milliseconds();
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
      long timestampMs = record.timestampMs() == null ? nowMs : record.timestampMs();
      byPartition
          .computeIfAbsent(partition, p -> new ArrayList<>())
          .add(new SimpleRecord(timestampMs, record.key(), record.value(), record.headers()));
    }
    Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
    LogConfig[] topicConfig = new LogConfig[1]; // parsed once, only if a partition is not local
    for (Map.Entry<Integer, List<SimpleRecord>> entry : byPartition.entrySet()) {
      TopicPartition tp = new TopicPartition(topic, entry.getKey());
      int maxMessageBytes =
          localPartition(tp)
              .map(p -> p.log().config().maxMessageBytes())
              .orElseGet(
                  () -> {
                    if (topicConfig[0] == null) {
                      topicConfig[0] = LogConfig.fromMap(image.configs());
                    }
                    return topicConfig[0].maxMessageBytes();
                  });
      batches.put(tp, buildBatches(tp, entry.getValue(), maxMessageBytes));
    }
    return produce
        .produce(
            context, new ProduceService.ProduceRequest(batches, acks, timeoutMs, sizeInBytes, true))
        .thenApply(
            response ->
                new Result(
                    inRequestOrder(topic, partitionOf, byPartition, response.partitions(), acks),
                    response.throttleTimeMs()));
  }

  private Optional<Partition> localPartition(TopicPartition tp) {
    return broker.replicaManager().partition(tp);
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
   * Each record's outcome in request order: consecutive offsets from its partition's base offset,
   * or its partition's error. If every partition failed, the request fails with the first error
   * (nothing was appended anywhere).
   */
  private static List<RecordOffset> inRequestOrder(
      String topic,
      int[] partitionOf,
      Map<Integer, List<SimpleRecord>> byPartition,
      Map<TopicPartition, ProducePartitionResult> results,
      Acks acks) {
    Map<Integer, ProducePartitionResult> byNumber = new LinkedHashMap<>();
    RuntimeException firstFailure = null;
    boolean anySucceeded = false;
    for (int partition : byPartition.keySet()) {
      ProducePartitionResult result = results.get(new TopicPartition(topic, partition));
      byNumber.put(partition, result);
      if (result.error() == Errors.NONE) {
        anySucceeded = true;
      } else if (firstFailure == null) {
        firstFailure = result.error().exception(result.errorMessage());
      }
    }
    if (!anySucceeded) {
      throw firstFailure;
    }
    Map<Integer, Integer> nextIndex = new LinkedHashMap<>();
    List<RecordOffset> offsets = new ArrayList<>(partitionOf.length);
    for (int partition : partitionOf) {
      ProducePartitionResult result = byNumber.get(partition);
      if (result.error() != Errors.NONE) {
        offsets.add(
            new RecordOffset(partition, -1, -1, result.error().exception(result.errorMessage())));
        continue;
      }
      int index = nextIndex.merge(partition, 1, Integer::sum) - 1;
      offsets.add(
          new RecordOffset(
              partition,
              acks == Acks.NONE ? -1 : result.baseOffset() + index,
              result.logAppendTimeMs(),
              null));
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
