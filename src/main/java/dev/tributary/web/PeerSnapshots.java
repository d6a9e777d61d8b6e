package dev.tributary.web;

import dev.tributary.common.Time;
import dev.tributary.metadata.BrokerImage;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The other brokers' {@link LocalSnapshot}s for the live view (only the partitions each leads),
 * kept fresh in the background: while someone wants them, each peer is asked again {@code
 * intervalMs} after its last answer (one request in flight per peer, with the last answer's ETag,
 * so an unchanged peer costs a 304 and no parsing), so building the view never waits on the
 * network, and a crashed or frozen peer delays nobody: its last answer just ages out after {@code
 * freshMs} and it shows as not answering. Polling of a peer stops {@code idleStopMs} after the view
 * last asked for it (no page open).
 */
final class PeerSnapshots {
  /**
   * How long a view that just started polling waits for the peers' first answers: a healthy peer
   * answers in a few milliseconds; a frozen one must not hold up a page that is failing over to
   * this broker.
   */
  static final long WARM_UP_MS = 300;

  private final LeaderSnapshotFetcher fetcher;
  private final ScheduledExecutorService scheduler;

  /** Read on its monotonic clock only: every time here is an interval (freshness, idling). */
  private final Time time;

  private final long intervalMs;
  private final long freshMs;
  private final long idleStopMs;
  private final Map<Integer, Peer> peers = new ConcurrentHashMap<>();

  PeerSnapshots(
      LeaderSnapshotFetcher fetcher,
      ScheduledExecutorService scheduler,
      Time time,
      long intervalMs,
      long freshMs,
      long idleStopMs) {
    this.fetcher = fetcher;
    this.scheduler = scheduler;
    this.time = time;
    this.intervalMs = intervalMs;
    this.freshMs = freshMs;
    this.idleStopMs = idleStopMs;
  }

  /**
   * The fresh answers, by broker id.
   *
   * @param warmingUp true while a peer's first request since polling started is still out (for at
   *     most {@link #WARM_UP_MS}): its absence from {@code answers} means "not asked yet", not "not
   *     answering"
   */
  record Latest(Map<Integer, LocalSnapshot> answers, boolean warmingUp) {}

  /** The fresh answers of {@code brokers}; starts polling any not polled yet. */
  Latest latest(Collection<BrokerImage> brokers) {
    long nowMs = time.monotonicMs();
    Map<Integer, LocalSnapshot> fresh = new HashMap<>();
    boolean warmingUp = false;
    for (BrokerImage broker : brokers) {
      Peer peer = peers.computeIfAbsent(broker.brokerId(), id -> new Peer());
      boolean start;
      synchronized (peer) {
        peer.endpoint = broker; // a re-registration may move it
        peer.lastWantedMs = nowMs;
        start = !peer.polling;
        if (start) {
          peer.polling = true;
          peer.pollingSinceMs = nowMs;
          peer.answeredSincePolling = false;
        }
        warmingUp |= !peer.answeredSincePolling && nowMs - peer.pollingSinceMs < WARM_UP_MS;
        if (peer.answer != null
            && nowMs - peer.answerMs <= freshMs
            && peer.answerIncarnation.equals(broker.incarnationId().toString())) {
          fresh.put(broker.brokerId(), peer.answer);
        }
      }
      if (start) {
        poll(peer);
      }
    }
    return new Latest(fresh, warmingUp);
  }

  private void poll(Peer peer) {
    BrokerImage endpoint;
    synchronized (peer) {
      if (time.monotonicMs() - peer.lastWantedMs > idleStopMs) {
        peer.polling = false;
        return;
      }
      endpoint = peer.endpoint;
    }
    long startedMs = time.monotonicMs();
    String incarnation = endpoint.incarnationId().toString();
    String etag;
    synchronized (peer) {
      // Send our tag only for the same incarnation: a restarted broker's equal-looking body is
      // another's answer.
      etag = peer.answer != null && peer.answerIncarnation.equals(incarnation) ? peer.etag : null;
    }
    fetcher
        .fetchOne(endpoint, true, etag)
        .thenAccept(
            answer -> {
              long nowMs = time.monotonicMs();
              synchronized (peer) {
                peer.answeredSincePolling =
                    true; // an answer or a failure: either way no longer "not asked yet"
                if (answer.isPresent()) {
                  if (answer.get().snapshot()
                      != null) { // else 304: what we hold is still its answer
                    peer.answer = answer.get().snapshot();
                    peer.etag = answer.get().etag();
                    peer.answerIncarnation = incarnation;
                  }
                  peer.answerMs = nowMs;
                }
              }
              long delayMs = Math.max(0, intervalMs - (nowMs - startedMs));
              try {
                scheduler.schedule(() -> poll(peer), delayMs, TimeUnit.MILLISECONDS);
              } catch (java.util.concurrent.RejectedExecutionException e) {
                synchronized (peer) {
                  peer.polling = false; // shutting down
                }
              }
            });
  }

  /** One peer's last answer. Guarded by itself. */
  private static final class Peer {
    BrokerImage endpoint;
    LocalSnapshot answer;
    String etag;
    long answerMs;
    String answerIncarnation = "";
    long lastWantedMs;
    boolean polling;
    long pollingSinceMs;
    boolean answeredSincePolling;
  }
}
