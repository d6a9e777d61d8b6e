package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ProducePartitionResult;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Sends record batches that reached a broker which does not lead their partitions on to the broker
 * that does, as batch bytes (no re-encoding), so that a REST client may produce through any broker
 * (REST Proxy behaves this way: it produces through a Kafka client, which routes each partition to
 * its leader). The leader answers per partition exactly as it would a produce of its own; a
 * forwarded produce is never forwarded again.
 */
public interface PartitionForwarder {
  /**
   * Appends {@code batches} on broker {@code leaderId} for the client {@code context} names.
   * Completes with each partition's result; exceptionally only when the leader could not be reached
   * or answered nonsense (the caller reports that per partition).
   */
  CompletableFuture<Map<TopicPartition, ProducePartitionResult>> forward(
      int leaderId,
      Map<TopicPartition, ByteBuffer> batches,
      Acks acks,
      long timeoutMs,
      RequestContext context);

  /** A forwarder for a broker that has no peers: every forward fails as unreachable. */
  PartitionForwarder NONE =
      (leaderId, batches, acks, timeoutMs, context) ->
          CompletableFuture.failedFuture(
              new java.io.IOException(
                  "this broker has no peers; broker " + leaderId + " is not reachable"));
}
