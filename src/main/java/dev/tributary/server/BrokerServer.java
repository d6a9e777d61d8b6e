package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.UnknownTopicOrPartitionException;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogManager;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.TopicControl;
import dev.tributary.metadata.TopicImage;
import dev.tributary.common.Uuid;
import dev.tributary.replication.ReplicaManager;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker's core, assembled: metadata quorum, controller, log manager and replica manager, with the order in
 * which they start and stop. Plain Java; the Spring layer builds it, calls {@link #startup()} off the main thread
 * and reports readiness from {@link #isReady()}.
 *
 * <p>Startup order: identity ({@code meta.properties}) → metadata log replay → log recovery (configs from the
 * image; logs of deleted topics are removed) → replica manager follows the image → broker registers (fenced) and
 * heartbeats (unfenced, leads its partitions again) → ready.
 * Shutdown reverses it: stop taking requests, resign partitions, flush and checkpoint logs, write the
 * clean-shutdown marker, close the metadata log.
 */
public final class BrokerServer implements AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(BrokerServer.class);
  /** Kafka's broker.session.timeout.ms default; unused until brokers heartbeat a remote controller. */
  static final long BROKER_SESSION_TIMEOUT_MS = 9_000;

  /** Set again at startup with the port the listener really bound; read-only after that. */
  private volatile BrokerConfig config;
  private final Time time;
  private final Random random;
  private final Scheduler scheduler;
  private final Executor delayedCompletionExecutor;
  private volatile Started started;
  private volatile boolean shuttingDown;

  /** Everything that exists only once the broker has started. */
  private record Started(
      MetaProperties meta, MetadataQuorum quorum, Controller controller, LogManager logManager,
      ReplicaManager replicaManager) {}

  public BrokerServer(
      BrokerConfig config, Time time, Random random, Scheduler scheduler, Executor delayedCompletionExecutor) {
    this.config = config;
    this.time = time;
    this.random = random;
    this.scheduler = scheduler;
    this.delayedCompletionExecutor = delayedCompletionExecutor;
  }

  /**
   * Recovers state from the data directory and starts serving, advertising {@code listenerPort}. Blocking; may
   * take long after a crash.
   */
  public synchronized void startup(int listenerPort) {
    config = config.withPort(listenerPort);
    long startMs = time.milliseconds();
    MetaProperties meta = MetaProperties.loadOrCreate(config.dataDir(), config.brokerId(), random);
    MetadataQuorum quorum = LocalMetadataLog.open(config.metadataDir(), config.brokerId());
    MetadataImage image = quorum.image();
    LogManager logManager = new LogManager(config.logDir(), time);
    logManager.loadLogs(
        tp -> image.topic(tp.topic())
            .filter(topic -> topic.partitions().containsKey(tp.partition()))
            .map(topic -> LogConfig.fromMap(topic.configs())));
    ReplicaManager replicaManager = new ReplicaManager(config.brokerId(), logManager, scheduler, delayedCompletionExecutor);
    quorum.subscribe(replicaManager::onMetadataUpdate);
    Controller controller = new Controller(quorum, new TopicControl(random), BROKER_SESSION_TIMEOUT_MS);
    // Single-broker mode: register (fenced), then heartbeat at once with everything replayed, which unfences this
    // broker and gives back leadership of the partitions a previous incarnation led. Nothing fences it later: no
    // driver calls maybeFenceStaleBrokers here, since a broker cannot lose contact with itself.
    long nowMs = time.milliseconds();
    long brokerEpoch =
        controller.registerBroker(config.brokerId(), Uuid.random(random), config.host(), config.port(), nowMs);
    if (controller.heartbeat(config.brokerId(), brokerEpoch, quorum.image().lastOffset(), nowMs)) {
      throw new IllegalStateException("broker " + config.brokerId() + " is still fenced after catching up");
    }
    started = new Started(meta, quorum, controller, logManager, replicaManager);
    logger.info(
        "Broker {} of cluster {} started in {} ms with {} partition(s)",
        config.brokerId(), meta.clusterId(), time.milliseconds() - startMs, replicaManager.partitions().size());
  }

  public boolean isReady() {
    return started != null && !shuttingDown;
  }

  private Started require() {
    Started s = started;
    if (s == null || shuttingDown) {
      throw new BrokerNotAvailableException(
          shuttingDown ? "Broker " + config.brokerId() + " is shutting down"
              : "Broker " + config.brokerId() + " is still recovering its logs; retry shortly");
    }
    return s;
  }

  public ReplicaManager replicaManager() {
    return require().replicaManager();
  }

  public Controller controller() {
    return require().controller();
  }

  public MetadataImage metadata() {
    return require().quorum().image();
  }

  public String clusterId() {
    return require().meta().clusterId();
  }

  public BrokerConfig config() {
    return config;
  }

  /**
   * The topic, created with the broker's defaults if absent and {@code auto.create.topics.enable} is on. A request
   * that names a partition the new topic would not have ({@code maxRequestedPartition >= num.partitions}) is
   * refused before anything is created.
   */
  public Optional<TopicImage> topicForProduce(String name, int maxRequestedPartition) {
    Optional<TopicImage> topic = metadata().topic(name);
    if (topic.isPresent() || !config.autoCreateTopicsEnable()) {
      return topic;
    }
    if (maxRequestedPartition >= config.numPartitions()) {
      throw UnknownTopicOrPartitionException.unknownTopic(
          name,
          "it was not auto-created because partition " + maxRequestedPartition + " was asked for and a new topic gets "
              + config.numPartitions() + " partition(s) (num.partitions)");
    }
    logger.info("Auto-creating topic {} with {} partition(s)", name, config.numPartitions());
    return Optional.of(
        controller().createTopicIfAbsent(name, config.numPartitions(), config.defaultReplicationFactor()));
  }

  /** Periodic log housekeeping (retention, time-based flush, checkpoints); driven by the Spring scheduler. */
  public void runPeriodicLogTasks() {
    Started s = started;
    if (s != null && !shuttingDown) {
      s.replicaManager().runPeriodicLogTasks();
    }
  }


  /**
   * First step of a graceful shutdown, before the web server drains: waiting long polls answer now with what they
   * have, so draining does not wait out their timeouts.
   */
  public void beginShutdown() {
    Started s = started;
    if (s != null) {
      s.replicaManager().releaseFetchWaiters();
    }
  }

  /** Graceful shutdown: flushes and checkpoints so the next start can skip recovery. */
  @Override
  public synchronized void close() {
    shuttingDown = true;
    Started s = started;
    if (s == null) {
      return;
    }
    s.replicaManager().shutdown();
    s.logManager().shutdown();
    s.quorum().close();
    logger.info("Broker {} shut down cleanly", config.brokerId());
  }
}
