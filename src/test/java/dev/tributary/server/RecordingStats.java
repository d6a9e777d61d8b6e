package dev.tributary.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link BrokerStats} that keep what they are told: per topic {records, bytes}, and throttles. */
final class RecordingStats implements BrokerStats {
  /** One produce throttle: whose, and how long. */
  record Throttle(String clientIdentity, long throttleTimeMs) {}

  final Map<String, List<Long>> produced = new LinkedHashMap<>();
  final Map<String, List<Long>> fetched = new LinkedHashMap<>();
  final List<Throttle> throttles = new ArrayList<>();

  @Override
  public synchronized void recordProduced(String topic, long records, long bytes) {
    add(produced, topic, records, bytes);
  }

  @Override
  public synchronized void recordFetched(String topic, long records, long bytes) {
    add(fetched, topic, records, bytes);
  }

  @Override
  public synchronized void recordProduceThrottle(String clientIdentity, long throttleTimeMs) {
    throttles.add(new Throttle(clientIdentity, throttleTimeMs));
  }

  private static void add(Map<String, List<Long>> counts, String topic, long records, long bytes) {
    List<Long> now = counts.getOrDefault(topic, List.of(0L, 0L));
    counts.put(topic, List.of(now.get(0) + records, now.get(1) + bytes));
  }
}
