package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.record.BatchIterator;
import dev.tributary.log.record.RecordBatch;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The followers' calls to their leaders in a {@link ReplicationScenario}, in memory: straight to
 * the leader's {@link ReplicaManager} (broker-epoch check included, no long poll), each call and
 * its answer described in the scenario's lines. A broker that is down refuses the connection.
 */
final class ScenarioEndpoint implements LeaderEndpoint {
  private final Map<Integer, ScenarioBroker> brokers;
  private final List<String> lines;
  private final Runnable afterFetch;

  /** Calls made so far, answered or refused. */
  int calls;

  /**
   * @param afterFetch runs once a fetch is answered (what the fetch completed gets reported)
   */
  ScenarioEndpoint(Map<Integer, ScenarioBroker> brokers, List<String> lines, Runnable afterFetch) {
    this.brokers = brokers;
    this.lines = lines;
    this.afterFetch = afterFetch;
  }

  @Override
  public ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request)
      throws IOException {
    calls++;
    String from = "b" + request.replicaId() + " fetches ";
    ScenarioBroker leader = reachable(request.replicaId(), leaderId);
    int at = lines.size();
    ReplicaFetch.Response response =
        new ReplicaFetchHandler(leader.replicas).handleReplicaFetch(request).join();
    if (response.error() != Errors.NONE) {
      lines.add(from + "from b" + leaderId + ": refused, " + response.error());
      return response;
    }
    Map<TopicPartition, ReplicaFetch.PartitionRequest> asked = new HashMap<>();
    request.partitions().forEach(p -> asked.put(p.topicPartition(), p));
    for (ReplicaFetch.PartitionResponse answer : response.partitions()) {
      ReplicaFetch.PartitionRequest ask = asked.get(answer.topicPartition());
      // before what the leader did while it handled the fetch (an ISR change it proposed)
      lines.add(
          at++,
          from
              + answer.topicPartition()
              + " from b"
              + leaderId
              + " at offset "
              + ask.fetchOffset()
              + " in leader epoch "
              + ask.currentLeaderEpoch()
              + ": "
              + describe(answer));
    }
    afterFetch.run();
    return response;
  }

  @Override
  public ReplicaFetch.EpochResponse epochEndOffsets(int leaderId, ReplicaFetch.EpochRequest request)
      throws IOException {
    calls++;
    ScenarioBroker leader = reachable(request.replicaId(), leaderId);
    ReplicaFetch.EpochResponse response =
        new ReplicaFetchHandler(leader.replicas).handleEpochEndOffsets(request);
    String from = "b" + request.replicaId() + " asks b" + leaderId + " where leader epoch ";
    if (response.error() != Errors.NONE) {
      lines.add(from + "... ends: refused, " + response.error());
      return response;
    }
    Map<TopicPartition, ReplicaFetch.EpochPartitionRequest> asked = new HashMap<>();
    request.partitions().forEach(p -> asked.put(p.topicPartition(), p));
    for (ReplicaFetch.EpochPartitionResponse answer : response.partitions()) {
      ReplicaFetch.EpochPartitionRequest ask = asked.get(answer.topicPartition());
      lines.add(
          from
              + ask.leaderEpoch()
              + " ends in "
              + answer.topicPartition()
              + ": "
              + describe(answer));
    }
    return response;
  }

  private ScenarioBroker reachable(int followerId, int leaderId) throws IOException {
    ScenarioBroker leader = brokers.get(leaderId);
    if (leader == null || !leader.up) {
      lines.add("b" + followerId + " → b" + leaderId + ": connection refused");
      throw new IOException("connection refused: b" + leaderId + " is down");
    }
    return leader;
  }

  private static String describe(ReplicaFetch.PartitionResponse answer) {
    if (answer.error() != Errors.NONE) {
      return answer.error().toString();
    }
    List<String> values = TestBatches.values(answer.records().duplicate());
    String records = "nothing new";
    if (!values.isEmpty()) {
      long first = -1;
      long last = -1;
      for (RecordBatch batch : BatchIterator.strict(answer.records().duplicate())) {
        first = first < 0 ? batch.baseOffset() : first;
        last = batch.lastOffset();
      }
      records = String.join(" ", values) + " (offsets " + first + "-" + last + ")";
    }
    return records + ", leader's hw=" + answer.highWatermark();
  }

  private static String describe(ReplicaFetch.EpochPartitionResponse answer) {
    if (answer.error() != Errors.NONE) {
      return answer.error().toString();
    }
    return answer.endOffset().isUndefined()
        ? "unknown to it"
        : "epoch "
            + answer.endOffset().leaderEpoch()
            + " ends at offset "
            + answer.endOffset().endOffset();
  }
}
