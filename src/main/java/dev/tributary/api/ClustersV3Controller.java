package dev.tributary.api;

import dev.tributary.auth.AccessGuard;
import dev.tributary.auth.RequestContexts;
import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.NotLeaderOrFollowerException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.InvalidConfigException;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.PartitionStatus;
import dev.tributary.replication.ReplicaStatus;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ResourceType;
import dev.tributary.server.AdminService;
import dev.tributary.server.MetadataCache;
import dev.tributary.server.ReplicaStatusService;
import dev.tributary.transport.http.Forwarding;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * REST Proxy v3 admin: clusters, brokers, topics (create, list, describe, grow, delete), partitions
 * and topic configs. Every change goes through the controller, which validates it and commits
 * metadata records.
 */
@RestController
class ClustersV3Controller {
  private final MetadataCache broker;
  private final AdminService admin;
  private final ReplicaStatusService replicaStatus;
  private final RequestContexts contexts;
  private final JsonMapper json;
  private final LeaderProxy leaderProxy;
  private final AccessGuard access;

  ClustersV3Controller(
      MetadataCache broker,
      AdminService admin,
      ReplicaStatusService replicaStatus,
      RequestContexts contexts,
      JsonMapper json,
      LeaderProxy leaderProxy,
      AccessGuard access) {
    this.access = access;
    this.broker = broker;
    this.admin = admin;
    this.replicaStatus = replicaStatus;
    this.contexts = contexts;
    this.json = json;
    this.leaderProxy = leaderProxy;
  }

  @GetMapping("/v3/clusters")
  ResponseEntity<V3Resources.ResourceList<V3Resources.Cluster>> clusters() {
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaClusterList", list("/v3/clusters"), List.of(cluster())));
  }

  @GetMapping("/v3/clusters/{clusterId}")
  ResponseEntity<V3Resources.Cluster> cluster(@PathVariable String clusterId) {
    requireCluster(clusterId);
    return ok(cluster());
  }

  @GetMapping("/v3/clusters/{clusterId}/brokers")
  ResponseEntity<V3Resources.ResourceList<V3Resources.Broker>> brokers(
      @PathVariable String clusterId) {
    requireCluster(clusterId);
    List<V3Resources.Broker> brokers =
        broker.metadata().brokers().values().stream().map(this::brokerResource).toList();
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaBrokerList", list(clusterPath() + "/brokers"), brokers));
  }

  @GetMapping("/v3/clusters/{clusterId}/brokers/{brokerId}")
  ResponseEntity<V3Resources.Broker> broker(
      @PathVariable String clusterId, @PathVariable int brokerId) {
    requireCluster(clusterId);
    BrokerImage found = broker.metadata().brokers().get(brokerId);
    if (found == null) {
      throw RestException.notFound(
          40406, "Broker " + brokerId + " is not registered in this cluster");
    }
    return ok(brokerResource(found));
  }

  @GetMapping("/v3/clusters/{clusterId}/topics")
  ResponseEntity<V3Resources.ResourceList<V3Resources.Topic>> topics(
      @PathVariable String clusterId, HttpServletRequest http) {
    requireCluster(clusterId);
    List<V3Resources.Topic> topics =
        broker.metadata().topicsByName().values().stream()
            .filter(t -> access.allows(http, AclOperation.READ, ResourceType.TOPIC, t.name()))
            .map(this::topicResource)
            .toList();
    return ok(
        new V3Resources.ResourceList<>("KafkaTopicList", list(clusterPath() + "/topics"), topics));
  }

  /**
   * Creates a topic: {@code {"topic_name", "partitions_count"?, "replication_factor"?, "configs"?:
   * [{name, value}]}}.
   */
  @PostMapping("/v3/clusters/{clusterId}/topics")
  CompletableFuture<ResponseEntity<V3Resources.Topic>> createTopic(
      @PathVariable String clusterId,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    requireCluster(clusterId);
    JsonNode request = object(body);
    JsonNode name = request.get("topic_name");
    if (name == null || !name.isString()) {
      throw RestException.badRequest("\"topic_name\" is required and must be a string");
    }
    access.require(http, AclOperation.ADMIN, ResourceType.TOPIC, name.stringValue());
    int partitions = intField(request, "partitions_count", admin.config().numPartitions());
    int replicationFactor =
        intField(request, "replication_factor", admin.config().defaultReplicationFactor());
    Map<String, String> configs = new LinkedHashMap<>();
    JsonNode configList = request.get("configs");
    if (configList != null && !configList.isNull()) {
      if (!configList.isArray()) {
        throw RestException.badRequest(
            "\"configs\" must be a list of {\"name\": .., \"value\": ..}");
      }
      for (JsonNode config : configList) {
        if (!config.path("name").isString()
            || !(config.path("value").isString() || config.path("value").isNumber())) {
          throw RestException.badRequest(
              "each config must be {\"name\": string, \"value\": string}");
        }
        configs.put(config.get("name").stringValue(), config.get("value").asString());
      }
    }
    return admin
        .createTopic(contexts.of(http), name.stringValue(), partitions, replicationFactor, configs)
        .thenApply(
            RequestBound.withRequest(
                created -> {
                  V3Resources.Topic resource = topicResource(created);
                  return ResponseEntity.status(HttpStatus.CREATED)
                      .location(java.net.URI.create(resource.metadata().self()))
                      .contentType(MediaType.APPLICATION_JSON)
                      .body(resource);
                }));
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}")
  ResponseEntity<V3Resources.Topic> topic(
      @PathVariable String clusterId, @PathVariable String topic) {
    requireCluster(clusterId);
    return ok(topicResource(topicImage(topic)));
  }

  /**
   * Grows a topic: {@code {"partitions_count": N}} (Kafka's CreatePartitions; partitions can only
   * be added).
   */
  @PatchMapping("/v3/clusters/{clusterId}/topics/{topic}")
  CompletableFuture<ResponseEntity<V3Resources.Topic>> updateTopic(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    requireCluster(clusterId);
    JsonNode request = object(body);
    if (!request.has("partitions_count")) {
      throw RestException.badRequest("Only \"partitions_count\" can be changed");
    }
    int partitions = intField(request, "partitions_count", 0);
    return admin
        .createPartitions(contexts.of(http), topic, partitions)
        .thenApply(RequestBound.withRequest(grown -> ok(topicResource(grown))));
  }

  @DeleteMapping("/v3/clusters/{clusterId}/topics/{topic}")
  CompletableFuture<ResponseEntity<Void>> deleteTopic(
      @PathVariable String clusterId, @PathVariable String topic, HttpServletRequest http) {
    requireCluster(clusterId);
    return admin
        .deleteTopic(contexts.of(http), topic)
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  /**
   * Unregisters a decommissioned broker (Confluent's "delete broker"; Kafka's UnregisterBroker):
   * 204 once it is gone from the metadata; 404 if unknown; 400 while it runs or holds replicas.
   */
  @DeleteMapping("/v3/clusters/{clusterId}/brokers/{brokerId}")
  CompletableFuture<ResponseEntity<Void>> unregisterBroker(
      @PathVariable String clusterId, @PathVariable int brokerId, HttpServletRequest http) {
    requireCluster(clusterId);
    if (!broker.metadata().brokers().containsKey(brokerId)) {
      throw RestException.notFound(
          40406, "Broker " + brokerId + " is not registered in this cluster");
    }
    return admin
        .unregisterBroker(contexts.of(http), brokerId)
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions")
  ResponseEntity<V3Resources.ResourceList<V3Resources.Partition>> partitions(
      @PathVariable String clusterId, @PathVariable String topic) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    List<V3Resources.Partition> partitions =
        image.partitions().values().stream().map(p -> partitionResource(image, p)).toList();
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaPartitionList", list(topicPath(topic) + "/partitions"), partitions));
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}")
  ResponseEntity<V3Resources.Partition> partition(
      @PathVariable String clusterId, @PathVariable String topic, @PathVariable int partition) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    PartitionImage found = image.requirePartition(partition);
    return ok(partitionResource(image, found));
  }

  /**
   * Each replica with its progress as the partition's leader sees it (log end offset, lag, last
   * fetch and caught-up times, and the partition's high watermark). Only the leader knows these, so
   * another broker forwards the request there; when the leader cannot be asked (offline,
   * unreachable, or this is already a forwarded request) the answer has the metadata alone and
   * nulls for the progress.
   */
  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}/replicas")
  CompletableFuture<ResponseEntity<?>> replicas(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable int partition,
      HttpServletRequest request) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    PartitionImage found = image.requirePartition(partition);
    return withLeaderView(
        request,
        image,
        found,
        progress -> {
          String path = topicPath(topic) + "/partitions/" + partition + "/replicas";
          List<V3Resources.Replica> replicas =
              found.replicas().stream()
                  .map(b -> replicaResource(image, found, b, progress))
                  .toList();
          return ok(new V3Resources.ResourceList<>("KafkaReplicaList", list(path), replicas));
        });
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/partitions/{partition}/replicas/{brokerId}")
  CompletableFuture<ResponseEntity<?>> replica(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable int partition,
      @PathVariable int brokerId,
      HttpServletRequest request) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    PartitionImage found = image.requirePartition(partition);
    if (!found.replicas().contains(brokerId)) {
      throw RestException.notFound(
          40407, "Broker " + brokerId + " holds no replica of " + topic + "-" + partition);
    }
    return withLeaderView(
        request, image, found, progress -> ok(replicaResource(image, found, brokerId, progress)));
  }

  /**
   * Answers from this broker if it leads the partition, else relays the leader's answer (or falls
   * back).
   */
  private CompletableFuture<ResponseEntity<?>> withLeaderView(
      HttpServletRequest request,
      TopicImage image,
      PartitionImage found,
      java.util.function.Function<ReplicaProgress, ResponseEntity<?>> answer) {
    TopicPartition tp = new TopicPartition(image.name(), found.partition());
    Optional<PartitionStatus> local = replicaStatus.ledHere(tp);
    if (local.isPresent()) {
      PartitionStatus leader = local.get();
      return CompletableFuture.completedFuture(
          answer.apply(new ReplicaProgress(leader.highWatermark(), leader.replicaStatuses())));
    }
    ResponseEntity<?> fallback = answer.apply(ReplicaProgress.UNKNOWN);
    if (found.leader() < 0 || request.getHeader(Forwarding.FORWARDED_HEADER) != null) {
      return CompletableFuture.completedFuture(fallback);
    }
    return leaderProxy
        .forward(
            request,
            new NotLeaderOrFollowerException("not the leader", OptionalInt.of(found.leader())))
        .<ResponseEntity<?>>thenApply(
            relayed -> relayed.getStatusCode().is2xxSuccessful() ? relayed : fallback)
        .exceptionally(failure -> fallback);
  }

  /** What the leader knows of its replicas; {@link #UNKNOWN} when this broker could not ask it. */
  private record ReplicaProgress(Long highWatermark, List<ReplicaStatus> statuses) {
    static final ReplicaProgress UNKNOWN = new ReplicaProgress(null, List.of());

    Optional<ReplicaStatus> of(int brokerId) {
      return statuses.stream().filter(s -> s.brokerId() == brokerId).findFirst();
    }
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/configs")
  ResponseEntity<V3Resources.ResourceList<V3Resources.TopicConfig>> configs(
      @PathVariable String clusterId, @PathVariable String topic) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    List<V3Resources.TopicConfig> configs = new ArrayList<>();
    LogConfig.fromMap(image.configs())
        .toMap()
        .forEach((name, value) -> configs.add(configResource(image, name, value)));
    return ok(
        new V3Resources.ResourceList<>(
            "KafkaTopicConfigList", list(topicPath(topic) + "/configs"), configs));
  }

  @GetMapping("/v3/clusters/{clusterId}/topics/{topic}/configs/{name}")
  ResponseEntity<V3Resources.TopicConfig> config(
      @PathVariable String clusterId, @PathVariable String topic, @PathVariable String name) {
    requireCluster(clusterId);
    TopicImage image = topicImage(topic);
    String value = LogConfig.fromMap(image.configs()).toMap().get(name);
    if (value == null) {
      throw RestException.notFound(40405, "Topic config '" + name + "' does not exist");
    }
    return ok(configResource(image, name, value));
  }

  /** Sets one config: {@code {"value": "..."}}. */
  @PutMapping("/v3/clusters/{clusterId}/topics/{topic}/configs/{name}")
  CompletableFuture<ResponseEntity<Void>> setConfig(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable String name,
      @RequestBody(required = false) byte[] body,
      HttpServletRequest http) {
    requireCluster(clusterId);
    JsonNode value = object(body).get("value");
    if (value == null || !(value.isString() || value.isNumber())) {
      throw RestException.badRequest("The body must be {\"value\": \"...\"}");
    }
    return admin
        .alterConfig(contexts.of(http), topic, name, value.asString())
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  /** Resets one config to its default. */
  @DeleteMapping("/v3/clusters/{clusterId}/topics/{topic}/configs/{name}")
  CompletableFuture<ResponseEntity<Void>> resetConfig(
      @PathVariable String clusterId,
      @PathVariable String topic,
      @PathVariable String name,
      HttpServletRequest http) {
    requireCluster(clusterId);
    if (!LogConfig.names().contains(name)) {
      throw new InvalidConfigException("Unknown topic config '" + name + "'");
    }
    return admin
        .alterConfig(contexts.of(http), topic, name, null)
        .thenApply(done -> ResponseEntity.noContent().<Void>build());
  }

  private V3Resources.Cluster cluster() {
    String path = clusterPath();
    int controllerId = broker.activeControllerId();
    return new V3Resources.Cluster(
        "KafkaCluster",
        resource(path, ""),
        broker.clusterId(),
        controllerId,
        broker.controllerEpoch(),
        controllerId < 0 ? null : new V3Resources.Related(url(path + "/brokers/" + controllerId)),
        new V3Resources.Related(url(path + "/brokers")),
        new V3Resources.Related(url(path + "/topics")));
  }

  private V3Resources.Broker brokerResource(BrokerImage b) {
    return new V3Resources.Broker(
        "KafkaBroker",
        resource(clusterPath() + "/brokers/" + b.brokerId(), "/broker=" + b.brokerId()),
        broker.clusterId(),
        b.brokerId(),
        b.host(),
        b.port(),
        b.rack().orElse(null),
        b.fenced() ? "fenced" : "alive",
        b.incarnationId().toString(),
        b.brokerEpoch(),
        b.listeners().stream()
            .map(
                l ->
                    new V3Resources.Listener(
                        l.name(), l.host(), l.port(), l.securityProtocol().name()))
            .toList());
  }

  private V3Resources.Topic topicResource(TopicImage t) {
    String path = topicPath(t.name());
    return new V3Resources.Topic(
        "KafkaTopic",
        resource(path, "/topic=" + t.name()),
        broker.clusterId(),
        t.name(),
        t.topicId().toString(),
        false,
        t.replicationFactor(),
        t.partitionCount(),
        new V3Resources.Related(url(path + "/partitions")),
        new V3Resources.Related(url(path + "/configs")));
  }

  private V3Resources.Partition partitionResource(TopicImage t, PartitionImage p) {
    String path = topicPath(t.name()) + "/partitions/" + p.partition();
    return new V3Resources.Partition(
        "KafkaPartition",
        resource(path, "/topic=" + t.name() + "/partition=" + p.partition()),
        broker.clusterId(),
        t.name(),
        p.partition(),
        p.leader(),
        p.leaderEpoch(),
        p.replicas(),
        p.isr(),
        p.leader() < 0 ? null : new V3Resources.Related(url(path + "/replicas/" + p.leader())),
        new V3Resources.Related(url(path + "/replicas")));
  }

  private V3Resources.Replica replicaResource(
      TopicImage t, PartitionImage p, int brokerId, ReplicaProgress progress) {
    String path = topicPath(t.name()) + "/partitions/" + p.partition() + "/replicas/" + brokerId;
    Optional<ReplicaStatus> status = progress.of(brokerId);
    return new V3Resources.Replica(
        "KafkaReplica",
        resource(
            path, "/topic=" + t.name() + "/partition=" + p.partition() + "/replica=" + brokerId),
        broker.clusterId(),
        t.name(),
        p.partition(),
        brokerId,
        brokerId == p.leader(),
        p.isr().contains(brokerId),
        status.map(ReplicaStatus::logEndOffset).filter(o -> o >= 0).orElse(null),
        progress.highWatermark(),
        status.map(ReplicaStatus::lag).filter(l -> l >= 0).orElse(null),
        status.map(ReplicaStatus::lastFetchMs).filter(ms -> ms >= 0).orElse(null),
        status.map(ReplicaStatus::lastCaughtUpMs).filter(ms -> ms > 0).orElse(null),
        new V3Resources.Related(url(clusterPath() + "/brokers/" + brokerId)));
  }

  private V3Resources.TopicConfig configResource(TopicImage t, String name, String value) {
    boolean isDefault = !t.configs().containsKey(name);
    return new V3Resources.TopicConfig(
        "KafkaTopicConfig",
        resource(
            topicPath(t.name()) + "/configs/" + name, "/topic=" + t.name() + "/config=" + name),
        broker.clusterId(),
        t.name(),
        name,
        value,
        isDefault,
        false,
        false,
        isDefault ? "DEFAULT_CONFIG" : "DYNAMIC_TOPIC_CONFIG");
  }

  private TopicImage topicImage(String topic) {
    return broker
        .metadata()
        .topic(topic)
        .orElseThrow(() -> UnknownTopicOrPartitionException.unknownTopic(topic));
  }

  private void requireCluster(String clusterId) {
    ApiRequests.requireCluster(broker, clusterId);
  }

  private JsonNode object(byte[] body) {
    return ApiRequests.object(json, body);
  }

  private static int intField(JsonNode request, String field, int fallback) {
    JsonNode node = request.get(field);
    if (node == null || node.isNull()) {
      return fallback;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw RestException.badRequest("\"" + field + "\" must be an integer");
    }
    return node.intValue();
  }

  private String clusterPath() {
    return "/v3/clusters/" + broker.clusterId();
  }

  private String topicPath(String topic) {
    return clusterPath() + "/topics/" + topic;
  }

  private V3Resources.ResourceMetadata resource(String path, String resourceSuffix) {
    return new V3Resources.ResourceMetadata(
        url(path), "crn:///kafka=" + broker.clusterId() + resourceSuffix);
  }

  private static V3Resources.ListMetadata list(String path) {
    return new V3Resources.ListMetadata(url(path), null);
  }

  private static String url(String path) {
    return ServletUriComponentsBuilder.fromCurrentContextPath().path(path).toUriString();
  }

  private static <T> ResponseEntity<T> ok(T body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
