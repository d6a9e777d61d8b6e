package dev.tributary.transport.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.common.TopicPartition;
import dev.tributary.server.BrokerLoadReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The JSON of {@value InternalApi#BROKER_LOAD}: a broker's {@link BrokerLoadReport}, one entry per
 * partition it hosts or leads, by topic then partition:
 *
 * <pre>
 * {"broker_id": 2, "partitions": [
 *   {"topic_name": "orders", "partition_id": 0, "size_bytes": 1048576, "bytes_in_per_sec": 5120.0},
 *   {"topic_name": "orders", "partition_id": 1, "size_bytes": 524288}]}
 * </pre>
 *
 * {@code bytes_in_per_sec} only where the broker leads the partition.
 */
public final class BrokerLoadWire {
  private BrokerLoadWire() {}

  public record Answer(
      @JsonProperty("broker_id") int brokerId,
      @JsonProperty("partitions") List<PartitionLoad> partitions) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record PartitionLoad(
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("size_bytes") Long sizeBytes,
      @JsonProperty("bytes_in_per_sec") Double bytesInPerSec) {}

  public static Answer answer(BrokerLoadReport report) {
    TreeSet<TopicPartition> partitions =
        new TreeSet<>(
            Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
    partitions.addAll(report.sizeBytes().keySet());
    partitions.addAll(report.bytesInPerSec().keySet());
    List<PartitionLoad> loads = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      loads.add(
          new PartitionLoad(
              tp.topic(),
              tp.partition(),
              report.sizeBytes().get(tp),
              report.bytesInPerSec().get(tp)));
    }
    return new Answer(report.brokerId(), loads);
  }

  /**
   * The report an answer carries.
   *
   * @throws IllegalArgumentException for an answer that is not one (a missing name, a negative
   *     figure)
   */
  public static BrokerLoadReport report(Answer answer) {
    Map<TopicPartition, Long> sizes = new HashMap<>();
    Map<TopicPartition, Double> rates = new HashMap<>();
    for (PartitionLoad p :
        answer.partitions() == null ? List.<PartitionLoad>of() : answer.partitions()) {
      if (p == null || p.topicName() == null || p.partitionId() < 0) {
        throw new IllegalArgumentException("not a partition's load: " + p);
      }
      TopicPartition tp = new TopicPartition(p.topicName(), p.partitionId());
      if (p.sizeBytes() != null) {
        sizes.put(tp, p.sizeBytes());
      }
      if (p.bytesInPerSec() != null) {
        rates.put(tp, p.bytesInPerSec());
      }
    }
    return new BrokerLoadReport(answer.brokerId(), sizes, rates);
  }
}
