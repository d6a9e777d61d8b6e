package dev.tributary.web;

import dev.tributary.common.Time;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Streams the cluster view to dashboard connections: a {@link DashboardMessages.Snapshot} on
 * connect, then one {@link DashboardMessages.Delta} at most every {@code minIntervalMs} with what
 * changed, and a heartbeat after {@code heartbeatMs} of silence (so a page notices a dead or frozen
 * broker within two heartbeats).
 *
 * <p>A driver calls {@link #tick} often (every 100 ms); a tick builds one snapshot, and only if
 * someone is connected. Each subscriber remembers the last snapshot it was sent and gets the delta
 * from that one, so a slow subscriber is sent fewer, larger deltas (coalesced) and never a queue:
 * its memory is one snapshot reference, and it cannot hold back the others because sends are
 * asynchronous, at most one in flight per subscriber. A send that takes longer than {@code
 * sendTimeoutMs} closes that subscriber (its page reconnects and gets a snapshot).
 *
 * <p>Concurrency: {@link #tick} is called by one thread; subscribe, unsubscribe and send
 * completions come from others. Each subscriber's state is guarded by that subscriber's {@link
 * Slot}; no lock is held while encoding or starting a send.
 */
final class DashboardPublisher {
  private static final org.slf4j.Logger logger =
      org.slf4j.LoggerFactory.getLogger(DashboardPublisher.class);

  /** One connection. Neither method may block. */
  interface Subscriber {
    /**
     * Starts sending {@code message}; completes when it is sent, exceptionally if the connection
     * failed.
     */
    CompletionStage<Void> send(String message);

    void close();
  }

  private final Supplier<Optional<ClusterSnapshot>> source;
  private final Function<Object, String> encoder;
  private final Time time;
  private final long minIntervalMs;
  private final long heartbeatMs;
  private final long sendTimeoutMs;
  private final Map<Subscriber, Slot> slots = new ConcurrentHashMap<>();

  /**
   * @param source the current cluster view, empty while it cannot be built (the broker is starting)
   * @param encoder a message to its JSON text
   */
  DashboardPublisher(
      Supplier<Optional<ClusterSnapshot>> source,
      Function<Object, String> encoder,
      Time time,
      long minIntervalMs,
      long heartbeatMs,
      long sendTimeoutMs) {
    this.source = source;
    this.encoder = encoder;
    this.time = time;
    this.minIntervalMs = minIntervalMs;
    this.heartbeatMs = heartbeatMs;
    this.sendTimeoutMs = sendTimeoutMs;
  }

  /** Starts streaming to {@code subscriber}; its snapshot goes out on the next tick. */
  void subscribe(Subscriber subscriber) {
    slots.put(subscriber, new Slot(subscriber));
  }

  void unsubscribe(Subscriber subscriber) {
    Slot slot = slots.remove(subscriber);
    if (slot != null) {
      synchronized (slot) {
        slot.closed = true;
      }
    }
  }

  int subscriberCount() {
    return slots.size();
  }

  /** Builds the view (if anyone listens) and starts each idle subscriber's next send. */
  void tick() {
    tick(source);
  }

  /**
   * As {@link #tick()}, with the view from {@code view} (a caller that builds it anyway for
   * something else hands it over, so it is built once).
   */
  void tick(Supplier<Optional<ClusterSnapshot>> view) {
    if (slots.isEmpty()) {
      return;
    }
    Optional<ClusterSnapshot> built;
    try {
      built = view.get();
    } catch (RuntimeException e) {
      logger.debug("Dashboard view not available", e);
      return;
    }
    if (built.isEmpty()) {
      return;
    }
    ClusterSnapshot latest = built.get();
    long nowMs = time.monotonicMs(); // intervals: coalescing, heartbeats, the send timeout
    for (Slot slot : slots.values()) {
      offer(slot, latest, nowMs);
    }
  }

  private void offer(Slot slot, ClusterSnapshot latest, long nowMs) {
    Object message;
    ClusterSnapshot target;
    synchronized (slot) {
      if (slot.closed) {
        return;
      }
      if (slot.sending) {
        if (nowMs - slot.sendStartedMs > sendTimeoutMs) {
          logger.info(
              "Closing a dashboard connection whose send has taken over {} ms", sendTimeoutMs);
          drop(slot);
        }
        return; // coalesce: when this send is done, the next delta covers everything since
      }
      if (slot.lastSent == null) {
        message = new DashboardMessages.Snapshot(slot.seq + 1, latest);
        target = latest;
      } else if (nowMs - slot.lastSentMs < minIntervalMs) {
        return;
      } else {
        Optional<DashboardMessages.Delta> delta = DashboardMessages.between(slot.lastSent, latest);
        if (delta.isPresent()) {
          message = delta.get().withSeq(slot.seq + 1);
          target = latest;
        } else if (nowMs - slot.lastSentMs >= heartbeatMs) {
          message = new DashboardMessages.Heartbeat(slot.seq + 1, time.milliseconds());
          target = slot.lastSent;
        } else {
          return;
        }
      }
      slot.seq++;
      slot.sending = true;
      slot.sendStartedMs = nowMs;
    }
    CompletionStage<Void> sent;
    try {
      sent = slot.subscriber.send(encoder.apply(message));
    } catch (RuntimeException e) { // e.g. the send executor refused: shutting down
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete(
        (ok, error) -> {
          synchronized (slot) {
            if (error != null) {
              logger.debug("Dashboard send failed; dropping the connection", error);
              drop(slot);
              return;
            }
            slot.lastSent = target;
            slot.lastSentMs = time.monotonicMs();
            slot.sending = false;
          }
        });
  }

  /** Caller holds the slot's lock. */
  private void drop(Slot slot) {
    slot.closed = true;
    slots.remove(slot.subscriber, slot);
    slot.subscriber.close();
  }

  /**
   * One subscriber's progress. Invariants: {@code seq} is the seq of the last message handed to a
   * send; {@code lastSent} is the snapshot the subscriber holds once its sends so far are done; at
   * most one send in flight.
   */
  private static final class Slot {
    final Subscriber subscriber;
    ClusterSnapshot lastSent;
    long seq;
    long lastSentMs; // monotonic, as sendStartedMs
    boolean sending;
    long sendStartedMs;
    boolean closed;

    Slot(Subscriber subscriber) {
      this.subscriber = subscriber;
    }
  }
}
