package dev.tributary.replication;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.log.EpochEndOffset;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The messages of replica fetch (Kafka's Fetch from a follower, and OffsetsForLeaderEpoch), as
 * plain values; their binary encoding is the transport's (see
 * docs/adr/0008-replica-fetch-and-truncation.md).
 */
public final class ReplicaFetch {
  private ReplicaFetch() {}

  /**
   * A follower's fetch for every partition it follows on one leader.
   *
   * @param replicaId the follower's broker id
   * @param brokerEpoch the follower's registration; the leader refuses another than the one in its
   *     metadata
   * @param maxWaitMs how long the leader may hold the request when no partition has data
   */
  public record Request(
      int replicaId,
      long brokerEpoch,
      int maxWaitMs,
      int maxBytes,
      List<PartitionRequest> partitions) {
    public Request {
      partitions = List.copyOf(partitions);
    }
  }

  /**
   * One partition of a fetch: from {@code fetchOffset} (= the follower's log end offset), in the
   * follower's epoch.
   */
  public record PartitionRequest(
      TopicPartition topicPartition, int currentLeaderEpoch, long fetchOffset, int maxBytes) {}

  public record Response(Errors error, List<PartitionResponse> partitions) {
    public Response {
      partitions = List.copyOf(partitions);
    }
  }

  /**
   * One partition's answer: the batches from the fetch offset as stored (empty on error or when
   * there is nothing new), and the leader's high watermark, log start and log end offsets, and
   * epoch.
   */
  public record PartitionResponse(
      TopicPartition topicPartition,
      Errors error,
      long highWatermark,
      long logStartOffset,
      long logEndOffset,
      int leaderEpoch,
      ByteBuffer records) {
    public static PartitionResponse error(TopicPartition tp, Errors error) {
      return new PartitionResponse(tp, error, -1, -1, -1, -1, ByteBuffer.allocate(0));
    }
  }

  /** OffsetsForLeaderEpoch: where does {@code leaderEpoch} end on the leader? */
  public record EpochRequest(
      int replicaId, long brokerEpoch, List<EpochPartitionRequest> partitions) {
    public EpochRequest {
      partitions = List.copyOf(partitions);
    }
  }

  public record EpochPartitionRequest(
      TopicPartition topicPartition, int currentLeaderEpoch, int leaderEpoch) {}

  public record EpochResponse(Errors error, List<EpochPartitionResponse> partitions) {
    public EpochResponse {
      partitions = List.copyOf(partitions);
    }
  }

  public record EpochPartitionResponse(
      TopicPartition topicPartition, Errors error, EpochEndOffset endOffset, long logStartOffset) {}
}
