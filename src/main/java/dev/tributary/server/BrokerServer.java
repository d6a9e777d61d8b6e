package dev.tributary.server;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.common.Uuid;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.log.LogCleaner;
import dev.tributary.log.LogConfig;
import dev.tributary.log.LogDirFailureChannel;
import dev.tributary.log.LogManager;
import dev.tributary.log.SlowDisk;
import dev.tributary.metadata.Controller;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.TopicControl;
import dev.tributary.replication.LeaderEndpoint;
import dev.tributary.replication.ReplicaFetcherManager;
import dev.tributary.replication.ReplicaManager;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker's core, assembled: metadata quorum, controller, membership (registration and
 * heartbeats), log manager and replica manager, with the order in which they start and stop. Plain
 * Java; the Spring layer builds it, calls {@link #startup} off the main thread and reports
 * readiness from {@link #isReady()}.
 *
 * <p>Two modes, one code path: with {@code quorum-voters} configured the metadata quorum is the
 * cluster's Raft group and the controller is whichever broker leads it, reached over HTTP; without,
 * the broker is a cluster of one ({@link dev.tributary.metadata.LocalMetadataLog}) and its own
 * controller.
 *
 * <p>Startup order: identity ({@code meta.properties}) → metadata quorum (replays what it has; the
 * controller serves as soon as this broker leads the quorum) → register with the controller and
 * heartbeat → wait until the image has caught up to the controller's → log recovery (configs from
 * the image; logs of topics no longer in it are removed, which is why it must wait) → replica
 * manager follows the image (leads, or fetches from leaders) → ready. Shutdown: stop heartbeating,
 * controlled shutdown (the controller moves this broker's leaderships and ISR memberships to others
 * and fences it, so a planned stop loses nothing and barely stalls), stop fetching, resign
 * partitions, flush and checkpoint logs, write the clean-shutdown marker, leave the quorum.
 */
public final class BrokerServer implements RunningBroker, AutoCloseable {
  private static final Logger logger = LoggerFactory.getLogger(BrokerServer.class);

  /**
   * How long a stopping broker tries to hand over (the last broker of a cluster has nobody to ask).
   */
  private static final long CONTROLLED_SHUTDOWN_TIMEOUT_MS = 3_000;

  /** Set again at startup with the port the listener really bound; read-only after that. */
  private volatile BrokerConfig config;

  private final Time time;
  private final Random random;
  private final Scheduler scheduler;
  private final Executor delayedCompletionExecutor;
  private final Function<BrokerConfig, MetadataQuorum> quorumFactory;
  private final ControllerChannel remoteChannel;
  private final LeaderEndpoint leaderEndpoint;

  /** This broker's disk, handed to its logs; slowed only as an injected fault. */
  private final SlowDisk disk;

  /** ISR changes and unreachable-broker reports to the controller, off the hot threads. */
  private final ControllerRequests controllerRequests;

  /** Futures waiting for this broker to apply some metadata (admin calls, controlled shutdown). */
  private final MetadataWaiters metadataWaiters;

  /** Runs the blocking part of admin calls to the controller, never on a request thread. */
  private final java.util.concurrent.ExecutorService adminCalls =
      java.util.concurrent.Executors.newFixedThreadPool(
          2,
          runnable -> {
            Thread thread = new Thread(runnable, "tributary-admin-calls");
            thread.setDaemon(true);
            return thread;
          });

  private volatile MetaProperties meta;
  private volatile MetadataQuorum quorum;
  private volatile Controller controller;
  private volatile ControllerService controllerService;
  private volatile ControllerLocator locator;
  private volatile ControllerClient controllerClient;
  private volatile ProducerIdManager producerIds;
  private volatile BrokerLifecycleManager lifecycle;
  private volatile Thread heartbeatThread;
  private volatile LogManager logManager;
  private volatile ReplicaManager replicaManager;
  private volatile boolean ready;
  private volatile boolean shuttingDown;

  /** Set once {@link #beginShutdown} has stopped heartbeats and handed leadership over. */
  private boolean handedOver;

  /** Deletes the files of removed logs, off the metadata thread (see LogManager#deleteLog). */
  private final java.util.concurrent.ExecutorService logDeleter =
      java.util.concurrent.Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "tributary-log-deleter");
            thread.setDaemon(true);
            return thread;
          });

  private final Object heartbeatSignal = new Object();

  /**
   * Told of every metadata image after the replica manager has applied it (the group coordinator
   * follows its partitions' leaderships this way).
   */
  private final java.util.List<java.util.function.Consumer<MetadataImage>> metadataListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * @param quorumFactory opens this broker's metadata quorum (Raft peer or local log) for the given
   *     config
   * @param remoteChannel how to reach a controller on another broker (unused in single-broker mode)
   */
  public BrokerServer(
      BrokerConfig config,
      Time time,
      Random random,
      Scheduler scheduler,
      Executor delayedCompletionExecutor,
      Function<BrokerConfig, MetadataQuorum> quorumFactory,
      ControllerChannel remoteChannel,
      LeaderEndpoint leaderEndpoint) {
    this(
        config,
        time,
        random,
        scheduler,
        delayedCompletionExecutor,
        quorumFactory,
        remoteChannel,
        leaderEndpoint,
        new SlowDisk());
  }

  /**
   * As the other constructor, with the broker's {@link SlowDisk} from the wiring, so that the
   * dashboard's fault action can slow this broker's log writes.
   */
  public BrokerServer(
      BrokerConfig config,
      Time time,
      Random random,
      Scheduler scheduler,
      Executor delayedCompletionExecutor,
      Function<BrokerConfig, MetadataQuorum> quorumFactory,
      ControllerChannel remoteChannel,
      LeaderEndpoint leaderEndpoint,
      SlowDisk disk) {
    this.config = config;
    this.disk = disk;
    this.time = time;
    this.random = random;
    this.scheduler = scheduler;
    this.delayedCompletionExecutor = delayedCompletionExecutor;
    this.quorumFactory = quorumFactory;
    this.remoteChannel = remoteChannel;
    this.leaderEndpoint = leaderEndpoint;
    this.controllerRequests =
        new ControllerRequests(config.brokerId(), () -> controllerClient, time);
    this.metadataWaiters = new MetadataWaiters(scheduler, config.brokerId());
  }

  /**
   * Joins the cluster, recovers the logs and starts serving, advertising {@code listenerPort}.
   * Blocking: it waits for a controller and for the metadata to catch up, and log recovery may take
   * long after a crash.
   */
  public void startup(int listenerPort) throws InterruptedException {
    config = config.withPort(listenerPort);
    long startMs = time.monotonicMs();
    // A full or read-only data directory fails the start here, in one clear line, before anything
    // (meta.properties, the Raft storage, the logs) half-writes it (docs/adr/0015).
    LogManager.checkWritable(config.dataDir());
    meta =
        MetaProperties.loadOrCreate(
            config.dataDir(), config.brokerId(), config.clusterId(), random);
    quorum = quorumFactory.apply(config);
    controller =
        new Controller(quorum, new TopicControl(random), config.brokerSessionTimeoutMs(), time);
    controllerService = new ControllerService(controller, quorum, time, BrokerProbe.tcp(300));
    locator = new ControllerLocator(() -> config, quorum);
    controllerClient =
        new ControllerClient(
            quorum,
            controllerService,
            remoteChannel,
            locator,
            adminCalls,
            scheduler,
            time,
            config.requestTimeoutMs());
    new ControllerDuties(config, quorum, controller, time, scheduler, () -> shuttingDown).start();

    lifecycle =
        new BrokerLifecycleManager(
            config,
            Uuid.random(random).toString(),
            quorum,
            config.clustered() ? remoteChannel : controllerService,
            locator,
            time);
    quorum.subscribe(image -> lifecycle.onMetadataUpdate(image.lastOffset()));
    producerIds =
        new ProducerIdManager(
            config.brokerId(),
            () -> controllerClient.allocateProducerIds(config.brokerId(), lifecycle.brokerEpoch()),
            time);
    heartbeatThread = new Thread(this::heartbeatLoop, "tributary-heartbeat");
    heartbeatThread.setDaemon(true);
    heartbeatThread.start();
    awaitStep(lifecycle.caughtUp(), "for a controller and the metadata");

    MetadataImage image = quorum.image();
    LogDirFailureChannel failures = new LogDirFailureChannel();
    failures.addListener(offline -> onLogDirOffline());
    logManager =
        new LogManager(
            config.logDir(), time, logDeleter, LogCleaner.Config.defaults(), failures, disk);
    logManager.loadLogs(
        tp ->
            image
                .topic(tp.topic())
                .filter(topic -> topic.partitions().containsKey(tp.partition()))
                .map(topic -> LogConfig.fromMap(topic.configs())),
        tp -> image.topic(tp.topic()).map(topic -> topic.topicId().toString()));
    logManager.startup(); // the log cleaner: compaction of cleanup.policy=compact topics
    ReplicaFetcherManager fetchers =
        new ReplicaFetcherManager(
            config.brokerId(),
            lifecycle::brokerEpoch,
            leaderEndpoint,
            config.replication(),
            time,
            controllerRequests.followerEvents());
    replicaManager =
        new ReplicaManager(
            config.brokerId(),
            logManager,
            scheduler,
            delayedCompletionExecutor,
            time,
            config.replication(),
            controllerRequests::alterPartition,
            fetchers);
    quorum.subscribe(replicaManager::onMetadataUpdate);
    quorum.subscribe(
        next -> {
          // After the replica manager: whoever waits for this image finds its partitions there.
          metadataWaiters.onApplied(next);
          metadataListeners.forEach(listener -> listener.accept(next));
        });
    replicaManager.startIsrExpiration();
    lifecycle
        .readyToServe(); // only now may the controller unfence this broker and give it leadership
    wakeHeartbeat();
    awaitStep(lifecycle.unfenced(), "to be unfenced by the controller");
    ready = true;
    logger.info(
        "Broker {} of cluster {} started in {} ms with {} partition(s); controller is broker {}",
        config.brokerId(),
        meta.clusterId(),
        time.monotonicMs() - startMs,
        replicaManager.partitions().size(),
        quorum.activeControllerId().isPresent()
            ? quorum.activeControllerId().getAsInt()
            : "(none)");
  }

  /**
   * Waits for a startup step, logging every 5 s while it takes long (no controller, or no
   * majority).
   */
  private void awaitStep(java.util.concurrent.CompletableFuture<Void> step, String what)
      throws InterruptedException {
    long waitedMs = 0;
    while (true) {
      try {
        step.get(5, TimeUnit.SECONDS);
        return;
      } catch (TimeoutException e) {
        waitedMs += 5_000;
        logger.info(
            "Broker {} still waiting after {} s {} (controller: {}, state: {})",
            config.brokerId(),
            waitedMs / 1000,
            what,
            locator.controllerEndpoint().map(Object::toString).orElse("none yet"),
            lifecycle.state());
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("startup failed waiting " + what, e.getCause());
      }
    }
  }

  /**
   * A {@link LogDirFailureChannel} listener (it may run under a log's lock): the next heartbeat
   * tells the controller, which fences this broker and moves its leaderships; the replica manager
   * stops fetching. Both happen on other threads.
   */
  private void onLogDirOffline() {
    lifecycle.onLogDirOffline();
    scheduler.schedule(
        0,
        () -> {
          wakeHeartbeat();
          ReplicaManager replicas = replicaManager;
          if (replicas != null) {
            replicas.onLogDirFailure();
          }
        });
  }

  /** The offline log directory and why, if an I/O failure took it offline (health reports it). */
  public java.util.Optional<LogDirFailureChannel.OfflineLogDir> offlineLogDir() {
    LogManager logs = logManager;
    return logs == null ? java.util.Optional.empty() : logs.offlineLogDir();
  }

  private void wakeHeartbeat() {
    synchronized (heartbeatSignal) {
      heartbeatSignal.notifyAll();
    }
  }

  private void heartbeatLoop() {
    while (!shuttingDown) {
      long delayMs;
      try {
        delayMs = lifecycle.tick();
      } catch (RuntimeException e) {
        logger.warn("Heartbeat round failed; retrying", e);
        delayMs = 500;
      }
      try {
        synchronized (heartbeatSignal) {
          heartbeatSignal.wait(
              Math.max(delayMs, 10)); // woken early when the broker becomes ready to serve
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Registers {@code listener} for every metadata image applied after startup, called on the
   * metadata thread once the replica manager has applied the image. Register before {@link
   * #startup}.
   */
  public void addMetadataListener(java.util.function.Consumer<MetadataImage> listener) {
    metadataListeners.add(listener);
  }

  public boolean isReady() {
    return ready && !shuttingDown;
  }

  private void requireReady() {
    if (!ready || shuttingDown) {
      throw new BrokerNotAvailableException(
          shuttingDown
              ? "Broker " + config.brokerId() + " is shutting down"
              : "Broker "
                  + config.brokerId()
                  + " is still starting (joining the cluster, recovering its logs); retry shortly");
    }
  }

  /**
   * The replica manager once startup has created it (before the broker is ready), else null: for
   * components that follow the metadata image from startup on.
   */
  public ReplicaManager replicaManagerOrNull() {
    return replicaManager;
  }

  @Override
  public int brokerId() {
    return config.brokerId();
  }

  @Override
  public ReplicaManager replicaManager() {
    requireReady();
    return replicaManager;
  }

  @Override
  public ControllerClient controller() {
    requireReady();
    return controllerClient;
  }

  @Override
  public ProducerIdManager producerIdManager() {
    requireReady();
    return producerIds;
  }

  @Override
  public MetadataImage metadata() {
    requireReady();
    return quorum.image();
  }

  /** Waiters for metadata this broker has yet to apply; they live as long as the broker. */
  public MetadataWaiters metadataWaiters() {
    return metadataWaiters;
  }

  public String clusterId() {
    requireReady();
    return meta.clusterId();
  }

  public BrokerConfig config() {
    return config;
  }

  /** The broker id of the active controller, or -1 while none is known. */
  public int activeControllerId() {
    MetadataQuorum q = quorum;
    return q == null || q.activeControllerId().isEmpty() ? -1 : q.activeControllerId().getAsInt();
  }

  /** The controller epoch (Raft term of the current leader). */
  public long controllerEpoch() {
    MetadataQuorum q = quorum;
    return q == null ? 0 : q.controllerEpoch();
  }

  /**
   * The controller's request handler, for requests other brokers send here; only while this broker
   * is the active controller. Available before this broker is ready: the others need it to join.
   */
  public ControllerService activeController() {
    MetadataQuorum q = quorum;
    if (q == null || !q.isActiveController()) {
      int id = activeControllerId();
      throw new NotControllerException(
          "Broker "
              + config.brokerId()
              + " is not the active controller"
              + (id >= 0 ? "; broker " + id + " is" : "; none is elected yet"));
    }
    return controllerService;
  }

  // -------------------------------------------------------------------------------------------
  // replication

  /** Where broker {@code brokerId} serves HTTP, from the metadata image. */
  public Optional<ControllerChannel.Endpoint> brokerEndpoint(int brokerId) {
    MetadataQuorum q = quorum;
    return q == null
        ? Optional.empty()
        : q.image()
            .broker(brokerId)
            .map(b -> new ControllerChannel.Endpoint(b.brokerId(), b.host(), b.port()));
  }

  /**
   * Controlled shutdown (Kafka's): with heartbeats stopped, asks the controller to move this
   * broker's leaderships and ISR memberships to others and fence it, then waits (bounded) until
   * this broker's image shows it leads nothing. A cluster of one has nobody to hand over to.
   */
  private void controlledShutdown() {
    if (!config.clustered() || !ready || lifecycle.brokerEpoch() < 0) {
      return;
    }
    // Monotonic: a jump of the wall clock must not cut the hand-over short or stretch it.
    long deadline = time.monotonicMs() + CONTROLLED_SHUTDOWN_TIMEOUT_MS;
    while (time.monotonicMs() < deadline) {
      try {
        ControllerChannel.AdminResult result =
            controllerClient.fenceBroker(config.brokerId(), lifecycle.brokerEpoch());
        long leftMs = Math.max(1, deadline - time.monotonicMs());
        metadataWaiters.awaitOffset(result.metadataOffset(), leftMs).get();
        logger.info(
            "Broker {} handed over its leaderships (controlled shutdown)", config.brokerId());
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException | RuntimeException e) {
        logger.info("Controlled shutdown not done yet ({}); retrying", e.toString());
        try {
          Thread.sleep(100); // back off before asking the (maybe new) controller again
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    logger.warn(
        "Broker {} stops without a controlled shutdown: no controller answered in time",
        config.brokerId());
  }

  // -------------------------------------------------------------------------------------------
  // housekeeping

  /**
   * Periodic log housekeeping (retention, time-based flush, checkpoints); driven by the Spring
   * scheduler.
   */
  public void runPeriodicLogTasks() {
    if (ready && !shuttingDown) {
      replicaManager.runPeriodicLogTasks();
    }
  }

  /**
   * First step of a graceful shutdown, before the web server drains: stop heartbeating, hand every
   * leadership and ISR membership to the other brokers (controlled shutdown), then answer waiting
   * long polls with what they have. Handing over first, while this broker still serves replica
   * fetches, is what keeps a partition online: an {@code acks=all} produce in flight here waits for
   * followers, and followers cannot fetch from a web server that is draining, so a leader that
   * drained first would shrink its ISR to itself after {@code replica.lag.time.max.ms} and then
   * leave the partition without a leader (Kafka, too, moves leadership before it stops its
   * network). Idempotent; {@link #close} does it if nobody did.
   */
  public synchronized void beginShutdown() {
    if (handedOver) {
      return;
    }
    handedOver = true;
    shuttingDown = true;
    Thread heartbeat = heartbeatThread;
    if (heartbeat != null) {
      heartbeat.interrupt();
      try {
        heartbeat.join(
            1_000); // no heartbeat may unfence this broker after the controlled shutdown fences it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (replicaManager != null) {
      controlledShutdown();
      replicaManager.releaseFetchWaiters();
    }
  }

  /** Graceful shutdown: flushes and checkpoints so the next start can skip recovery. */
  @Override
  public void close() {
    beginShutdown();
    controllerRequests.close();
    adminCalls.shutdownNow();
    if (replicaManager != null) {
      replicaManager.shutdown();
    }
    if (logManager != null) {
      logManager.shutdown();
    }
    logDeleter
        .shutdown(); // pending deletions finish; a directory left renamed is removed at the next
    // start
    if (quorum != null) {
      quorum.close();
    }
    logger.info("Broker {} shut down cleanly", config.brokerId());
  }
}
