package dev.tributary.server;

import dev.tributary.common.Time;
import dev.tributary.common.errors.BrokerNotRegisteredException;
import dev.tributary.common.errors.InvalidRegistrationException;
import dev.tributary.common.errors.NotControllerException;
import dev.tributary.common.errors.StaleBrokerEpochException;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.server.ControllerChannel.Endpoint;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's side of cluster membership (Kafka's BrokerLifecycleManager): find the active
 * controller, register this incarnation with the listeners it advertises, then heartbeat; learn
 * whether the broker is fenced, and when its metadata has caught up.
 *
 * <pre>
 * state        on                                   next
 * UNREGISTERED controller answers register           REGISTERED (fenced; catching up to its offset)
 * REGISTERED   heartbeat: fenced=false               RUNNING
 * RUNNING      heartbeat: fenced=true                REGISTERED (the controller fenced us: missed session,
 *                                                   or this broker reported its log directory offline)
 * any          STALE_BROKER_EPOCH / NOT_REGISTERED   UNREGISTERED (register again)
 * UNREGISTERED INVALID_REGISTRATION                  UNREGISTERED (logged; asks again each heartbeat
 *                                                   interval: its listeners must be configured anew)
 * </pre>
 *
 * <p>{@link #tick} does one step and returns how long to wait before the next; a dedicated thread
 * calls it (the calls block on HTTP). Controller unreachable or not the controller: retry soon
 * against whoever leads then.
 */
public final class BrokerLifecycleManager {
  private static final Logger logger = LoggerFactory.getLogger(BrokerLifecycleManager.class);
  private static final long RETRY_MS = 200;

  /** The registration state; see the class doc for the transitions. */
  public enum State {
    /** Not registered with the current controller; the next tick registers. */
    UNREGISTERED,
    /**
     * Registered but fenced: may not lead partitions; heartbeats until the controller unfences it.
     */
    REGISTERED,
    /** Registered and unfenced: a full member of the cluster. */
    RUNNING
  }

  private final BrokerConfig config;
  private final String incarnationId;
  private final MetadataQuorum quorum;
  private final ControllerChannel channel;
  private final ControllerLocator locator;
  private final long heartbeatIntervalMs;
  private final long sessionTimeoutMs;
  private final Time time;
  private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
  private final CompletableFuture<Void> firstUnfenced = new CompletableFuture<>();
  private volatile State state = State.UNREGISTERED;

  /**
   * False until the broker has recovered its logs: until then it reports no metadata progress, so
   * it stays fenced.
   */
  private volatile boolean readyToServe;

  /**
   * Set once this broker's log directory went offline (never cleared: only a restart brings it
   * back); every later heartbeat says so, so the controller fences the broker and keeps it fenced,
   * a new active controller included.
   */
  private volatile boolean logDirOffline;

  private volatile long brokerEpoch = -1;
  private long catchUpOffset = Long.MAX_VALUE;

  /**
   * Monotonic time of the last answer from a controller (Long.MIN_VALUE: none yet); only the
   * heartbeat thread touches it. With {@link #silenceReported}, says when the controller has not
   * answered for half a session: the broker may be fenced soon, and the log says why.
   */
  private long lastAnsweredMs = Long.MIN_VALUE;

  private boolean silenceReported;

  public BrokerLifecycleManager(
      BrokerConfig config,
      String incarnationId,
      MetadataQuorum quorum,
      ControllerChannel channel,
      ControllerLocator locator,
      Time time) {
    this.config = config;
    this.incarnationId = incarnationId;
    this.quorum = quorum;
    this.channel = channel;
    this.locator = locator;
    this.heartbeatIntervalMs = config.brokerHeartbeatIntervalMs();
    this.sessionTimeoutMs = config.brokerSessionTimeoutMs();
    this.time = time;
  }

  /** One registration or heartbeat round; returns the delay in ms before the next. */
  public long tick() {
    Optional<Endpoint> controller = locator.controllerEndpoint();
    if (controller.isEmpty()) {
      noAnswer("no controller is known yet");
      return RETRY_MS; // no controller elected yet, or its address not yet in our image
    }
    try {
      if (state == State.UNREGISTERED) {
        ControllerChannel.RegistrationResult result =
            channel.register(
                controller.get(),
                new ControllerChannel.BrokerRegistration(
                    config.brokerId(), incarnationId, config.listeners(), config.rack()));
        brokerEpoch = result.brokerEpoch();
        catchUpOffset = result.metadataOffset();
        state = State.REGISTERED;
        logger.info(
            "Registered with controller {} (broker epoch {}); catching up to metadata offset {}",
            controller.get().brokerId(),
            brokerEpoch,
            catchUpOffset);
      }
      long metadataOffset = quorum.image().lastOffset();
      if (metadataOffset >= catchUpOffset) {
        caughtUp.complete(null);
      }
      // Kafka keeps a broker fenced until it is ready to serve; the controller unfences on a
      // caught-up offset, so a
      // broker still recovering its logs reports none.
      long reportedOffset = readyToServe ? metadataOffset : -1;
      ControllerChannel.HeartbeatResult result =
          channel.heartbeat(
              controller.get(),
              new ControllerChannel.BrokerHeartbeat(
                  config.brokerId(), brokerEpoch, reportedOffset, logDirOffline));
      answered(controller.get());
      State next = result.fenced() ? State.REGISTERED : State.RUNNING;
      if (next != state) {
        logger.info(
            "Broker {} is now {}",
            config.brokerId(),
            next == State.RUNNING ? "unfenced" : "fenced");
      }
      state = next;
      if (next == State.RUNNING) {
        firstUnfenced.complete(null);
      }
      return heartbeatIntervalMs;
    } catch (StaleBrokerEpochException | BrokerNotRegisteredException e) {
      answered(controller.get());
      logger.warn(
          "Controller no longer knows this registration ({}); registering again", e.getMessage());
      state = State.UNREGISTERED;
      return 0;
    } catch (InvalidRegistrationException e) {
      // Only a configuration change can fix it; keep asking at the heartbeat pace, not in a loop.
      logger.error("The controller refused this broker's registration: {}", e.getMessage());
      return heartbeatIntervalMs;
    } catch (NotControllerException | ControllerUnreachableException e) {
      logger.debug("Controller call failed, will retry: {}", e.getMessage());
      noAnswer(e.getMessage());
      return RETRY_MS;
    }
  }

  private void answered(Endpoint controller) {
    lastAnsweredMs = time.monotonicMs();
    if (silenceReported) {
      silenceReported = false;
      logger.info("Controller {} answers heartbeats again", controller.brokerId());
    }
  }

  /**
   * A round without an answer: once the controller has been silent for half a session, says so
   * (once per silence, with the last reason), because the controller fences a broker it has not
   * heard from for a whole session.
   */
  private void noAnswer(String reason) {
    if (lastAnsweredMs == Long.MIN_VALUE || silenceReported) {
      return; // still starting up, or already said
    }
    long silentMs = time.monotonicMs() - lastAnsweredMs;
    if (silentMs >= sessionTimeoutMs / 2) {
      silenceReported = true;
      logger.warn(
          "No controller has answered broker {}'s heartbeats for {} ms (the session is {} ms): {}",
          config.brokerId(),
          silentMs,
          sessionTimeoutMs,
          reason);
    }
  }

  /**
   * The broker has recovered its logs and follows the metadata: later heartbeats may unfence it.
   */
  public void readyToServe() {
    readyToServe = true;
  }

  /**
   * The log directory went offline: from the next heartbeat on the controller hears of it (the
   * caller wakes the heartbeat thread). Lock-free, so a {@link
   * dev.tributary.log.LogDirFailureChannel} listener may call it.
   */
  public void onLogDirOffline() {
    logDirOffline = true;
  }

  public boolean logDirOffline() {
    return logDirOffline;
  }

  /** Completes the first time the controller answers that this broker is unfenced. */
  public CompletableFuture<Void> unfenced() {
    return firstUnfenced;
  }

  /**
   * Completes once this broker's metadata image has reached the controller's offset at
   * registration.
   */
  public CompletableFuture<Void> caughtUp() {
    return caughtUp;
  }

  /**
   * Re-checks catch-up between heartbeats (called on every new image), so startup does not wait a
   * full heartbeat interval once the image has arrived.
   */
  public void onMetadataUpdate(long lastOffset) {
    if (state != State.UNREGISTERED && lastOffset >= catchUpOffset) {
      caughtUp.complete(null);
    }
  }

  public State state() {
    return state;
  }

  public long brokerEpoch() {
    return brokerEpoch;
  }
}
