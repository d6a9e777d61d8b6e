package dev.tributary.trace;

import dev.tributary.common.Time;
import dev.tributary.common.TopicPartition;
import dev.tributary.replication.Acks;
import dev.tributary.replication.ReplicationListener;
import dev.tributary.trace.TraceStep.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows one record on its leader. Armed on the leader's partition before the record is produced,
 * it records, on the leader's monotonic clock, the events that make up the record's life: its
 * append at offset N, each follower's first fetch from beyond N (the leader learns a follower's log
 * end offset from the offset its next fetch asks for), and the high watermark passing N; the caller
 * adds the producer's answer ({@link #onAcknowledged}). {@link #report} turns them into steps, and
 * says so when a step did not happen rather than invent a time.
 *
 * <p>Which append is the traced record's: the one made on the {@code producer} thread. The produce
 * service appends a partition this broker leads on the caller's thread before it returns, and one
 * thread produces one record at a time, so other producers' appends to the same partition (and
 * other traces') are told apart without looking into the batches. Appends before it, and fetches
 * and HW moves before it, are ignored: no event of this record's can precede its append, since the
 * partition's lock orders them.
 *
 * <p>Concurrency: the listener methods run under the partition's lock (lock order partition → this
 * trace); every field is guarded by this object's monitor. {@code onComplete} runs once, when every
 * step the trace waits for has happened, possibly under the partition's lock: it may only hand off.
 */
public final class RecordTrace implements ReplicationListener {
  private record Reached(long nanos, long fetchOffset) {}

  private final TopicPartition topicPartition;
  private final int leaderId;
  private final int leaderEpoch;
  private final List<Integer> replicas;
  private final List<Integer> isr;
  private final Acks acks;
  private final Time time;
  private final long startNanos;
  private final Thread producer;
  private final Runnable onComplete;

  /** The record's offset N; -1 until it is appended. Invariant: set once. */
  private long offset = -1;

  private long appendedNanos;
  private long logEndOffsetAfterAppend;
  private long highWatermarkAtAppend;

  /** Per follower, its first fetch from beyond N, as the leader received it. */
  private final Map<Integer, Reached> fetched = new HashMap<>();

  private long committedNanos = -1;
  private long committedHighWatermark = -1;
  private long acknowledgedNanos = -1;

  /** Why the produce was answered with an error after the append; null if it succeeded. */
  private String answerError;

  private boolean completed;

  /**
   * @param replicas the partition's replicas, and {@code isr} its in-sync replicas, as the leader
   *     had them just before the append; the trace waits for the ISR's followers only
   * @param startNanos when the trace request arrived at the leader, on {@code time}'s monotonic
   *     clock: every step's time is measured from it
   * @param producer the thread that will produce the record (see the class doc)
   */
  public RecordTrace(
      TopicPartition topicPartition,
      int leaderId,
      int leaderEpoch,
      List<Integer> replicas,
      List<Integer> isr,
      Acks acks,
      Time time,
      long startNanos,
      Thread producer,
      Runnable onComplete) {
    this.topicPartition = topicPartition;
    this.leaderId = leaderId;
    this.leaderEpoch = leaderEpoch;
    this.replicas = List.copyOf(replicas);
    this.isr = List.copyOf(isr);
    this.acks = acks;
    this.time = time;
    this.startNanos = startNanos;
    this.producer = producer;
    this.onComplete = onComplete;
  }

  @Override
  public synchronized void onAppend(long lastOffset, long logEndOffset, long highWatermark) {
    if (offset >= 0 || Thread.currentThread() != producer) {
      return;
    }
    offset = lastOffset;
    appendedNanos = time.nanoseconds();
    logEndOffsetAfterAppend = logEndOffset;
    highWatermarkAtAppend = highWatermark;
    maybeComplete();
  }

  @Override
  public synchronized void onFollowerFetch(int replicaId, long fetchOffset) {
    if (offset < 0 || fetchOffset <= offset || fetched.containsKey(replicaId)) {
      return;
    }
    fetched.put(replicaId, new Reached(time.nanoseconds(), fetchOffset));
    maybeComplete();
  }

  @Override
  public synchronized void onHighWatermark(long highWatermark) {
    if (offset < 0 || highWatermark <= offset || committedNanos >= 0) {
      return;
    }
    committedNanos = time.nanoseconds();
    committedHighWatermark = highWatermark;
    maybeComplete();
  }

  /**
   * The produce was answered (with acks=0 the leader sends nothing, and this only notes the end).
   *
   * @param error why it was answered with an error, or null
   */
  public synchronized void onAcknowledged(String error) {
    if (acknowledgedNanos >= 0) {
      return;
    }
    acknowledgedNanos = time.nanoseconds();
    answerError = error;
    maybeComplete();
  }

  /** The record's offset N, or -1 if it was not appended (yet). */
  public synchronized long offset() {
    return offset;
  }

  private void maybeComplete() {
    if (completed || offset < 0 || committedNanos < 0 || acknowledgedNanos < 0) {
      return;
    }
    for (int follower : isr) {
      if (follower != leaderId && !fetched.containsKey(follower)) {
        return;
      }
    }
    completed = true;
    onComplete.run();
  }

  /**
   * The steps so far, in the order they happened (ties in the order of {@link Kind}), then those
   * that did not happen, each saying why.
   *
   * @param waitMs how long the trace was allowed to wait, reported as such
   * @throws IllegalStateException if the record was not appended
   */
  public synchronized TraceReport report(long waitMs) {
    if (offset < 0) {
      throw new IllegalStateException(topicPartition + ": the traced record was not appended");
    }
    String by = "by +" + ms(time.nanoseconds()) + " ms, when the trace stopped waiting";
    List<TraceStep> steps = new ArrayList<>();
    steps.add(
        new TraceStep(
            Kind.APPENDED,
            leaderId,
            logEndOffsetAfterAppend,
            highWatermarkAtAppend,
            ms(appendedNanos),
            "appended on leader %d at offset %d (its LEO now %d)"
                .formatted(leaderId, offset, logEndOffsetAfterAppend)));
    for (int replica : replicas) {
      if (replica != leaderId) {
        steps.add(followerStep(replica, by));
      }
    }
    steps.add(committedStep(by));
    steps.add(acknowledgedStep(by));
    List<TraceStep> ordered = new ArrayList<>(steps.stream().filter(TraceStep::happened).toList());
    ordered.sort(Comparator.comparingDouble(TraceStep::atMs)); // stable: ties keep Kind order
    steps.stream().filter(s -> !s.happened()).forEach(ordered::add);
    return new TraceReport(
        topicPartition,
        offset,
        leaderId,
        leaderEpoch,
        replicas,
        isr,
        acks,
        TraceReport.waitedFor(acks),
        waitMs,
        completed,
        List.copyOf(ordered));
  }

  private TraceStep followerStep(int follower, String by) {
    boolean inIsr = isr.contains(follower);
    Reached reached = fetched.get(follower);
    if (reached != null) {
      return new TraceStep(
          Kind.REPLICATED,
          follower,
          reached.fetchOffset(),
          -1,
          ms(reached.nanos()),
          "follower %d fetched it (its next fetch asked from offset %d, so its LEO is %d)%s"
              .formatted(
                  follower,
                  reached.fetchOffset(),
                  reached.fetchOffset(),
                  inIsr ? "" : "; it is not in the ISR, so the HW did not wait for it"));
    }
    String text =
        inIsr
            ? "follower %d (in the ISR) had not fetched offset %d %s; the HW waits for it until it leaves the ISR (replica.lag.time.max.ms)"
            : "follower %d is not in the ISR and had not fetched offset %d %s; the HW does not wait for it";
    return new TraceStep(
        Kind.REPLICATED, follower, -1, -1, null, text.formatted(follower, offset, by));
  }

  private TraceStep committedStep(String by) {
    if (committedNanos >= 0) {
      return new TraceStep(
          Kind.COMMITTED,
          leaderId,
          -1,
          committedHighWatermark,
          ms(committedNanos),
          "the HW passed offset %d (HW now %d): committed, consumers can read it"
              .formatted(offset, committedHighWatermark));
    }
    List<Integer> missing =
        isr.stream().filter(f -> f != leaderId && !fetched.containsKey(f)).toList();
    return new TraceStep(
        Kind.COMMITTED,
        leaderId,
        -1,
        -1,
        null,
        "the HW had not passed offset %d %s (ISR followers without it: %s)"
            .formatted(offset, by, missing));
  }

  private TraceStep acknowledgedStep(String by) {
    if (acks == Acks.NONE) {
      return new TraceStep(
          Kind.ACKNOWLEDGED,
          leaderId,
          -1,
          -1,
          0.0,
          "acks=0: the leader sends no answer; the producer counted the record as sent when it"
              + " sent it, before the leader appended it");
    }
    if (acknowledgedNanos < 0) {
      return new TraceStep(
          Kind.ACKNOWLEDGED,
          leaderId,
          -1,
          -1,
          null,
          "the leader had not answered the producer %s (acks=all waits for the HW)".formatted(by));
    }
    String text =
        answerError != null
            ? "the leader answered the producer with an error: " + answerError
            : acks == Acks.LEADER
                ? "the leader answered the producer (acks=1: after its own append, without waiting for the followers)"
                : "the leader answered the producer (acks=all: once the HW passed the record, so every ISR member has it)";
    return new TraceStep(Kind.ACKNOWLEDGED, leaderId, -1, -1, ms(acknowledgedNanos), text);
  }

  /** Milliseconds from the request's arrival, to one decimal. */
  private double ms(long nanos) {
    return Math.round((nanos - startNanos) / 100_000.0) / 10.0;
  }
}
