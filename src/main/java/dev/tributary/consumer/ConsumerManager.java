package dev.tributary.consumer;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.group.CoordinatorApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer instances that live on this broker, by group and instance id: creates them, finds
 * them, deletes them (which commits, with auto-commit, and leaves the group), and removes those no
 * request has touched for {@code consumer.instance.timeout.ms}. Drives every instance's group
 * protocol from one periodic tick on the given scheduler.
 */
public final class ConsumerManager {
  private static final Logger logger = LoggerFactory.getLogger(ConsumerManager.class);

  /** How often instances are ticked: heartbeats, rejoins and auto-commits happen on this beat. */
  static final long TICK_INTERVAL_MS = 50;

  private final CoordinatorApi coordinator;
  private final PartitionReader reader;
  private final ClusterTopics topics;
  private final Time time;
  private final Scheduler scheduler;
  private final Random random;
  private final String clientHost;
  // Each instance knows its principal (ConsumerInstance.principal()): the per-principal cap counts
  // them here, so there is no second map to keep in step.
  private final Map<Key, ConsumerInstance> instances = new ConcurrentHashMap<>();

  private volatile boolean closed;

  record Key(String groupId, String instanceId) {}

  /**
   * @param clientHost how members created here name their host in the group (this broker), so admin
   *     views can say where each instance lives
   */
  public ConsumerManager(
      CoordinatorApi coordinator,
      PartitionReader reader,
      ClusterTopics topics,
      Time time,
      Scheduler scheduler,
      Random random,
      String clientHost) {
    this.coordinator = coordinator;
    this.reader = reader;
    this.topics = topics;
    this.time = time;
    this.scheduler = scheduler;
    this.random = random;
    this.clientHost = clientHost;
    scheduleTick();
  }

  /**
   * Creates an instance in {@code groupId}; {@code name} null picks a unique one (REST Proxy's
   * {@code rest-consumer-...}).
   */
  public ConsumerInstance create(String groupId, String name, ConsumerSettings settings) {
    return create(groupId, name, settings, "User:ANONYMOUS", topic -> true, Integer.MAX_VALUE);
  }

  /** As the full {@code create}, for a principal that may read every topic. */
  public ConsumerInstance create(
      String groupId,
      String name,
      ConsumerSettings settings,
      String principal,
      int maxInstancesPerPrincipal) {
    return create(groupId, name, settings, principal, topic -> true, maxInstancesPerPrincipal);
  }

  /**
   * Creates an instance on behalf of {@code principal} (a client's name, such as {@code
   * "User:alice"}), which sees only the topics {@code mayRead} accepts (a pattern subscription
   * matches no others, as Kafka's only match topics the consumer may describe), unless that
   * principal already has {@code maxInstancesPerPrincipal} instances on this broker ({@link
   * TooManyConsumerInstancesException}).
   */
  public synchronized ConsumerInstance create(
      String groupId,
      String name,
      ConsumerSettings settings,
      String principal,
      java.util.function.Predicate<String> mayRead,
      int maxInstancesPerPrincipal) {
    if (closed) {
      throw new dev.tributary.common.errors.BrokerNotAvailableException(
          "The broker is shutting down");
    }
    long owned = instances.values().stream().filter(i -> i.principal().equals(principal)).count();
    if (owned >= maxInstancesPerPrincipal) {
      throw new TooManyConsumerInstancesException(
          principal
              + " already has "
              + owned
              + " consumer instances on this broker, as many as"
              + " tributary.max-consumer-instances-per-principal="
              + maxInstancesPerPrincipal
              + " allows; delete some first (or let idle ones expire)");
    }
    String id =
        name != null
            ? name
            : "rest-consumer-" + new java.util.UUID(random.nextLong(), random.nextLong());
    Key key = new Key(groupId, id);
    if (instances.containsKey(key)) {
      throw new ConsumerAlreadyExistsException(
          "Consumer instance '" + id + "' already exists in group '" + groupId + "'");
    }
    ConsumerInstance instance =
        new ConsumerInstance(
            groupId,
            id,
            settings,
            coordinator,
            reader,
            includeInternal -> {
              Map<String, Integer> counts =
                  new java.util.LinkedHashMap<>(topics.partitionCounts(includeInternal));
              counts.keySet().removeIf(mayRead.negate());
              return counts;
            },
            time,
            scheduler,
            clientHost,
            principal);
    instances.put(key, instance);
    logger.info("Created consumer instance {} in group {} for {}", id, groupId, principal);
    return instance;
  }

  public ConsumerInstance get(String groupId, String instanceId) {
    ConsumerInstance instance = instances.get(new Key(groupId, instanceId));
    if (instance == null) {
      throw new ConsumerInstanceNotFoundException(
          "Consumer instance '" + instanceId + "' not found in group '" + groupId + "'");
    }
    return instance;
  }

  /** True if the instance lives here. */
  public boolean has(String groupId, String instanceId) {
    return instances.containsKey(new Key(groupId, instanceId));
  }

  /** Deletes the instance: commits (with auto-commit) and leaves its group. */
  public CompletableFuture<Void> delete(String groupId, String instanceId) {
    ConsumerInstance instance = instances.remove(new Key(groupId, instanceId));
    if (instance == null) {
      throw new ConsumerInstanceNotFoundException(
          "Consumer instance '" + instanceId + "' not found in group '" + groupId + "'");
    }
    logger.info("Deleting consumer instance {} of group {}", instanceId, groupId);
    return instance.close();
  }

  public List<ConsumerInstance> instances() {
    return new ArrayList<>(instances.values());
  }

  private void scheduleTick() {
    scheduler.schedule(
        TICK_INTERVAL_MS,
        () -> {
          if (closed) {
            return;
          }
          try {
            tick();
          } catch (RuntimeException e) {
            logger.error("Consumer instance tick failed", e);
          }
          scheduleTick();
        });
  }

  /** One beat: every instance's protocol step; instances idle past their timeout are deleted. */
  void tick() {
    long nowMs = time.monotonicMs();
    for (Map.Entry<Key, ConsumerInstance> entry : instances.entrySet()) {
      ConsumerInstance instance = entry.getValue();
      if (instance.idleMs(nowMs) >= instance.settings().instanceTimeoutMs()) {
        if (instances.remove(entry.getKey(), instance)) {
          logger.info(
              "Consumer instance {} of group {} was idle for {} ms >= consumer.instance.timeout.ms; deleting it",
              entry.getKey().instanceId(),
              entry.getKey().groupId(),
              instance.idleMs(nowMs));
          instance.close();
        }
        continue;
      }
      instance.tick();
    }
  }

  /**
   * Broker shutdown: every instance commits and leaves its group, so the groups rebalance at once.
   */
  public void shutdown() {
    closed = true;
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (ConsumerInstance instance : instances.values()) {
      closing.add(instance.close());
    }
    instances.clear();
    try {
      CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
          .get(2, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      logger.info("Not every consumer instance left its group before shutdown: {}", e.toString());
    }
  }
}
