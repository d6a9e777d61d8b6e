package dev.tributary.web;

import dev.tributary.common.Time;
import dev.tributary.common.errors.BrokerNotAvailableException;
import dev.tributary.metadata.BrokerImage;
import dev.tributary.metadata.MetadataImage;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.MetadataCache;
import dev.tributary.transport.http.PeerUrls;
import jakarta.annotation.PreDestroy;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * The live cluster view behind {@code /dashboard/ws}: builds a {@link ClusterSnapshot} every
 * {@value #TICK_MS} ms while a page is connected, from this broker's metadata image, its own
 * partitions and the other brokers' last answers ({@link PeerSnapshots}, polled every {@value
 * #PEER_INTERVAL_MS} ms in the background), and streams it through a {@link DashboardPublisher}.
 * With no page connected it builds nothing and asks nobody.
 *
 * <p>Timing (docs/adr/0011-live-dashboard.md): a change reaches the page after at most one peer
 * poll, one tick and the coalescing interval ({@value #MIN_INTERVAL_MS} ms) — well under a second.
 *
 * <p>History (docs/adr/0020-dashboard-history.md): unless {@code
 * tributary.dashboard.history-max-bytes} is 0, the view is also built every {@value #RECORD_MS} ms
 * whether or not a page is open and recorded in a {@link ClusterHistory}, so every broker can show
 * the cluster as it was.
 */
@Component
class LiveClusterView {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(LiveClusterView.class);

  static final long TICK_MS = 100;
  static final long MIN_INTERVAL_MS = 250;
  static final long HEARTBEAT_MS = 1_000;
  static final long PEER_INTERVAL_MS = 200;

  /** A peer whose last answer is older than this shows as not answering. */
  static final long PEER_FRESH_MS = 1_000;

  static final long SEND_TIMEOUT_MS = 5_000;

  /** How often the history records the view: the live page's coalescing interval. */
  static final long RECORD_MS = MIN_INTERVAL_MS;

  private final MetadataCache broker;
  private final BrokerConfig config;
  private final LocalSnapshots localSnapshots;
  private final DashboardProperties properties;
  private final Throughput throughput = new Throughput();
  private final ScheduledExecutorService scheduler;
  private final ExecutorService sends;
  private final PeerSnapshots peers;
  private final DashboardPublisher publisher;
  private final Optional<ClusterHistory> history;
  private final DemoBanner demoBanner;
  private final Time time;

  /** When the history last recorded the view, on the monotonic clock. */
  private long lastRecordedMs;

  LiveClusterView(
      MetadataCache broker,
      BrokerConfig config,
      LocalSnapshots localSnapshots,
      DashboardProperties properties,
      HttpClient tributaryHttpClient,
      PeerUrls urls,
      JsonMapper json,
      DemoBanner demoBanner,
      Time brokerTime) {
    this.broker = broker;
    this.time = brokerTime;
    this.demoBanner = demoBanner;
    this.config = config;
    this.localSnapshots = localSnapshots;
    this.properties = properties;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("tributary-dashboard-view"));
    this.sends = Executors.newCachedThreadPool(daemon("tributary-dashboard-send"));
    this.peers =
        new PeerSnapshots(
            new LeaderSnapshotFetcher(
                tributaryHttpClient,
                urls,
                json,
                Duration.ofMillis(PEER_FRESH_MS),
                config.clusterSecret()),
            scheduler,
            brokerTime,
            PEER_INTERVAL_MS,
            PEER_FRESH_MS,
            5_000);
    this.publisher =
        new DashboardPublisher(
            this::snapshot,
            json::writeValueAsString,
            brokerTime,
            MIN_INTERVAL_MS,
            HEARTBEAT_MS,
            SEND_TIMEOUT_MS);
    this.history =
        properties.recordsHistory()
            ? Optional.of(
                new ClusterHistory(
                    json::writeValueAsBytes,
                    properties.historyMaxBytes(),
                    properties.historyMaxAgeMs()))
            : Optional.empty();
    scheduler.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * The view's heartbeat, on the view's thread: builds the view at most once, for the history when
   * a recording is due and for the pages when any is open.
   */
  private void tick() {
    java.util.function.Supplier<Optional<ClusterSnapshot>> once = memoized(this::snapshot);
    long nowMs = time.monotonicMs();
    if (history.isPresent() && nowMs - lastRecordedMs >= RECORD_MS) {
      try {
        Optional<ClusterSnapshot> view = once.get();
        if (view.isPresent()) {
          history.get().record(view.get().header().serverTimeMs(), view.get());
          lastRecordedMs = nowMs;
        }
      } catch (RuntimeException e) {
        logger.debug("Could not record the cluster view", e);
      }
    }
    publisher.tick(once);
  }

  /** The history this broker records; empty when recording is off. */
  Optional<ClusterHistory> history() {
    return history;
  }

  private static <T> java.util.function.Supplier<T> memoized(
      java.util.function.Supplier<T> supplier) {
    return new java.util.function.Supplier<>() {
      private T value;
      private boolean done;

      @Override
      public T get() {
        if (!done) {
          value = supplier.get();
          done = true;
        }
        return value;
      }
    };
  }

  DashboardPublisher publisher() {
    return publisher;
  }

  /** Where sockets' blocking writes run, so that a slow page never stalls the view's thread. */
  ExecutorService sendExecutor() {
    return sends;
  }

  /** Throughput as of the last live snapshot (zero until a page has been open for a second). */
  Throughput.Observed rates() {
    return throughput.latest();
  }

  /** The broker's wall clock, which stamps the views (the page shows the broker's time). */
  long nowMs() {
    return time.milliseconds();
  }

  ClusterSnapshots.Context context(long nowMs) {
    return new ClusterSnapshots.Context(
        broker.clusterId(),
        config.brokerId(),
        broker.activeControllerId(),
        broker.controllerEpoch(),
        nowMs,
        properties.faultActions(),
        config.minInsyncReplicas(),
        demoBanner.current(nowMs).orElse(null),
        properties.faultActions() && properties.networkFaults());
  }

  /** The view now, without waiting on anyone; empty while this broker is starting or stopping. */
  private Optional<ClusterSnapshot> snapshot() {
    try {
      int self = config.brokerId();
      MetadataImage image = broker.metadata();
      LocalSnapshot own = localSnapshots.local(true); // the view takes only what this broker leads
      List<BrokerImage> others =
          image.brokers().values().stream().filter(b -> b.brokerId() != self).toList();
      PeerSnapshots.Latest latest = peers.latest(others);
      if (latest.warmingUp()) {
        return Optional
            .empty(); // a page just opened: wait for the peers' first answers (one round trip)
      }
      Map<Integer, LocalSnapshot> answers = new HashMap<>(latest.answers());
      answers.put(self, own);
      Set<Integer> unreachable = new TreeSet<>();
      others.forEach(b -> unreachable.add(b.brokerId()));
      unreachable.removeAll(answers.keySet());
      // Rates measure intervals (monotonic); the view is stamped with the broker's wall clock.
      Throughput.Observed rates = throughput.observe(time.monotonicMs(), answers);
      return Optional.of(
          ClusterSnapshots.merge(
              context(nowMs()), image, answers, unreachable, rates.byTopic(), rates.byBroker()));
    } catch (BrokerNotAvailableException e) {
      return Optional.empty();
    }
  }

  @PreDestroy
  void close() {
    scheduler.shutdownNow();
    sends.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemon(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
