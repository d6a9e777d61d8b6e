package dev.tributary.server;

/**
 * The broker's traffic counters (Kafka's BrokerTopicStats and quota sensors): records and bytes
 * appended on this broker as leader, records and bytes served to consumers, both per topic; and the
 * delays produce quotas imposed, per client. The services count; the metrics registry behind it is
 * the edge's business (Micrometer, in {@code config}).
 *
 * <p>Implementations must be thread-safe and cheap: produce and fetch call them on every request.
 */
public interface BrokerStats {
  /** Counts nothing. */
  BrokerStats NONE =
      new BrokerStats() {
        @Override
        public void recordProduced(String topic, long records, long bytes) {}

        @Override
        public void recordFetched(String topic, long records, long bytes) {}

        @Override
        public void recordProduceThrottle(String clientIdentity, long throttleTimeMs) {}
      };

  /** {@code records} in {@code bytes} of batches appended to {@code topic} as its leader. */
  void recordProduced(String topic, long records, long bytes);

  /** {@code records} in {@code bytes} of batches returned to consumers of {@code topic}. */
  void recordFetched(String topic, long records, long bytes);

  /**
   * A produce by {@code clientIdentity} was charged to its quota and held back this long (0: not).
   */
  void recordProduceThrottle(String clientIdentity, long throttleTimeMs);
}
