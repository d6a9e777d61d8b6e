package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import dev.tributary.server.ProduceHandler.RecordOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends the records a broker received for a partition it does not lead on to that partition's
 * leader, so that a client may produce through any broker (REST Proxy behaves this way: it produces
 * through a Kafka client, which routes each partition to its leader). Implementations must mark the
 * request as forwarded so the leader never forwards it again.
 */
public interface PartitionForwarder {
  /**
   * Appends {@code records} to {@code tp} on broker {@code leaderId}; completes with each record's
   * outcome, in order, or exceptionally with the leader's error.
   */
  CompletableFuture<List<RecordOffset>> forward(
      int leaderId, TopicPartition tp, List<ProduceRecord> records, Acks acks);

  /** A forwarder for a broker that has no peers: every forward fails with the given error. */
  PartitionForwarder NONE =
      (leaderId, tp, records, acks) ->
          CompletableFuture.failedFuture(
              new dev.tributary.common.errors.NotLeaderOrFollowerException(
                  "Partition "
                      + tp
                      + " is led by broker "
                      + leaderId
                      + ", which this broker cannot reach"));
}
