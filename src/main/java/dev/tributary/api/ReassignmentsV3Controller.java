package dev.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tributary.auth.RequestContexts;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.PartitionOutcome;
import dev.tributary.server.AdminService;
import dev.tributary.server.MetadataCache;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST Proxy v3 partition reassignments (Confluent's {@code /reassignment} resources, KIP-455): the
 * lists of moves in progress, one partition's replicas with its adding and removing ones, and, as
 * Tributary's addition, {@code POST} to start (or retarget) a move and {@code DELETE} to cancel it.
 * A thin adapter over {@link AdminService}; the controller does the work ({@link
 * dev.tributary.metadata.ReassignmentControl}).
 */
@RestController
class ReassignmentsV3Controller {
  private final MetadataCache broker;
  private final AdminService admin;
  private final RequestContexts contexts;
  private final JsonMapper json;

  ReassignmentsV3Controller(
      MetadataCache broker, AdminService admin, RequestContexts contexts, JsonMapper json) {
    this.broker = broker;
    this.admin = admin;
    this.contexts = contexts;
    this.json = json;
  }

  /** A partition's reassignment: Confluent's {@code KafkaReassignment} plus the replica lists. */
  record Reassignment(
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") V3Resources.ResourceMetadata metadata,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("topic_name") String topicName,
      @JsonProperty("partition_id") int partitionId,
      @JsonProperty("in_progress") boolean inProgress,
      @JsonProperty("replica_ids") List<Integer> replicaIds,
      @JsonProperty("target_replica_ids") List<Integer> targetReplicaIds,
      @JsonProperty("adding_replicas") List<Integer> addingReplicas,
      @JsonProperty("removing_replicas") List<Integer> removingReplicas,
      @JsonProperty("isr_ids") List<Integer> isrIds,
      @JsonProperty("leader_id") int leaderId,
      @JsonProperty("replicas") V3Resources.Related replicas) {}

  @GetMapping("/v3/clusters/{clusterId}/topics/-/partitions/-/reassignment")
  ResponseEntity<V3Resources.ResourceList<Reassignment>> all(
      @PathVariable String clusterId, HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    return list(clusterPath() + "/topics/-/partitions/-/reassignment", null, http);
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/-/reassignment")
  ResponseEntity<V3Resources.ResourceList<Reassignment>> ofTopic(
      @PathVariable String clusterId, @PathVariable String topic, HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    if (broker.metadata().topic(topic).isEmpty()) {
      throw UnknownTopicOrPartitionException.unknownTopic(topic);
    }
    return list(topicPath(topic) + "/partitions/-/reassignment", Set.of(topic), http);
  }

  /** The partition's replicas and reassignment; empty adding and removing lists when none. */
  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}/reassignment")
  ResponseEntity<Reassignment> one(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable int partition,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    TopicPartition tp = partition(topic, partition);
    return ok(resource(base(), tp, admin.partitionReplicas(contexts.of(http), tp)));
  }

  /**
   * Moves the partition to {@code {"replicas": [ids]}}: 202 with the reassignment as committed (not
   * in progress any more when every target replica was already in sync). The move goes on in the
   * background; GET shows its progress.
   */
  @PostMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}/reassignment")
  CompletableFuture<ResponseEntity<Reassignment>> start(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable int partition,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    List<Integer> target = targetReplicas(ApiRequests.object(json, body));
    return alter(http, partition(topic, partition), Optional.of(target));
  }

  /** Cancels the partition's reassignment: its replicas go back to what they were (202). */
  @DeleteMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}/reassignment")
  CompletableFuture<ResponseEntity<Reassignment>> cancel(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable int partition,
      HttpServletRequest http) {
    ApiRequests.requireCluster(broker, clusterId);
    return alter(http, partition(topic, partition), Optional.empty());
  }

  private CompletableFuture<ResponseEntity<Reassignment>> alter(
      HttpServletRequest http, TopicPartition tp, Optional<List<Integer>> target) {
    var context = contexts.of(http);
    admin.partitionReplicas(context, tp); // an unknown topic or partition: 404 at once
    String base = base(); // the request's address, read on its thread: the answer comes on another
    return admin
        .alterPartitionReassignments(context, Map.of(tp, target))
        .thenApply(
            outcomes -> {
              PartitionOutcome outcome = outcomes.get(tp);
              if (outcome != null && outcome.error() != Errors.NONE) {
                throw outcome.error().exception(outcome.message());
              }
              return ResponseEntity.status(HttpStatus.ACCEPTED)
                  .contentType(MediaType.APPLICATION_JSON)
                  .body(resource(base, tp, admin.partitionReplicas(context, tp)));
            });
  }

  /** The partition named by a path, or 404 as for any partition that does not exist. */
  private TopicPartition partition(String topic, int partition) {
    if (partition < 0) {
      int count =
          broker
              .metadata()
              .topic(topic)
              .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic))
              .partitionCount();
      throw UnknownTopicOrPartitionException.unknownPartition(topic, partition, count);
    }
    return new TopicPartition(topic, partition);
  }

  private static List<Integer> targetReplicas(JsonNode request) {
    JsonNode replicas = request.get("replicas");
    if (replicas == null || !replicas.isArray() || replicas.isEmpty()) {
      throw RestException.badRequest(
          "\"replicas\" must be a non-empty list of broker ids, e.g. {\"replicas\": [2, 3, 4]}");
    }
    List<Integer> ids = new ArrayList<>();
    for (JsonNode id : replicas) {
      if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
        throw RestException.badRequest(
            "\"replicas\" must be a list of broker ids (non-negative integers); got " + id);
      }
      ids.add(id.intValue());
    }
    return ids;
  }

  private ResponseEntity<V3Resources.ResourceList<Reassignment>> list(
      String path, Set<String> topics, HttpServletRequest http) {
    String base = base();
    List<Reassignment> data =
        admin.listPartitionReassignments(contexts.of(http), topics).entrySet().stream()
            .map(e -> resource(base, e.getKey(), e.getValue()))
            .toList();
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaReassignmentList", new V3Resources.ListMetadata(base + path, null), data));
  }

  private Reassignment resource(String base, TopicPartition tp, PartitionImage p) {
    String path = topicPath(tp.topic()) + "/partitions/" + tp.partition();
    return new Reassignment(
        "KafkaReassignment",
        new V3Resources.ResourceMetadata(
            base + path + "/reassignment",
            "crn:///kafka="
                + broker.clusterId()
                + "/topic="
                + tp.topic()
                + "/partition="
                + tp.partition()),
        broker.clusterId(),
        tp.topic(),
        tp.partition(),
        p.isReassigning(),
        p.replicas(),
        p.targetReplicas(),
        p.addingReplicas(),
        p.removingReplicas(),
        p.isr(),
        p.leader(),
        new V3Resources.Related(base + path + "/replicas"));
  }

  private String clusterPath() {
    return "/v3/clusters/" + broker.clusterId();
  }

  private String topicPath(String topic) {
    return clusterPath() + "/topics/" + topic;
  }

  /** The address this request came to, which links start with. */
  private static String base() {
    return ServletUriComponentsBuilder.fromCurrentContextPath().toUriString();
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
