package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.AccessGuard;
import dev.tributary.auth.RequestPrincipal;
import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.CoordinatorNotAvailableException;
import dev.tributary.group.ConsumerProtocol;
import dev.tributary.group.CoordinatorApi.GroupDescription;
import dev.tributary.group.CoordinatorApi.GroupListing;
import dev.tributary.group.CoordinatorApi.MemberDescription;
import dev.tributary.group.GroupState;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.GroupServices;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * REST Proxy v3's consumer-group admin views: the groups, one group, its consumers, its lag per
 * partition and a lag summary. Each answer is built from the group's coordinator (wherever it is)
 * and the partitions' leaders: {@code log_end_offset} is the offset a consumer can read up to (the
 * high watermark), as Kafka's ListOffsets and kafka-consumer-groups.sh report it.
 */
@RestController
class ConsumerGroupsV3Controller {
  private static final String GROUPS = "/v3/clusters/{clusterId}/consumer-groups";

  private final MetadataCache broker;
  private final AccessGuard access;
  private final GroupServices groups;

  ConsumerGroupsV3Controller(MetadataCache broker, GroupServices groups, AccessGuard access) {
    this.access = access;
    this.broker = broker;
    this.groups = groups;
  }

  @GetMapping(GROUPS)
  CompletableFuture<ResponseEntity<V3Resources.ResourceList<ConsumerGroup>>> listGroups(
      @PathVariable String clusterId, HttpServletRequest request) {
    requireCluster(clusterId);
    String principal = RequestPrincipal.of(request);
    String origin = origin();
    return groups
        .coordinators()
        .listGroups()
        .thenCompose(
            listing -> {
              List<CompletableFuture<GroupDescription>> described = new ArrayList<>();
              for (GroupListing g : listing) {
                if ((g.protocolType().isEmpty()
                        || g.protocolType().equals(ConsumerProtocol.PROTOCOL_TYPE))
                    && access.allows(
                        principal, AclOperation.READ, ResourceType.GROUP, g.groupId())) {
                  described.add(describe(g.groupId()).exceptionally(e -> null));
                }
              }
              return CompletableFuture.allOf(described.toArray(CompletableFuture[]::new))
                  .thenApply(
                      ignored ->
                          ok(
                              new V3Resources.ResourceList<>(
                                  "KafkaConsumerGroupList",
                                  list(origin, groupsPath()),
                                  described.stream()
                                      .map(CompletableFuture::join)
                                      .filter(d -> d != null && d.state() != GroupState.DEAD)
                                      .map(d -> toGroup(origin, d))
                                      .toList())));
            });
  }

  @GetMapping(GROUPS + "/{groupId}")
  CompletableFuture<ResponseEntity<ConsumerGroup>> group(
      @PathVariable String clusterId, @PathVariable String groupId) {
    requireCluster(clusterId);
    String origin = origin();
    return existing(groupId).thenApply(d -> ok(toGroup(origin, d)));
  }

  @GetMapping(GROUPS + "/{groupId}/consumers")
  CompletableFuture<ResponseEntity<V3Resources.ResourceList<Consumer>>> consumers(
      @PathVariable String clusterId, @PathVariable String groupId) {
    requireCluster(clusterId);
    String origin = origin();
    return existing(groupId)
        .thenApply(
            d -> {
              List<Consumer> out = new ArrayList<>();
              for (MemberDescription m : d.members()) {
                out.add(toConsumer(origin, d, m));
              }
              return ok(
                  new V3Resources.ResourceList<>(
                      "KafkaConsumerList", list(origin, groupPath(groupId) + "/consumers"), out));
            });
  }

  @GetMapping(GROUPS + "/{groupId}/consumers/{consumerId}")
  CompletableFuture<ResponseEntity<Consumer>> consumer(
      @PathVariable String clusterId,
      @PathVariable String groupId,
      @PathVariable String consumerId) {
    requireCluster(clusterId);
    String origin = origin();
    return existing(groupId)
        .thenApply(
            d ->
                d.members().stream()
                    .filter(m -> m.memberId().equals(consumerId))
                    .findFirst()
                    .map(m -> ok(toConsumer(origin, d, m)))
                    .orElseThrow(
                        () ->
                            RestException.notFound(
                                40409,
                                "Consumer '"
                                    + consumerId
                                    + "' is not a member of group '"
                                    + groupId
                                    + "'")));
  }

  @GetMapping(GROUPS + "/{groupId}/lags")
  CompletableFuture<ResponseEntity<V3Resources.ResourceList<ConsumerLag>>> lags(
      @PathVariable String clusterId, @PathVariable String groupId, HttpServletRequest request) {
    requireCluster(clusterId);
    String origin = origin();
    return lagsOf(origin, groupId, RequestPrincipal.of(request))
        .thenApply(
            lags ->
                ok(
                    new V3Resources.ResourceList<>(
                        "KafkaConsumerLagList", list(origin, groupPath(groupId) + "/lags"), lags)));
  }

  @GetMapping(GROUPS + "/{groupId}/lag-summary")
  CompletableFuture<ResponseEntity<LagSummary>> lagSummary(
      @PathVariable String clusterId, @PathVariable String groupId, HttpServletRequest request) {
    requireCluster(clusterId);
    String origin = origin();
    return lagsOf(origin, groupId, RequestPrincipal.of(request))
        .thenApply(
            lags -> {
              ConsumerLag max =
                  lags.stream()
                      .filter(l -> l.lag() != null)
                      .max(Comparator.comparingLong(ConsumerLag::lag))
                      .orElse(null);
              long total =
                  lags.stream().filter(l -> l.lag() != null).mapToLong(ConsumerLag::lag).sum();
              return ok(
                  new LagSummary(
                      "KafkaConsumerGroupLagSummary",
                      resource(
                          origin,
                          groupPath(groupId) + "/lag-summary",
                          "/consumer-group=" + groupId + "/lag-summary"),
                      broker.clusterId(),
                      groupId,
                      max == null ? null : max.consumerId(),
                      max == null ? null : max.clientId(),
                      max == null ? null : max.topicName(),
                      max == null ? null : max.partitionId(),
                      max == null ? 0 : max.lag(),
                      total));
            });
  }

  // ---------------------------------------------------------------------------------------------

  private CompletableFuture<GroupDescription> describe(String groupId) {
    return groups
        .coordinators()
        .describeGroup(groupId)
        .thenApply(
            r -> {
              CoordinatorNotAvailableException.requireAnswered(groupId, r.error());
              return r.group();
            });
  }

  /** The group, or 404 40408 if its coordinator does not know it. */
  private CompletableFuture<GroupDescription> existing(String groupId) {
    return describe(groupId)
        .thenApply(
            d -> {
              if (d.state() == GroupState.DEAD) {
                throw RestException.notFound(
                    40408, "Consumer group '" + groupId + "' does not exist");
              }
              return d;
            });
  }

  /**
   * One row per partition the group has committed an offset for or has assigned: committed offset,
   * the partition's high watermark, the difference, and the member holding it now.
   */
  /** The group's lag per partition, for the topics {@code principal} may read (as Kafka). */
  private CompletableFuture<List<ConsumerLag>> lagsOf(
      String origin, String groupId, String principal) {
    return existing(groupId)
        .thenCompose(
            d ->
                groups
                    .coordinators()
                    .fetchOffsets(groupId, null)
                    .thenCompose(
                        committed -> {
                          CoordinatorNotAvailableException.requireAnswered(
                              groupId, committed.error());
                          Map<TopicPartition, MemberDescription> owners = new LinkedHashMap<>();
                          for (MemberDescription m : d.members()) {
                            for (TopicPartition tp :
                                ConsumerProtocol.decodeAssignment(m.assignment())) {
                              owners.put(tp, m);
                            }
                          }
                          java.util.SortedSet<TopicPartition> partitions =
                              new java.util.TreeSet<>(
                                  Comparator.comparing(TopicPartition::topic)
                                      .thenComparingInt(TopicPartition::partition));
                          partitions.addAll(committed.offsets().keySet());
                          partitions.addAll(owners.keySet());
                          partitions.removeIf(
                              tp ->
                                  !access.allows(
                                      principal,
                                      AclOperation.READ,
                                      ResourceType.TOPIC,
                                      tp.topic()));
                          List<CompletableFuture<ConsumerLag>> rows = new ArrayList<>();
                          for (TopicPartition tp : partitions) {
                            OffsetAndMetadata o = committed.offsets().get(tp);
                            MemberDescription owner = owners.get(tp);
                            rows.add(
                                groups
                                    .reader()
                                    .offsets(tp)
                                    .handle(
                                        (offsets, failure) -> {
                                          Long end =
                                              failure == null ? offsets.highWatermark() : null;
                                          Long current = o == null ? null : o.offset();
                                          Long lag =
                                              end == null || current == null
                                                  ? null
                                                  : Math.max(0, end - current);
                                          return new ConsumerLag(
                                              "KafkaConsumerLag",
                                              resource(
                                                  origin,
                                                  groupPath(groupId)
                                                      + "/lags/"
                                                      + tp.topic()
                                                      + "/partitions/"
                                                      + tp.partition(),
                                                  "/consumer-group="
                                                      + groupId
                                                      + "/lag="
                                                      + tp.topic()
                                                      + "/partition="
                                                      + tp.partition()),
                                              broker.clusterId(),
                                              groupId,
                                              tp.topic(),
                                              tp.partition(),
                                              current,
                                              end,
                                              lag,
                                              owner == null ? "" : owner.memberId(),
                                              owner == null ? "" : owner.clientId());
                                        }));
                          }
                          return CompletableFuture.allOf(rows.toArray(CompletableFuture[]::new))
                              .thenApply(
                                  ignored -> rows.stream().map(CompletableFuture::join).toList());
                        }));
  }

  private ConsumerGroup toGroup(String origin, GroupDescription d) {
    String path = groupPath(d.groupId());
    int coordinator = groups.coordinatorOf(d.groupId());
    return new ConsumerGroup(
        "KafkaConsumerGroup",
        resource(origin, path, "/consumer-group=" + d.groupId()),
        broker.clusterId(),
        d.groupId(),
        d.members().isEmpty() && d.generationId() <= 0,
        d.protocolName(),
        d.state().kafkaName.toUpperCase(java.util.Locale.ROOT).replace("REBALANCE", "_REBALANCE"),
        d.generationId(),
        coordinator,
        new V3Resources.Related(origin + (clusterPath() + "/brokers/" + coordinator)),
        new V3Resources.Related(origin + (path + "/consumers")),
        new V3Resources.Related(origin + (path + "/lag-summary")));
  }

  private Consumer toConsumer(String origin, GroupDescription d, MemberDescription m) {
    String path = groupPath(d.groupId()) + "/consumers/" + m.memberId();
    List<Assignment> assignments = new ArrayList<>();
    for (TopicPartition tp : ConsumerProtocol.decodeAssignment(m.assignment())) {
      assignments.add(new Assignment(tp.topic(), tp.partition()));
    }
    return new Consumer(
        "KafkaConsumer",
        resource(origin, path, "/consumer-group=" + d.groupId() + "/consumer=" + m.memberId()),
        broker.clusterId(),
        d.groupId(),
        m.memberId(),
        m.groupInstanceId(),
        m.clientId(),
        m.clientHost(),
        assignments);
  }

  private void requireCluster(String clusterId) {
    ApiRequests.requireCluster(broker, clusterId);
  }

  private String clusterPath() {
    return "/v3/clusters/" + broker.clusterId();
  }

  private String groupsPath() {
    return clusterPath() + "/consumer-groups";
  }

  private String groupPath(String groupId) {
    return groupsPath() + "/" + groupId;
  }

  private V3Resources.ResourceMetadata resource(String origin, String path, String suffix) {
    return new V3Resources.ResourceMetadata(
        origin + path, "crn:///kafka=" + broker.clusterId() + suffix);
  }

  private static V3Resources.ListMetadata list(String origin, String path) {
    return new V3Resources.ListMetadata(origin + path, null);
  }

  /**
   * The scheme, host and port the request came in on, read on the request thread: links are built
   * in continuations that run after the request's thread has moved on.
   */
  private static String origin() {
    return ServletUriComponentsBuilder.fromCurrentContextPath().toUriString();
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }

  record ConsumerGroup(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("consumer_group_id") String consumerGroupId,
      @JsonProperty("is_simple") boolean isSimple,
      @JsonProperty("partition_assignor") String partitionAssignor,
      @JsonProperty("state") String state,
      @JsonProperty("generation_id") int generationId,
      @JsonProperty("coordinator_id") int coordinatorId,
      @JsonProperty("coordinator") V3Resources.Related coordinator,
      @JsonProperty("consumers") V3Resources.Related consumers,
      @JsonProperty("lag_summary") V3Resources.Related lagSummary) {}

  record Assignment(
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId) {}

  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Consumer(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("consumer_group_id") String consumerGroupId,
      @JsonProperty("consumer_id") String consumerId,
      @JsonProperty("instance_id") String instanceId,
      @JsonProperty("client_id") String clientId,
      @JsonProperty("host") String host,
      @JsonProperty("assignments") List<Assignment> assignments) {}

  record ConsumerLag(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("consumer_group_id") String consumerGroupId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("current_offset") Long currentOffset,
      @JsonProperty("log_end_offset") Long logEndOffset,
      @JsonProperty("lag") Long lag,
      @JsonProperty("consumer_id") String consumerId,
      @JsonProperty("client_id") String clientId) {}

  record LagSummary(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("consumer_group_id") String consumerGroupId,
      @JsonProperty("max_lag_consumer_id") String maxLagConsumerId,
      @JsonProperty("max_lag_client_id") String maxLagClientId,
      @JsonProperty("max_lag_topic_name") String maxLagTopicName,
      @JsonProperty("max_lag_partition_id") Integer maxLagPartitionId,
      @JsonProperty("max_lag") long maxLag,
      @JsonProperty("total_lag") long totalLag) {}
}
