package dev.tributary.web;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The numbers the dashboard charts over time, sampled from the recorded views once every {@code
 * sampleMs}: each user topic's records per second in and out, and each consumer group's lag (the
 * sum over its partitions; unknown while some partition's leader is not answering). Kept as long as
 * the history's frames ({@link ClusterHistory}), at most {@link #MAX_POINTS}.
 *
 * <p>Concurrency: not thread-safe; {@link ClusterHistory} calls it under its own lock.
 */
final class HistorySeries {
  /** Two hours at one point a second: a bound whatever the age limit. */
  static final int MAX_POINTS = 7_200;

  /** One sample: rates by topic ({@code [in, out]}), lag by group (null: unknown). */
  private record Point(long atMs, Map<String, double[]> rates, Map<String, Long> lag) {}

  /**
   * The samples from some moment on, by column: {@code times} in order, and for each topic and
   * group one value per time ({@code null} where it did not exist, or its lag was unknown).
   */
  record Columns(
      List<Long> times,
      Map<String, List<Double>> in,
      Map<String, List<Double>> out,
      Map<String, List<Long>> lag) {}

  private final long sampleMs;
  private final Deque<Point> points = new ArrayDeque<>();

  HistorySeries(long sampleMs) {
    this.sampleMs = sampleMs;
  }

  /** Samples {@code view} if the last sample is at least {@code sampleMs} old. */
  void record(long nowMs, ClusterSnapshot view) {
    Point last = points.peekLast();
    if (last != null && nowMs - last.atMs() < sampleMs) {
      return;
    }
    Map<String, double[]> rates = new TreeMap<>();
    for (ClusterSnapshot.TopicRow t : view.topics()) {
      if (!t.name().startsWith("__")) {
        rates.put(t.name(), new double[] {t.recordsInPerSec(), t.recordsOutPerSec()});
      }
    }
    Map<String, Long> lag = new TreeMap<>();
    for (ClusterSnapshot.GroupRow g : view.groups()) {
      lag.put(g.groupId(), totalLag(g));
    }
    points.addLast(new Point(nowMs, rates, lag));
    while (points.size() > MAX_POINTS) {
      points.removeFirst();
    }
  }

  /** Drops the samples before {@code oldestMs}. */
  void evictBefore(long oldestMs) {
    while (!points.isEmpty() && points.peekFirst().atMs() < oldestMs) {
      points.removeFirst();
    }
  }

  Columns since(long fromMs) {
    List<Point> kept = points.stream().filter(p -> p.atMs() >= fromMs).toList();
    TreeSet<String> topics = new TreeSet<>();
    TreeSet<String> groups = new TreeSet<>();
    kept.forEach(
        p -> {
          topics.addAll(p.rates().keySet());
          groups.addAll(p.lag().keySet());
        });
    List<Long> times = new ArrayList<>(kept.size());
    Map<String, List<Double>> in = new LinkedHashMap<>();
    Map<String, List<Double>> out = new LinkedHashMap<>();
    Map<String, List<Long>> lag = new LinkedHashMap<>();
    topics.forEach(
        t -> {
          in.put(t, new ArrayList<>(kept.size()));
          out.put(t, new ArrayList<>(kept.size()));
        });
    groups.forEach(g -> lag.put(g, new ArrayList<>(kept.size())));
    for (Point p : kept) {
      times.add(p.atMs());
      for (String t : topics) {
        double[] r = p.rates().get(t);
        in.get(t).add(r == null ? null : r[0]);
        out.get(t).add(r == null ? null : r[1]);
      }
      for (String g : groups) {
        lag.get(g).add(p.lag().get(g));
      }
    }
    return new Columns(times, in, out, lag);
  }

  int size() {
    return points.size();
  }

  private static Long totalLag(ClusterSnapshot.GroupRow group) {
    long sum = 0;
    for (ClusterSnapshot.GroupPartitionRow p : group.partitions()) {
      if (p.lag() == null) {
        return null;
      }
      sum += p.lag();
    }
    return sum;
  }
}
