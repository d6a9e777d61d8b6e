package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.record.CompressionType;
import dev.tributary.log.record.RecordBatchBuilder;
import dev.tributary.log.record.SimpleRecord;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Acks;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.replication.ReplicaManager;
import dev.tributary.trace.RecordTrace;
import dev.tributary.trace.TraceReport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * "Follow one record": produces one record to a partition this broker leads, through the same
 * {@link ProduceService} as every produce (acks, min.insync.replicas, ACLs and quotas apply), and
 * reports each step of its life as the leader measured it ({@link RecordTrace}, armed on the
 * leader's partition before the append and disarmed after): appended at offset N, each follower's
 * next fetch from beyond N, the high watermark passing N, the producer's answer.
 *
 * <p>The partition is the one asked for, else partition 0. Only the leader can trace: another
 * broker gets NOT_LEADER_OR_FOLLOWER naming the leader (the dashboard passes the request on to it).
 * The trace waits, holding no thread, until every step it expects has happened (the ISR's
 * followers, the HW, the answer) or {@code waitMs} has passed, whichever is first; several traces
 * of one partition may run at once, each following its own record.
 */
public final class RecordTraceService {
  private final RunningBroker broker;
  private final ProduceService produce;
  private final Time time;
  private final Scheduler scheduler;
  private final long waitMs;
  private final long produceTimeoutMs;

  /**
   * @param waitMs how long a trace waits for the steps after the append
   * @param produceTimeoutMs how long an acks=all produce waits for the HW ({@code
   *     request.timeout.ms})
   */
  public RecordTraceService(
      RunningBroker broker,
      ProduceService produce,
      Time time,
      Scheduler scheduler,
      long waitMs,
      long produceTimeoutMs) {
    this.broker = broker;
    this.produce = produce;
    this.time = time;
    this.scheduler = scheduler;
    this.waitMs = waitMs;
    this.produceTimeoutMs = produceTimeoutMs;
  }

  /** How long a trace waits for the steps after the append. */
  public long waitMs() {
    return waitMs;
  }

  /**
   * Traces one record to {@code topic}'s partition {@code partition} (null: partition 0).
   *
   * @throws dev.tributary.common.errors.ApiException before anything is appended:
   *     UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (naming the leader) or
   *     LEADER_NOT_AVAILABLE; the returned future fails with the produce's error (for example
   *     TOPIC_AUTHORIZATION_FAILED or NOT_ENOUGH_REPLICAS) when the record was not appended
   */
  public CompletableFuture<TraceReport> trace(
      RequestContext context, String topic, Integer partition, Acks acks) {
    long startNanos = time.nanoseconds();
    ReplicaManager replicas = broker.replicaManager();
    TopicImage image =
        replicas
            .metadataImage()
            .topic(topic)
            .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
    int chosen = partition == null ? 0 : partition;
    if (chosen < 0 || chosen >= image.partitionCount()) {
      throw UnknownTopicOrPartitionException.unknownPartition(
          topic, chosen, image.partitionCount());
    }
    TopicPartition tp = new TopicPartition(topic, chosen);
    Partition leader = replicas.leaderPartition(tp);
    CompletableFuture<Void> finished = new CompletableFuture<>();
    RecordTrace trace =
        new RecordTrace(
            tp,
            replicas.localBrokerId(),
            leader.leaderEpoch(),
            leader.replicas(),
            leader.isr(),
            acks,
            time,
            startNanos,
            Thread.currentThread(),
            // may run under the partition's lock: only hand off
            () -> scheduler.schedule(0, () -> finished.complete(null)));
    leader.traces().arm(trace);
    CompletableFuture<ProduceService.ProduceResponse> answered;
    try {
      answered = produce.produce(context, request(tp, acks));
    } catch (RuntimeException e) {
      leader.traces().disarm(trace);
      throw e;
    }
    // The append, if any, has happened: the service appends a local partition before it returns.
    if (trace.offset() < 0) {
      leader.traces().disarm(trace);
      return answered.thenApply(
          response -> {
            throw failure(tp, response.partitions().get(tp));
          });
    }
    answered.whenComplete(
        (response, error) -> trace.onAcknowledged(answerError(tp, response, error)));
    Scheduler.Cancellable deadline = scheduler.schedule(waitMs, () -> finished.complete(null));
    return finished.thenApply(
        done -> {
          deadline.cancel();
          leader.traces().disarm(trace);
          return trace.report(waitMs);
        });
  }

  private ProduceService.ProduceRequest request(TopicPartition tp, Acks acks) {
    long nowMs = time.milliseconds();
    byte[] value =
        ("{\"traced\":true,\"sent_at_ms\":" + nowMs + "}").getBytes(StandardCharsets.UTF_8);
    ByteBuffer batch =
        RecordBatchBuilder.build(
            List.of(new SimpleRecord(nowMs, "trace".getBytes(StandardCharsets.UTF_8), value)),
            CompressionType.NONE,
            0L,
            -1);
    return new ProduceService.ProduceRequest(
        Map.of(tp, batch), acks, produceTimeoutMs, batch.remaining(), false);
  }

  private static RuntimeException failure(TopicPartition tp, ProducePartitionResult result) {
    if (result == null || result.error() == Errors.NONE) {
      // Unreachable by the service's contract; said plainly rather than reported as a trace.
      return new IllegalStateException(tp + ": the traced record was not appended on this broker");
    }
    return result.error().exception(result.errorMessage());
  }

  private static String answerError(
      TopicPartition tp, ProduceService.ProduceResponse response, Throwable error) {
    if (error != null) {
      return Errors.messageOf(error);
    }
    ProducePartitionResult result = response.partitions().get(tp);
    return result == null || result.error() == Errors.NONE
        ? null
        : result.error().name() + ": " + result.errorMessage();
  }
}
