package dev.tributary.replication;

import dev.tributary.common.Time;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import dev.tributary.log.OffsetOutOfRangeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The leader's side of replica fetch for one leader {@link Partition}, in memory: calls it directly
 * and maps its exceptions to the protocol's errors, as {@link ReplicaManager} does (without the
 * broker-epoch check and the long poll, which ReplicaManagerReplicaFetchTest covers). For tests
 * that step a {@link ReplicaFetcher} by hand.
 */
final class InMemoryLeader implements LeaderEndpoint {
  private final Partition leader;
  private final Time time;

  /** Every epoch a follower asked about (OffsetsForLeaderEpoch), in order. */
  final List<Integer> askedEpochs = new ArrayList<>();

  /**
   * Runs once after the leader has answered and before the follower sees the answer: what can
   * happen while a response is on the wire (new metadata, an election).
   */
  Runnable beforeReply = () -> {};

  /** When set, every call fails as a refused connection would. */
  boolean down;

  InMemoryLeader(Partition leader, Time time) {
    this.leader = leader;
    this.time = time;
  }

  @Override
  public ReplicaFetch.Response fetch(int leaderId, ReplicaFetch.Request request)
      throws IOException {
    requireUp();
    List<ReplicaFetch.PartitionResponse> answers = new ArrayList<>();
    for (ReplicaFetch.PartitionRequest p : request.partitions()) {
      try {
        FetchPartitionData read =
            FollowerFetches.fetch(
                leader,
                request.replicaId(),
                request.brokerEpoch(),
                true,
                p.currentLeaderEpoch(),
                p.fetchOffset(),
                p.maxBytes(),
                time.milliseconds());
        answers.add(
            new ReplicaFetch.PartitionResponse(
                p.topicPartition(),
                Errors.NONE,
                read.highWatermark(),
                read.logStartOffset(),
                read.logEndOffset(),
                read.leaderEpoch(),
                read.records()));
      } catch (OffsetOutOfRangeException e) {
        answers.add(
            new ReplicaFetch.PartitionResponse(
                p.topicPartition(),
                Errors.OFFSET_OUT_OF_RANGE,
                leader.highWatermark(),
                leader.logStartOffset(),
                leader.logEndOffset(),
                leader.leaderEpoch(),
                ByteBuffer.allocate(0)));
      } catch (RuntimeException e) {
        answers.add(
            ReplicaFetch.PartitionResponse.error(p.topicPartition(), Errors.forException(e)));
      }
    }
    reply();
    return new ReplicaFetch.Response(Errors.NONE, answers);
  }

  @Override
  public ReplicaFetch.EpochResponse epochEndOffsets(int leaderId, ReplicaFetch.EpochRequest request)
      throws IOException {
    requireUp();
    List<ReplicaFetch.EpochPartitionResponse> answers = new ArrayList<>();
    for (ReplicaFetch.EpochPartitionRequest p : request.partitions()) {
      askedEpochs.add(p.leaderEpoch());
      try {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                p.topicPartition(),
                Errors.NONE,
                leader.endOffsetForEpoch(p.currentLeaderEpoch(), p.leaderEpoch()),
                leader.logStartOffset()));
      } catch (RuntimeException e) {
        answers.add(
            new ReplicaFetch.EpochPartitionResponse(
                p.topicPartition(), Errors.forException(e), EpochEndOffset.UNDEFINED, -1));
      }
    }
    reply();
    return new ReplicaFetch.EpochResponse(Errors.NONE, answers);
  }

  private void requireUp() throws IOException {
    if (down) {
      throw new IOException("connection refused");
    }
  }

  private void reply() {
    Runnable hook = beforeReply;
    beforeReply = () -> {};
    hook.run();
  }
}
