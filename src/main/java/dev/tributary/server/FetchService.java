package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.AuthorizationException;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.record.RecordBatch;
import dev.tributary.replication.FetchParams;
import dev.tributary.replication.FetchPartitionData;
import dev.tributary.replication.PartitionFetch;
import dev.tributary.replication.ReplicaFetch;
import dev.tributary.replication.ReplicaFetchHandler;
import dev.tributary.security.AclOperation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Fetch, for every protocol and every kind of reader (Kafka's KafkaApis.handleFetchRequest over
 * ReplicaManager.fetchMessages): followers copying a leader, REST consumer instances, stateless
 * REST reads and Kafka consumers all come here with Kafka's parameters ({@link FetchParams}, one
 * {@link PartitionFetch} per partition) and get the stored batches unchanged, with the high
 * watermark, log start and end offsets, and a diverging epoch where the fetcher's log went another
 * way. A fetch that finds too little waits in one delayed-fetch mechanism, completed by appends and
 * high watermark moves.
 *
 * <p>A consumer's fetch needs READ on each topic (else TOPIC_AUTHORIZATION_FAILED for its
 * partitions); a follower's fetch comes only from another broker (the inter-broker transport proves
 * it) and is checked against its registration by the replica manager. Bytes and records served to
 * consumers are counted per topic.
 */
public final class FetchService {
  private final RunningBroker broker;
  private final AccessControl access;
  private final BrokerStats stats;

  public FetchService(RunningBroker broker, AccessControl access, BrokerStats stats) {
    this.broker = broker;
    this.access = access;
    this.stats = stats;
  }

  /**
   * Every partition's answer, in the order asked.
   *
   * @throws dev.tributary.common.errors.BrokerNotAvailableException the broker is not serving
   * @throws dev.tributary.common.errors.StaleBrokerEpochException a follower that is not its broker
   *     id's current registration
   */
  public CompletableFuture<List<FetchPartitionData>> fetch(
      RequestContext context, FetchParams params, List<PartitionFetch> partitions) {
    if (params.isFromFollower()) {
      requireBroker(context);
      return broker.replicaManager().fetchMessages(params, partitions);
    }
    TopicChecks readable = new TopicChecks(access, context, AclOperation.READ);
    List<PartitionFetch> allowed = new ArrayList<>(partitions.size());
    for (PartitionFetch fetch : partitions) {
      if (readable.refusal(fetch.topicPartition().topic()) == null) {
        allowed.add(fetch);
      }
    }
    CompletableFuture<List<FetchPartitionData>> read =
        allowed.isEmpty()
            ? CompletableFuture.completedFuture(List.of())
            : broker.replicaManager().fetchMessages(params, allowed);
    return read.thenApply(
        answers -> {
          List<FetchPartitionData> all = new ArrayList<>(partitions.size());
          int next = 0;
          for (PartitionFetch fetch : partitions) {
            TopicPartition tp = fetch.topicPartition();
            String refusal = readable.refusal(tp.topic());
            if (refusal != null) {
              all.add(
                  FetchPartitionData.error(tp, Errors.TOPIC_AUTHORIZATION_FAILED, refusal, -1, -1));
              continue;
            }
            FetchPartitionData answer = answers.get(next++);
            if (answer.sizeInBytes() > 0) {
              stats.recordFetched(tp.topic(), recordsIn(answer, fetch), answer.sizeInBytes());
            }
            all.add(answer);
          }
          return all;
        });
  }

  /**
   * A follower's fetch as the inter-broker transport carries it (see {@link ReplicaFetchHandler});
   * only from another broker.
   */
  public CompletableFuture<ReplicaFetch.Response> replicaFetch(
      RequestContext context, ReplicaFetch.Request request) {
    requireBroker(context);
    return new ReplicaFetchHandler(broker.replicaManager()).handleReplicaFetch(request);
  }

  /** A follower's OffsetsForLeaderEpoch over the inter-broker transport; only from a broker. */
  public ReplicaFetch.EpochResponse replicaEpochEndOffsets(
      RequestContext context, ReplicaFetch.EpochRequest request) {
    requireBroker(context);
    return new ReplicaFetchHandler(broker.replicaManager()).handleEpochEndOffsets(request);
  }

  private static void requireBroker(RequestContext context) {
    if (!context.fromBroker()) {
      throw new AuthorizationException(
          Errors.CLUSTER_AUTHORIZATION_FAILED,
          "Only brokers of the cluster may fetch as a follower");
    }
  }

  /** Records served from the fetch offset on. */
  private static long recordsIn(FetchPartitionData answer, PartitionFetch fetch) {
    if (answer.fileSlice() != null) {
      // still in the file: from its offsets (exact unless compaction left gaps)
      return answer.fileSlice().nextOffset()
          - Math.max(fetch.fetchOffset(), answer.fileSlice().firstOffset());
    }
    return recordsFrom(answer.records(), fetch.fetchOffset());
  }

  /**
   * Records served from {@code fetchOffset} on, read from the batch headers (nothing is decoded): a
   * batch that starts before the fetch offset counts only its records from there (exact for batches
   * without compaction gaps, which is every batch a client can start inside of).
   */
  static long recordsFrom(ByteBuffer batches, long fetchOffset) {
    long count = 0;
    int position = batches.position();
    while (batches.limit() - position >= RecordBatch.HEADER_SIZE) {
      RecordBatch batch = new RecordBatch(batches, position);
      count +=
          batch.baseOffset() >= fetchOffset
              ? batch.recordCount()
              : Math.max(0, Math.min(batch.recordCount(), batch.lastOffset() - fetchOffset + 1));
      position += batch.sizeInBytes();
    }
    return count;
  }
}
