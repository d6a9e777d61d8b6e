package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.consumer.ConsumerManager;
import dev.tributary.consumer.PartitionReader;
import dev.tributary.group.CoordinatorApi;
import dev.tributary.group.GroupCoordinator;
import dev.tributary.group.GroupCoordinatorConfig;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.TopicImage;
import dev.tributary.replication.Partition;
import dev.tributary.replication.ReplicaManager;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Consumer groups on one broker, assembled: the group coordinator (for the partitions of {@code
 * __consumer_offsets} this broker leads, following leadership as the metadata image changes), the
 * router that finds any group's coordinator, and the REST consumer instances that live here.
 *
 * <p>Startup: built with the broker, idle until the broker's replica manager exists; every metadata
 * image after that reconciles the coordinator's shards with this broker's leaderships. Shutdown:
 * instances leave their groups first (so the groups rebalance at once, not after a session
 * timeout), then the coordinator drops its shards.
 */
public final class GroupServices implements AutoCloseable {
  private final BrokerServer broker;
  private final GroupCoordinatorConfig config;
  private final GroupTransport transport;
  private final Time time;
  private final Scheduler scheduler;
  private final Random random;
  private final java.util.concurrent.Executor completions;
  private final ExecutorService loader = daemonExecutor("tributary-group-loader");
  private final CoordinatorRouter router;
  private final ConsumerManager consumers;
  private final BrokerPartitionReader localReader;
  private final PartitionReader reader;
  private volatile GroupCoordinator coordinator;

  public GroupServices(
      BrokerServer broker,
      AdminService admin,
      FetchService fetch,
      OffsetsService offsets,
      GroupCoordinatorConfig config,
      GroupTransport transport,
      Time time,
      Scheduler scheduler,
      Random random,
      java.util.concurrent.Executor completions) {
    this.broker = broker;
    this.config = config;
    this.transport = transport;
    this.time = time;
    this.scheduler = scheduler;
    this.random = random;
    this.completions = completions;
    this.router =
        new CoordinatorRouter(
            broker,
            broker.config(),
            config,
            () -> coordinator,
            transport,
            admin,
            broker::brokerEndpoint);
    this.reader =
        new BrokerPartitionReader(fetch, offsets, transport, broker::brokerEndpoint, false);
    this.localReader =
        new BrokerPartitionReader(fetch, offsets, transport, broker::brokerEndpoint, true);
    this.consumers =
        new ConsumerManager(
            router,
            reader,
            this::partitionCounts,
            time,
            scheduler,
            random,
            "broker-" + broker.config().brokerId());
    broker.addMetadataListener(this::onMetadataUpdate);
  }

  private static ExecutorService daemonExecutor(String name) {
    return Executors.newSingleThreadExecutor(
        runnable -> {
          Thread thread = new Thread(runnable, name);
          thread.setDaemon(true);
          return thread;
        });
  }

  /** Follows this broker's leaderships of {@code __consumer_offsets} partitions. */
  private synchronized void onMetadataUpdate(MetadataImage image) {
    ReplicaManager replicas = broker.replicaManagerOrNull();
    if (replicas == null) {
      return;
    }
    if (coordinator == null) {
      coordinator =
          new GroupCoordinator(
              config,
              new ReplicaCoordinatorLog(
                  broker::replicaManagerOrNull, broker.config().requestTimeoutMs()),
              time,
              scheduler,
              random,
              completions,
              loader);
    }
    for (int p = 0; p < config.offsetsTopicPartitions(); p++) {
      Optional<Partition> partition =
          replicas.partition(new TopicPartition(GroupCoordinatorConfig.OFFSETS_TOPIC, p));
      if (partition.isPresent() && partition.get().isLeader()) {
        coordinator.onBecomeLeader(p, partition.get().leaderEpoch());
      } else {
        coordinator.onResign(p);
      }
    }
  }

  private Map<String, Integer> partitionCounts(boolean includeInternal) {
    Map<String, Integer> counts = new HashMap<>();
    for (TopicImage t : broker.metadata().topicsByName().values()) {
      if (includeInternal || !t.name().startsWith("__")) {
        counts.put(t.name(), t.partitionCount());
      }
    }
    return counts;
  }

  /** Any group's coordinator, wherever it is (the router). */
  public CoordinatorApi coordinators() {
    return router;
  }

  /**
   * This broker's own coordinator, for the internal endpoints other brokers call; null before
   * startup.
   */
  public GroupCoordinator localCoordinator() {
    return coordinator;
  }

  /** Reads any partition: here if this broker leads it, else from its leader. */
  public PartitionReader reader() {
    return reader;
  }

  /** Reads from this broker's own leaders only, for the internal endpoint other brokers call. */
  public PartitionReader localReader() {
    return localReader;
  }

  /** Which broker coordinates {@code groupId} now, or -1. */
  public int coordinatorOf(String groupId) {
    return router.coordinatorOf(groupId);
  }

  /**
   * Which broker coordinates {@code groupId} now, or -1 while none does (Kafka's FindCoordinator,
   * which creates {@code __consumer_offsets} on first use, as this does).
   */
  public int findCoordinator(String groupId) {
    return router.findCoordinator(groupId);
  }

  public ConsumerManager consumers() {
    return consumers;
  }

  public GroupCoordinatorConfig config() {
    return config;
  }

  /**
   * The coordinator's clock, for an adapter that stamps the offsets it commits (as Kafka's does).
   */
  public Time time() {
    return time;
  }

  /** Consumer instances leave their groups; call before the broker itself stops. */
  public void beginShutdown() {
    consumers.shutdown();
  }

  @Override
  public void close() {
    consumers.shutdown();
    GroupCoordinator c = coordinator;
    if (c != null) {
      c.shutdown();
    }
    loader.shutdownNow();
  }
}
