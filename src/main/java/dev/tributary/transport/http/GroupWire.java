package dev.tributary.transport.http;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The internal group API's JSON bodies, shared by the client ({@link HttpGroupTransport}) and the
 * broker's internal endpoints. Join, sync, describe and list travel as the coordinator's own
 * records (Jackson maps records, enums and byte arrays, base64, as they are); these are the calls
 * whose Java shape has no direct JSON form (maps keyed by partition) or is several arguments.
 */
public final class GroupWire {
  public static final String PREFIX = "/internal/v1/groups";
  public static final String JOIN = PREFIX + "/join";
  public static final String SYNC = PREFIX + "/sync";
  public static final String HEARTBEAT = PREFIX + "/heartbeat";
  public static final String LEAVE = PREFIX + "/leave";
  public static final String COMMIT = PREFIX + "/commit";
  public static final String FETCH_OFFSETS = PREFIX + "/fetch-offsets";
  public static final String DESCRIBE = PREFIX + "/describe";
  public static final String LIST = PREFIX + "/list";

  /** Consumer reads from this broker's own leaders: raw batches, the offsets in headers. */
  public static final String CONSUMER_FETCH = "/internal/v1/consumer/fetch";

  public static final String CONSUMER_OFFSETS = "/internal/v1/consumer/offsets";
  public static final String HIGH_WATERMARK_HEADER = "X-Tributary-High-Watermark";
  public static final String LOG_START_OFFSET_HEADER = "X-Tributary-Log-Start-Offset";

  private GroupWire() {}

  public record MemberCall(String groupId, String memberId, int generationId, String reason) {}

  public record GroupCall(String groupId) {}

  public record ErrorAnswer(GroupError error) {}

  public record Offset(
      String topic,
      int partition,
      long offset,
      int leaderEpoch,
      String metadata,
      long commitTimestampMs) {}

  public record Partition(String topic, int partition) {}

  public record CommitCall(
      String groupId, String memberId, int generationId, List<Offset> offsets) {}

  /** {@code partitions} null: every partition the group has offsets for. */
  public record FetchOffsetsCall(String groupId, List<Partition> partitions) {}

  public record FetchOffsetsAnswer(GroupError error, List<Offset> offsets) {}

  public record PartitionOffsets(long logStartOffset, long highWatermark) {}

  public static List<Offset> toWire(Map<TopicPartition, OffsetAndMetadata> offsets) {
    List<Offset> out = new ArrayList<>(offsets.size());
    offsets.forEach(
        (tp, o) ->
            out.add(
                new Offset(
                    tp.topic(),
                    tp.partition(),
                    o.offset(),
                    o.leaderEpoch(),
                    o.metadata(),
                    o.commitTimestampMs())));
    return out;
  }

  public static Map<TopicPartition, OffsetAndMetadata> fromWire(List<Offset> offsets) {
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    for (Offset o : offsets == null ? List.<Offset>of() : offsets) {
      out.put(
          new TopicPartition(o.topic(), o.partition()),
          new OffsetAndMetadata(o.offset(), o.leaderEpoch(), o.metadata(), o.commitTimestampMs()));
    }
    return out;
  }

  public static List<Partition> partitionsToWire(List<TopicPartition> partitions) {
    return partitions == null
        ? null
        : partitions.stream().map(tp -> new Partition(tp.topic(), tp.partition())).toList();
  }

  public static List<TopicPartition> partitionsFromWire(List<Partition> partitions) {
    return partitions == null
        ? null
        : partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
  }
}
