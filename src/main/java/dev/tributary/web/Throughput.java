package dev.tributary.web;

import dev.tributary.common.TopicPartition;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records per second in and out of each topic, and records and bytes per second in to each broker,
 * from successive observations of the cluster: "in" is how far the leaders' log end offsets (and
 * log sizes) moved (every record appended, however it arrived), "out" is how far the brokers'
 * served-to-consumers counters moved. Rates are over the window from the newest sample that is at
 * least {@link #WINDOW_MS} old, rounded (records to a tenth, bytes to a whole byte), so an idle
 * cluster reads exactly 0 and the live view has nothing to send.
 *
 * <p>A broker's "in" is what was appended to the partitions it leads at the end of the window (the
 * newest sample): a partition whose leadership moved during the window counts wholly for its new
 * leader, so the brokers' records in add up to the topics'. Bytes are the move of the leader's log
 * size ({@link LocalSnapshot.Offsets#sizeBytes}), so a window in which retention or compaction
 * removed more than was appended reads 0 for that partition.
 *
 * <p>A partition or broker missing from either end of the window (unreachable, leader moved away)
 * adds nothing rather than a drop; a log end offset that went backwards (truncation after failover)
 * counts as 0, for records and bytes alike.
 *
 * <p>Concurrency: serialized on this object.
 */
final class Throughput {
  static final long WINDOW_MS = 1_000;

  /** One topic's rates. */
  record Rates(double recordsInPerSec, double recordsOutPerSec) {
    static final Rates ZERO = new Rates(0, 0);
  }

  /** One broker's rates: what was appended to the partitions it leads. */
  record BrokerRates(double recordsInPerSec, double bytesInPerSec) {
    static final BrokerRates ZERO = new BrokerRates(0, 0);
  }

  /**
   * One observation's rates.
   *
   * @param byTopic by topic name; a topic missing has no rates yet (read it as 0)
   * @param byBroker by broker id: the brokers that, at the window's end, lead a partition seen at
   *     both ends of it; a broker missing appended nothing that was seen (read it as 0)
   */
  record Observed(Map<String, Rates> byTopic, Map<Integer, BrokerRates> byBroker) {
    static final Observed NONE = new Observed(Map.of(), Map.of());

    Observed {
      byTopic = Map.copyOf(byTopic);
      byBroker = Map.copyOf(byBroker);
    }
  }

  /** A partition as its leader described it. */
  private record Led(int brokerId, long logEndOffset, long sizeBytes) {}

  private record Sample(
      long timeMs, Map<TopicPartition, Led> led, Map<Integer, Map<String, Long>> fetchedByBroker) {}

  private final Deque<Sample> samples = new ArrayDeque<>();
  private Observed latest = Observed.NONE;

  /**
   * Adds an observation at {@code nowMs} and returns the rates.
   *
   * @param answers the local snapshots that arrived, by broker id
   */
  synchronized Observed observe(long nowMs, Map<Integer, LocalSnapshot> answers) {
    Map<TopicPartition, Led> led = new HashMap<>();
    Map<Integer, Map<String, Long>> fetched = new HashMap<>();
    answers.forEach(
        (brokerId, answer) -> {
          ClusterSnapshots.ledPartitions(answer)
              .forEach(
                  (tp, p) ->
                      led.put(
                          tp,
                          new Led(brokerId, p.offsets().logEndOffset(), p.offsets().sizeBytes())));
          fetched.put(brokerId, answer.fetchedRecords());
        });
    Sample now = new Sample(nowMs, led, fetched);
    // Keep the newest sample older than the window, and everything after it.
    while (samples.size() >= 2 && nowMs - secondOldest().timeMs() >= WINDOW_MS) {
      samples.removeFirst();
    }
    Sample base = samples.peekFirst();
    samples.addLast(now);
    latest = base == null || nowMs <= base.timeMs() ? Observed.NONE : rates(base, now);
    return latest;
  }

  /** The rates of the last observation. */
  synchronized Observed latest() {
    return latest;
  }

  private Sample secondOldest() {
    var it = samples.iterator();
    it.next();
    return it.next();
  }

  private static Observed rates(Sample base, Sample now) {
    double seconds = (now.timeMs() - base.timeMs()) / 1000.0;
    Map<String, Long> in = new TreeMap<>();
    Map<Integer, Long> recordsByBroker = new TreeMap<>();
    Map<Integer, Long> bytesByBroker = new TreeMap<>();
    now.led()
        .forEach(
            (tp, p) -> {
              Led before = base.led().get(tp);
              if (before == null) {
                return;
              }
              long records = Math.max(0, p.logEndOffset() - before.logEndOffset());
              // Nothing appended, or a truncation (the sizes then describe different histories): no
              // bytes.
              long bytes = records == 0 ? 0 : Math.max(0, p.sizeBytes() - before.sizeBytes());
              in.merge(tp.topic(), records, Long::sum);
              recordsByBroker.merge(p.brokerId(), records, Long::sum);
              bytesByBroker.merge(p.brokerId(), bytes, Long::sum);
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
    Map<Integer, BrokerRates> brokers = new TreeMap<>();
    recordsByBroker.forEach(
        (brokerId, records) ->
            brokers.put(
                brokerId,
                new BrokerRates(
                    round(records / seconds),
                    (double) Math.round(bytesByBroker.get(brokerId) / seconds))));
    return new Observed(rates, brokers);
  }

  private static double round(double perSec) {
    return Math.round(perSec * 10) / 10.0;
  }
}
