package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.quota.ClientQuotaManager;
import dev.tributary.replication.Acks;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ProducePartitionResult;
import dev.tributary.replication.ReplicaManager;
import dev.tributary.security.AclOperation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Produce, for every protocol (Kafka's KafkaApis.handleProduceRequest over
 * ReplicaManager.appendRecords): appends many partitions' record batches — bytes in Kafka's batch
 * format, stored as they come — with {@code acks} and a timeout, and answers per partition: base
 * offset, log append time and log start offset, or an error with Kafka's meaning.
 *
 * <p>Per request: the principal's produce quota is charged ({@link ClientQuotaManager}; a relayed
 * request was charged where its client sent it) and the answer says how long to hold it back; each
 * topic needs WRITE (else TOPIC_AUTHORIZATION_FAILED for its partitions). Per partition: appended
 * here if this broker leads it; otherwise, when the caller allows it (REST, whose clients do not
 * route), forwarded to its leader as batch bytes and answered with the leader's own result; else
 * NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE or UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers. A
 * partition's failure never fails the others.
 *
 * <p>Thread-safe; holds no thread while it waits (acknowledgements and forwarded answers complete
 * the future).
 */
public final class ProduceService {
  private final RunningBroker broker;
  private final AccessControl access;
  private final ClientQuotaManager quotas;
  private final PartitionForwarder forwarder;
  private final BrokerStats stats;

  public ProduceService(
      RunningBroker broker,
      AccessControl access,
      ClientQuotaManager quotas,
      PartitionForwarder forwarder,
      BrokerStats stats) {
    this.broker = broker;
    this.access = access;
    this.quotas = quotas;
    this.forwarder = forwarder;
    this.stats = stats;
  }

  /**
   * A produce: {@code batches} per partition, in the order to answer them.
   *
   * @param sizeInBytes the request's size on the wire, charged to the principal's quota
   * @param forwardToLeaders send partitions led elsewhere on to their leaders (REST), instead of
   *     answering NOT_LEADER_OR_FOLLOWER (a Kafka client routes by itself)
   */
  public record ProduceRequest(
      Map<TopicPartition, ByteBuffer> batches,
      Acks acks,
      long timeoutMs,
      long sizeInBytes,
      boolean forwardToLeaders) {}

  /**
   * Every partition of the request, in its order, and how long the adapter must hold the answer
   * back for the principal's quota (Kafka's {@code throttle_time_ms}).
   */
  public record ProduceResponse(
      Map<TopicPartition, ProducePartitionResult> partitions, long throttleTimeMs) {}

  /** Fails at once (before anything is appended) only if the broker is not serving. */
  public CompletableFuture<ProduceResponse> produce(
      RequestContext context, ProduceRequest request) {
    ReplicaManager replicas = broker.replicaManager();
    long throttleTimeMs = charge(context, request.sizeInBytes());
    MetadataImage image = replicas.metadataImage();
    Map<TopicPartition, ProducePartitionResult> results = new LinkedHashMap<>();
    Map<TopicPartition, ByteBuffer> local = new LinkedHashMap<>();
    Map<Integer, Map<TopicPartition, ByteBuffer>> remote = new HashMap<>();
    TopicChecks writable = new TopicChecks(access, context, AclOperation.WRITE);
    for (Map.Entry<TopicPartition, ByteBuffer> entry : request.batches().entrySet()) {
      TopicPartition tp = entry.getKey();
      results.put(tp, null); // keeps the request's order
      String denial = writable.refusal(tp.topic());
      if (denial != null) {
        results.put(tp, ProducePartitionResult.failed(Errors.TOPIC_AUTHORIZATION_FAILED, denial));
        continue;
      }
      Optional<Partition> partition = replicas.partition(tp);
      if (partition.isPresent() && partition.get().isLeader()) {
        local.put(tp, entry.getValue());
        continue;
      }
      PartitionImage placement = placement(image, tp);
      if (placement == null) {
        results.put(tp, unknown(image, tp));
      } else if (placement.leader() < 0) {
        results.put(
            tp,
            ProducePartitionResult.failed(
                Errors.LEADER_NOT_AVAILABLE,
                tp
                    + " has no leader: its last in-sync replica "
                    + placement.isr()
                    + " is on a fenced broker"));
      } else if (request.forwardToLeaders() && placement.leader() != broker.brokerId()) {
        remote
            .computeIfAbsent(placement.leader(), id -> new LinkedHashMap<>())
            .put(tp, entry.getValue());
      } else {
        results.put(
            tp,
            ProducePartitionResult.failed(
                Errors.NOT_LEADER_OR_FOLLOWER,
                "Broker "
                    + broker.brokerId()
                    + " is not the leader of "
                    + tp
                    + "; its leader is broker "
                    + placement.leader()));
      }
    }
    List<CompletableFuture<Void>> pending = new ArrayList<>(remote.size() + 1);
    if (!local.isEmpty()) {
      pending.add(
          replicas
              .appendRecords(local, request.acks(), request.timeoutMs())
              .thenAccept(appended -> record(results, appended, local)));
    }
    remote.forEach(
        (leaderId, batches) ->
            pending.add(
                forward(leaderId, batches, request, context)
                    .handle(
                        (answered, failure) -> {
                          fill(results, batches, leaderId, answered, failure);
                          return null;
                        })));
    return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
        .thenApply(done -> new ProduceResponse(results, throttleTimeMs));
  }

  /**
   * Forwards one leader's batches. A forwarder that throws fails only that leader's partitions: the
   * local ones may be written already, and failing the whole request would make the client resend
   * (and duplicate) them.
   */
  private CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forward(
      int leaderId,
      Map<TopicPartition, ByteBuffer> batches,
      ProduceRequest request,
      RequestContext context) {
    try {
      return forwarder.forward(leaderId, batches, request.acks(), request.timeoutMs(), context);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Charges the request to its client's produce quota and returns how long to hold the answer back;
   * a request relayed by another broker was charged there.
   */
  private long charge(RequestContext context, long sizeInBytes) {
    if (context.fromBroker()) {
      return 0;
    }
    long throttleTimeMs = quotas.recordAndGetThrottleTimeMs(context.clientIdentity(), sizeInBytes);
    stats.recordProduceThrottle(context.clientIdentity(), throttleTimeMs);
    return throttleTimeMs;
  }

  private void record(
      Map<TopicPartition, ProducePartitionResult> results,
      Map<TopicPartition, ProducePartitionResult> appended,
      Map<TopicPartition, ByteBuffer> batches) {
    synchronized (results) {
      appended.forEach(
          (tp, result) -> {
            results.put(tp, result);
            if (result.error() == Errors.NONE) {
              stats.recordProduced(tp.topic(), result.recordCount(), batches.get(tp).remaining());
            }
          });
    }
  }

  private static void fill(
      Map<TopicPartition, ProducePartitionResult> results,
      Map<TopicPartition, ByteBuffer> batches,
      int leaderId,
      Map<TopicPartition, ProducePartitionResult> answered,
      Throwable failure) {
    synchronized (results) {
      for (TopicPartition tp : batches.keySet()) {
        ProducePartitionResult result = failure == null ? answered.get(tp) : null;
        if (result == null) {
          String why =
              failure == null
                  ? "it did not answer for this partition"
                  : dev.tributary.common.NetworkFailures.describe(failure);
          result =
              ProducePartitionResult.failed(
                  Errors.NETWORK_EXCEPTION,
                  "Broker "
                      + leaderId
                      + " leads "
                      + tp
                      + " but did not answer; retry shortly ("
                      + why
                      + ")");
        }
        results.put(tp, result);
      }
    }
  }

  private static PartitionImage placement(MetadataImage image, TopicPartition tp) {
    Optional<TopicImage> topic = image.topic(tp.topic());
    return topic.map(t -> t.partitions().get(tp.partition())).orElse(null);
  }

  private static ProducePartitionResult unknown(MetadataImage image, TopicPartition tp) {
    Optional<TopicImage> topic = image.topic(tp.topic());
    String message =
        topic.isEmpty()
            ? "Topic '" + tp.topic() + "' does not exist."
            : "Partition "
                + tp.partition()
                + " of topic '"
                + tp.topic()
                + "' does not exist; the topic has "
                + topic.get().partitionCount()
                + " partition(s).";
    return ProducePartitionResult.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION, message);
  }
}
