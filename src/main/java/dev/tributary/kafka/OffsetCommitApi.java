package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit (v2–10; v10 names topics by id) on this broker's coordinator, the offsets the REST
 * consumers commit too. As Kafka: without READ on the group every partition is
 * GROUP_AUTHORIZATION_FAILED; a topic the principal may not read is TOPIC_AUTHORIZATION_FAILED, one
 * that does not exist UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID by id), metadata longer than
 * {@code offset.metadata.max.bytes} OFFSET_METADATA_TOO_LARGE, each for its own partitions only;
 * the rest are committed together, with the coordinator's answer (the member's generation check, or
 * the write's outcome) for each. Generation -1 with no member id commits for a consumer outside the
 * group's membership, accepted while the group has no members. Committed with the broker's time, as
 * Kafka's coordinator stamps them; v2–4's retention time is ignored (offsets expire with their
 * empty group, KIP-211). A negative offset is OFFSET_OUT_OF_RANGE: no offset is below 0.
 */
final class OffsetCommitApi implements ApiHandler {
  private final GroupBackend groups;

  OffsetCommitApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.OFFSET_COMMIT;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 10;
  }

  /** One partition of the request, and what became of it. */
  private record Partition(Uuid topicId, String topic, int partition, Errors refused) {}

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    OffsetCommitRequestData data = ((OffsetCommitRequest) request).data();
    short version = context.apiVersion();
    boolean byId = OffsetCommitResponse.useTopicIds(version);
    Errors groupRefusal = null;
    GroupCoordinator coordinator = groups.local();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
      groupRefusal = Errors.GROUP_AUTHORIZATION_FAILED;
    } else if (coordinator == null) {
      groupRefusal = Errors.COORDINATOR_NOT_AVAILABLE;
    }
    MetadataImage image = groups.metadata().get();
    long nowMs = groups.time().milliseconds();
    List<Partition> partitions = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> commits = new LinkedHashMap<>();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : data.topics()) {
      String name = byId ? nameOf(image, t.topicId()) : t.name();
      Errors topicRefusal = groupRefusal;
      if (topicRefusal == null) {
        topicRefusal = topicError(context, image, name, byId);
      }
      for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
        Errors refused = topicRefusal;
        String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
        if (refused == null && metadata.length() > coordinator.config().offsetMetadataMaxBytes()) {
          refused = Errors.OFFSET_METADATA_TOO_LARGE;
        } else if (refused == null && p.committedOffset() < 0) {
          refused = Errors.OFFSET_OUT_OF_RANGE;
        }
        partitions.add(new Partition(t.topicId(), t.name(), p.partitionIndex(), refused));
        if (refused == null) {
          commits.put(
              new TopicPartition(name, p.partitionIndex()),
              new OffsetAndMetadata(
                  p.committedOffset(),
                  version >= 6 ? p.committedLeaderEpoch() : -1,
                  metadata,
                  nowMs));
        }
      }
    }
    CompletableFuture<GroupError> committed =
        commits.isEmpty()
            ? CompletableFuture.completedFuture(GroupError.NONE)
            : coordinator.commitOffsets(
                data.groupId(),
                data.memberId(),
                version >= 7 ? data.groupInstanceId() : null,
                data.generationIdOrMemberEpoch(),
                commits);
    return committed.thenApply(error -> response(partitions, GroupBackend.error(error), byId));
  }

  private static String nameOf(MetadataImage image, Uuid topicId) {
    TopicImage topic = TopicIds.find(image, topicId);
    return topic == null ? null : topic.name();
  }

  /** Why this topic's partitions cannot be committed, or null if they can. */
  private Errors topicError(
      KafkaRequestContext context, MetadataImage image, String name, boolean byId) {
    if (name == null) {
      return byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (!groups.allows(context, AclOperation.READ, ResourceType.TOPIC, name)) {
      return Errors.TOPIC_AUTHORIZATION_FAILED;
    }
    return image.topic(name).isPresent() ? null : Errors.UNKNOWN_TOPIC_OR_PARTITION;
  }

  private static OffsetCommitResponse response(
      List<Partition> partitions, Errors committed, boolean byId) {
    OffsetCommitResponse.Builder builder = OffsetCommitResponse.newBuilder(byId);
    for (Partition p : partitions) {
      builder.addPartition(
          p.topicId(), p.topic(), p.partition(), p.refused() != null ? p.refused() : committed);
    }
    return builder.build();
  }
}
