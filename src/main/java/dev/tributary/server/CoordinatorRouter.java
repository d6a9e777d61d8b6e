package dev.tributary.server;

import dev.tributary.common.TopicPartition;
import dev.tributary.common.errors.Errors;
import dev.tributary.common.errors.TopicExistsException;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.group.GroupError;
import dev.tributary.group.OffsetAndMetadata;
import dev.tributary.log.LogConfig;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.PartitionImage;
import dev.tributary.metadata.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's FindCoordinator, folded into every call: sends each group call to the broker that leads
 * the group's partition of {@code __consumer_offsets} (this broker's own coordinator, or another's
 * over {@link GroupTransport}), creating the topic on first use. Answers COORDINATOR_NOT_AVAILABLE
 * while the partition has no leader or the topic is being created, and when the coordinator cannot
 * be reached: the caller retries, as a Kafka client does after rediscovering its coordinator.
 */
final class CoordinatorRouter implements CoordinatorApi {
  private static final Logger logger = LoggerFactory.getLogger(CoordinatorRouter.class);

  private final RunningBroker broker;
  private final BrokerConfig brokerConfig;
  private final GroupCoordinatorConfig config;
  private final Supplier<GroupCoordinator> local;
  private final GroupTransport transport;
  private final AdminService admin;
  private final IntFunction<Optional<ControllerChannel.Endpoint>> endpoints;
  private final AtomicBoolean creating = new AtomicBoolean();

  /**
   * @param local this broker's own coordinator, or null before it exists
   * @param endpoints where each broker serves
   */
  CoordinatorRouter(
      RunningBroker broker,
      BrokerConfig brokerConfig,
      GroupCoordinatorConfig config,
      Supplier<GroupCoordinator> local,
      GroupTransport transport,
      AdminService admin,
      IntFunction<Optional<ControllerChannel.Endpoint>> endpoints) {
    this.broker = broker;
    this.brokerConfig = brokerConfig;
    this.config = config;
    this.local = local;
    this.transport = transport;
    this.admin = admin;
    this.endpoints = endpoints;
  }

  /**
   * The coordinator for {@code groupId}, or empty while it has none (creating the topic if needed).
   */
  private Optional<CoordinatorApi> route(String groupId) {
    MetadataImage image = broker.metadata();
    Optional<TopicImage> topic = image.topic(GroupCoordinatorConfig.OFFSETS_TOPIC);
    if (topic.isEmpty()) {
      ensureOffsetsTopic(image);
      return Optional.empty();
    }
    PartitionImage placement = topic.get().partitions().get(config.partitionFor(groupId));
    if (placement == null || placement.leader() == -1) {
      return Optional.empty();
    }
    if (placement.leader() == broker.brokerId()) {
      return Optional.ofNullable(local.get());
    }
    return endpoints.apply(placement.leader()).map(transport::coordinatorAt);
  }

  /**
   * Kafka's FindCoordinator: which broker coordinates {@code groupId} now, or -1 while none does;
   * creates {@code __consumer_offsets} (in the background) if it does not exist yet.
   */
  int findCoordinator(String groupId) {
    MetadataImage image = broker.metadata();
    if (image.topic(GroupCoordinatorConfig.OFFSETS_TOPIC).isEmpty()) {
      ensureOffsetsTopic(image);
      return -1;
    }
    return coordinatorOf(groupId);
  }

  /** Which broker coordinates {@code groupId} now, or -1. */
  int coordinatorOf(String groupId) {
    return broker
        .metadata()
        .topic(GroupCoordinatorConfig.OFFSETS_TOPIC)
        .map(t -> t.partitions().get(config.partitionFor(groupId)))
        .map(PartitionImage::leader)
        .orElse(-1);
  }

  /**
   * Creates {@code __consumer_offsets} in the background: compacted, replication factor 3 where
   * there are 3 brokers, {@code min.insync.replicas} 2 where there are 2 replicas (Kafka's
   * offsets.topic.replication.factor and the settings it recommends).
   */
  private void ensureOffsetsTopic(MetadataImage image) {
    if (!creating.compareAndSet(false, true)) {
      return;
    }
    // Kafka's offsets.topic.replication.factor (3), capped at the cluster's size (its quorum
    // members, not whoever happens to be registered yet), and only once that many brokers are up,
    // so the topic never gets fewer replicas than the cluster could give it.
    int replicationFactor = Math.min(3, clusterSize());
    long alive = image.brokers().values().stream().filter(b -> !b.fenced()).count();
    if (alive < replicationFactor) {
      creating.set(false);
      logger.info(
          "Not creating {} yet: {} of the {} brokers it needs are up; groups wait for them",
          GroupCoordinatorConfig.OFFSETS_TOPIC,
          alive,
          replicationFactor);
      return;
    }
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(LogConfig.CLEANUP_POLICY, "compact");
    configs.put(LogConfig.MIN_IN_SYNC_REPLICAS, String.valueOf(Math.min(2, replicationFactor)));
    configs.put(LogConfig.SEGMENT_BYTES, String.valueOf(100 * 1024 * 1024));
    admin
        .createTopic(
            RequestContext.INTERNAL,
            GroupCoordinatorConfig.OFFSETS_TOPIC,
            config.offsetsTopicPartitions(),
            replicationFactor,
            configs)
        .whenComplete(
            (created, failure) -> {
              creating.set(false);
              if (failure == null) {
                logger.info(
                    "Created {} with {} partitions, replication factor {}",
                    GroupCoordinatorConfig.OFFSETS_TOPIC,
                    config.offsetsTopicPartitions(),
                    replicationFactor);
              } else if (!(Errors.unwrap(failure) instanceof TopicExistsException)) {
                logger.warn(
                    "Could not create {} yet: {}",
                    GroupCoordinatorConfig.OFFSETS_TOPIC,
                    Errors.unwrap(failure).toString());
              } // else another broker created it first
            });
  }

  /** The brokers of the cluster: every member of the metadata quorum (1 for a single broker). */
  private int clusterSize() {
    if (!brokerConfig.clustered()) {
      return 1;
    }
    return entries(brokerConfig.quorumVoters()) + entries(brokerConfig.quorumListeners());
  }

  private static int entries(String list) {
    if (list == null || list.isBlank()) {
      return 0;
    }
    return (int) java.util.Arrays.stream(list.split(",")).filter(e -> !e.isBlank()).count();
  }

  private <T> CompletableFuture<T> call(
      String groupId, Function<CoordinatorApi, CompletableFuture<T>> request, T unavailable) {
    Optional<CoordinatorApi> target;
    try {
      target = route(groupId);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(unavailable);
    }
    if (target.isEmpty()) {
      return CompletableFuture.completedFuture(unavailable);
    }
    CompletableFuture<T> answer;
    try {
      answer = request.apply(target.get());
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(unavailable);
    }
    return answer.exceptionally(e -> unavailable);
  }

  private static final GroupError UNAVAILABLE = GroupError.COORDINATOR_NOT_AVAILABLE;

  @Override
  public CompletableFuture<JoinResult> joinGroup(JoinRequest request) {
    return call(
        request.groupId(),
        c -> c.joinGroup(request),
        JoinResult.failed(UNAVAILABLE, request.memberId()));
  }

  @Override
  public CompletableFuture<SyncResult> syncGroup(SyncRequest request) {
    return call(
        request.groupId(), c -> c.syncGroup(request), new SyncResult(UNAVAILABLE, new byte[0]));
  }

  @Override
  public CompletableFuture<GroupError> heartbeat(
      String groupId, String memberId, int generationId) {
    return call(groupId, c -> c.heartbeat(groupId, memberId, generationId), UNAVAILABLE);
  }

  @Override
  public CompletableFuture<GroupError> leaveGroup(String groupId, String memberId, String reason) {
    return call(groupId, c -> c.leaveGroup(groupId, memberId, reason), UNAVAILABLE);
  }

  @Override
  public CompletableFuture<GroupError> commitOffsets(
      String groupId,
      String memberId,
      int generationId,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    return call(
        groupId, c -> c.commitOffsets(groupId, memberId, generationId, offsets), UNAVAILABLE);
  }

  @Override
  public CompletableFuture<OffsetFetchResult> fetchOffsets(
      String groupId, List<TopicPartition> partitions) {
    return call(
        groupId,
        c -> c.fetchOffsets(groupId, partitions),
        new OffsetFetchResult(UNAVAILABLE, Map.of()));
  }

  @Override
  public CompletableFuture<DescribeResult> describeGroup(String groupId) {
    return call(groupId, c -> c.describeGroup(groupId), new DescribeResult(UNAVAILABLE, null));
  }

  /** Every coordinator's groups: this broker's and each other live broker's, merged. */
  @Override
  public CompletableFuture<List<GroupListing>> listGroups() {
    List<CompletableFuture<List<GroupListing>>> answers = new ArrayList<>();
    GroupCoordinator own = local.get();
    if (own != null) {
      answers.add(own.listGroups());
    }
    for (BrokerImage b : broker.metadata().brokers().values()) {
      if (b.brokerId() == broker.brokerId() || b.fenced()) {
        continue;
      }
      try {
        answers.add(
            transport
                .coordinatorAt(new ControllerChannel.Endpoint(b.brokerId(), b.host(), b.port()))
                .listGroups()
                .exceptionally(e -> List.of()));
      } catch (RuntimeException e) {
        // unreachable: its groups are missing from this answer, as in Kafka's ListGroups
      }
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            ignored -> {
              Map<String, GroupListing> merged = new java.util.TreeMap<>();
              for (CompletableFuture<List<GroupListing>> a : answers) {
                for (GroupListing g : a.join()) {
                  // During a coordinator move both brokers may still list a group for a moment.
                  merged.putIfAbsent(g.groupId(), g);
                }
              }
              return List.copyOf(merged.values());
            });
  }
}
