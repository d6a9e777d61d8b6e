package dev.tributary.web;

import dev.tributary.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records per second in and out of each topic, from successive observations of the cluster: "in" is
 * how far the leaders' log end offsets moved (every record appended, however it arrived), "out" is
 * how far the brokers' served-to-consumers counters moved. Rates are over the window from the
 * newest sample that is at least {@link #WINDOW_MS} old, rounded to a tenth, so an idle cluster
 * reads exactly 0 and the live view has nothing to send.
 *
 * <p>A partition or broker missing from either end of the window (unreachable, leader moved away)
 * adds nothing rather than a drop; a log end offset that went backwards (truncation after failover)
 * counts as 0.
 *
 * <p>Concurrency: serialized on this object.
 */
final class Throughput {
  static final long WINDOW_MS = 1_000;

  /** One topic's rates. */
  record Rates(double recordsInPerSec, double recordsOutPerSec) {
    static final Rates ZERO = new Rates(0, 0);
  }

  private record Sample(
      long timeMs,
      Map<TopicPartition, Long> logEndOffsets,
      Map<Integer, Map<String, Long>> fetchedByBroker) {}

  private final Deque<Sample> samples = new ArrayDeque<>();
  private Map<String, Rates> latest = Map.of();

  /**
   * Adds an observation at {@code nowMs} and returns the rates by topic.
   *
   * @param answers the local snapshots that arrived, by broker id
   */
  synchronized Map<String, Rates> observe(long nowMs, Map<Integer, LocalSnapshot> answers) {
    Map<TopicPartition, Long> leos = new HashMap<>();
    Map<Integer, Map<String, Long>> fetched = new HashMap<>();
    answers.forEach(
        (brokerId, answer) -> {
          ClusterSnapshots.ledPartitions(answer)
              .forEach((tp, p) -> leos.put(tp, p.offsets().logEndOffset()));
          fetched.put(brokerId, answer.fetchedRecords());
        });
    Sample now = new Sample(nowMs, leos, fetched);
    // Keep the newest sample older than the window, and everything after it.
    while (samples.size() >= 2 && nowMs - secondOldest().timeMs() >= WINDOW_MS) {
      samples.removeFirst();
    }
    Sample base = samples.peekFirst();
    samples.addLast(now);
    latest = base == null || nowMs <= base.timeMs() ? Map.of() : rates(base, now);
    return latest;
  }

  /** The rates of the last observation. */
  synchronized Map<String, Rates> latest() {
    return latest;
  }

  private Sample secondOldest() {
    var it = samples.iterator();
    it.next();
    return it.next();
  }

  private static Map<String, Rates> rates(Sample base, Sample now) {
    double seconds = (now.timeMs() - base.timeMs()) / 1000.0;
    Map<String, Long> in = new TreeMap<>();
    now.logEndOffsets()
        .forEach(
            (tp, leo) -> {
              Long before = base.logEndOffsets().get(tp);
              if (before != null) {
                in.merge(tp.topic(), Math.max(0, leo - before), Long::sum);
              }
            });
    Map<String, Long> out = new TreeMap<>();
    now.fetchedByBroker()
        .forEach(
            (brokerId, counters) -> {
              Map<String, Long> before = base.fetchedByBroker().get(brokerId);
              if (before != null) {
                counters.forEach(
                    (topic, count) ->
                        out.merge(
                            topic, Math.max(0, count - before.getOrDefault(topic, 0L)), Long::sum));
              }
            });
    Map<String, Rates> rates = new TreeMap<>();
    for (String topic : in.keySet()) {
      rates.put(
          topic,
          new Rates(round(in.get(topic) / seconds), round(out.getOrDefault(topic, 0L) / seconds)));
    }
    out.forEach((topic, count) -> rates.putIfAbsent(topic, new Rates(0, round(count / seconds))));
    return rates;
  }

  private static double round(double perSec) {
    return Math.round(perSec * 10) / 10.0;
  }
}
