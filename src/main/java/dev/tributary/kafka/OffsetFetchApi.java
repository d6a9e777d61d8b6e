package dev.tributary.kafka;

import dev.tributary.common.TopicPartition;
import dev.tributary.group.CoordinatorApi.OffsetFetchResult;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * OffsetFetch (v1–10; v8+ batch groups, v10 names topics by id) from this broker's coordinator: the
 * same committed offsets REST consumers see. A partition without a committed offset answers offset
 * -1 with no error. As Kafka: without READ on a group it is GROUP_AUTHORIZATION_FAILED (below v2,
 * which has no group-level error, on each partition asked for); a named topic the principal may not
 * read is TOPIC_AUTHORIZATION_FAILED, and asking for all offsets leaves such topics out; an unknown
 * topic id is UNKNOWN_TOPIC_ID. With no transactions there is never an unstable offset, so {@code
 * require_stable} changes nothing; a classic group's fetch carries no member epoch to check.
 */
final class OffsetFetchApi implements ApiHandler {
  private final GroupBackend groups;

  OffsetFetchApi(GroupBackend groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys apiKey() {
    return ApiKeys.OFFSET_FETCH;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 10;
  }

  @Override
  public CompletableFuture<AbstractResponse> handle(
      KafkaRequestContext context, AbstractRequest request) {
    short version = context.apiVersion();
    MetadataImage image = groups.metadata().get();
    List<CompletableFuture<OffsetFetchResponseGroup>> answers = new ArrayList<>();
    for (OffsetFetchRequestGroup group : ((OffsetFetchRequest) request).groups()) {
      answers.add(fetch(context, image, group, version));
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored ->
                new OffsetFetchResponse.Builder(
                        answers.stream().map(CompletableFuture::join).toList())
                    .build(version));
  }

  /** One asked-for topic: its name (null if its id is unknown) and the partitions asked for. */
  private record Wanted(String name, Uuid topicId, List<Integer> partitions, Errors refused) {}

  private CompletableFuture<OffsetFetchResponseGroup> fetch(
      KafkaRequestContext context, MetadataImage image, OffsetFetchRequestGroup group, short v) {
    boolean byId = OffsetFetchRequest.useTopicIds(v);
    List<Wanted> wanted = null;
    if (group.topics() != null) {
      wanted = new ArrayList<>();
      for (OffsetFetchRequestTopics t : group.topics()) {
        String name = byId ? nameOf(image, t.topicId()) : t.name();
        Errors refused =
            name == null
                ? Errors.UNKNOWN_TOPIC_ID
                : groups.allows(context, AclOperation.READ, ResourceType.TOPIC, name)
                    ? null
                    : Errors.TOPIC_AUTHORIZATION_FAILED;
        wanted.add(new Wanted(name, t.topicId(), t.partitionIndexes(), refused));
      }
    }
    Errors refused = null;
    GroupCoordinator coordinator = groups.local();
    if (!groups.allows(context, AclOperation.READ, ResourceType.GROUP, group.groupId())) {
      refused = Errors.GROUP_AUTHORIZATION_FAILED;
    } else if (coordinator == null) {
      refused = Errors.COORDINATOR_NOT_AVAILABLE;
    }
    if (refused != null) {
      return CompletableFuture.completedFuture(groupError(group.groupId(), wanted, refused, v));
    }
    List<TopicPartition> asked = null;
    if (wanted != null) {
      asked = new ArrayList<>();
      for (Wanted w : wanted) {
        if (w.refused() == null) {
          for (int p : w.partitions()) {
            asked.add(new TopicPartition(w.name(), p));
          }
        }
      }
    }
    List<Wanted> named = wanted;
    return coordinator
        .fetchOffsets(group.groupId(), asked)
        .thenApply(
            result ->
                result.error() != GroupError.NONE
                    ? groupError(group.groupId(), named, GroupBackend.error(result.error()), v)
                    : named != null
                        ? answer(group.groupId(), named, result, byId)
                        : all(context, image, group.groupId(), result, byId));
  }

  /** The offsets of the topics asked for, in request order. */
  private static OffsetFetchResponseGroup answer(
      String groupId, List<Wanted> wanted, OffsetFetchResult result, boolean byId) {
    OffsetFetchResponseGroup out = new OffsetFetchResponseGroup().setGroupId(groupId);
    for (Wanted w : wanted) {
      OffsetFetchResponseTopics topic = topic(w.name(), w.topicId(), byId);
      for (int p : w.partitions()) {
        OffsetAndMetadata o =
            w.refused() == null ? result.offsets().get(new TopicPartition(w.name(), p)) : null;
        topic.partitions().add(partition(p, o, w.refused() == null ? Errors.NONE : w.refused()));
      }
      out.topics().add(topic);
    }
    return out;
  }

  /** Every committed offset of the group, of the topics the principal may read. */
  private OffsetFetchResponseGroup all(
      KafkaRequestContext context,
      MetadataImage image,
      String groupId,
      OffsetFetchResult result,
      boolean byId) {
    Map<String, Map<Integer, OffsetAndMetadata>> byTopic = new TreeMap<>();
    result
        .offsets()
        .forEach(
            (tp, o) ->
                byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), o));
    OffsetFetchResponseGroup out = new OffsetFetchResponseGroup().setGroupId(groupId);
    byTopic.forEach(
        (name, offsets) -> {
          TopicImage known = image.topic(name).orElse(null);
          if (!groups.allows(context, AclOperation.READ, ResourceType.TOPIC, name)
              || (byId && known == null)) {
            return; // not the principal's to see; or, by id, a topic that no longer exists
          }
          OffsetFetchResponseTopics topic =
              topic(name, known == null ? Uuid.ZERO_UUID : TopicIds.toKafka(known.topicId()), byId);
          offsets.forEach((p, o) -> topic.partitions().add(partition(p, o, Errors.NONE)));
          out.topics().add(topic);
        });
    return out;
  }

  /**
   * A group-level refusal; below v2 (no group-level error) it goes on every partition asked for.
   */
  private static OffsetFetchResponseGroup groupError(
      String groupId, List<Wanted> wanted, Errors error, short version) {
    OffsetFetchResponseGroup out = new OffsetFetchResponseGroup().setGroupId(groupId);
    if (version >= 2) {
      return out.setErrorCode(error.code());
    }
    for (Wanted w : wanted) {
      OffsetFetchResponseTopics topic = topic(w.name(), w.topicId(), false);
      for (int p : w.partitions()) {
        topic.partitions().add(partition(p, null, error));
      }
      out.topics().add(topic);
    }
    return out;
  }

  private static OffsetFetchResponseTopics topic(String name, Uuid topicId, boolean byId) {
    return byId
        ? new OffsetFetchResponseTopics().setTopicId(topicId)
        : new OffsetFetchResponseTopics().setName(name);
  }

  private static OffsetFetchResponsePartitions partition(
      int partition, OffsetAndMetadata offset, Errors error) {
    return new OffsetFetchResponsePartitions()
        .setPartitionIndex(partition)
        .setCommittedOffset(offset == null ? -1 : offset.offset())
        .setCommittedLeaderEpoch(offset == null ? -1 : offset.leaderEpoch())
        .setMetadata(offset == null ? "" : offset.metadata())
        .setErrorCode(error.code());
  }

  private static String nameOf(MetadataImage image, Uuid topicId) {
    TopicImage topic = TopicIds.find(image, topicId);
    return topic == null ? null : topic.name();
  }
}
